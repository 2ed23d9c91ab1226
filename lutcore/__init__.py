"""lutcore: JAX models of LUT Tensor Core (ISCA'25) and MiniFloat-NN / ExSdotp (ARITH'22).

Importing lutcore enables JAX's 64-bit mode: the bit-exact arithmetic needs int64/uint64
intermediates (a 53-bit window for FP16->FP32 sums) and float64 golden models.
"""

import jax

jax.config.update("jax_enable_x64", True)

__version__ = "0.1.0"
