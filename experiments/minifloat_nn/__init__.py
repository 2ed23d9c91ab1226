"""MiniFloat-NN and ExSdotp (Bertaccini et al., ARITH 2022)

One module per figure/table. REPORT.md names the paper as its reference file (`paper:`) does.
"""
