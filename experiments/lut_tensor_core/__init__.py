"""LUT Tensor Core (Mo et al., ISCA 2025)

One module per figure/table. REPORT.md names the paper as its reference file (`paper:`) does.
"""
