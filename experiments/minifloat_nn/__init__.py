"""MiniFloat-NN and ExSdotp (Bertaccini et al., ARITH 2022): one module per figure/table."""
