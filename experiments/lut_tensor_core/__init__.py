"""LUT Tensor Core (Mo et al., ISCA 2025)

One module per figure/table. The first line above names the paper: REPORT.md uses it as heading.
"""
