"""MiniFloat-NN and ExSdotp (Bertaccini et al., ARITH 2022)

One module per figure/table. The first line above names the paper: REPORT.md uses it as heading.
"""
