"""Group-wise affine low-bit weights: GGUF's Q4_1 blocks and round-to-nearest re-quantization.

Every linear layer of the model is held as integer codes with a scale and a zero point per group
of ``group_size`` weights along K, W = scale * (codes - zero): the form ``lutcore.lut`` looks
weights up in (its Eq. 1), and the form of GGUF's Q4_1 (W = d * q + m, so zero = -m / d).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

Q4_1_BLOCK = 32  # weights per Q4_1 block: fp16 d, fp16 m, 16 bytes of nibbles (ggml-common.h)
Q4_1_BYTES = 4 + Q4_1_BLOCK // 2


class AffineWeights(NamedTuple):
    """W[..., n, k] = scale[..., n, k // g] * (codes[..., n, k] - zero[..., n, k // g]), g = K / S.

    codes: [..., N, K] uint8 in [0, 2^w_bits); scale, zero: [..., N, S] float64. A leading axis
    stacks the layers of a model.
    """

    codes: np.ndarray
    scale: np.ndarray
    zero: np.ndarray
    w_bits: int

    @property
    def group_size(self) -> int:
        return self.codes.shape[-1] // self.scale.shape[-1]

    def dequantize(self) -> np.ndarray:
        """[..., N, K] float64 weights."""
        groups = self.codes.reshape(*self.scale.shape, self.group_size)
        weights = np.subtract(groups, self.zero[..., None], dtype=np.float64)
        weights *= self.scale[..., None]  # in place: one [..., N, K] float64 array, not two
        return weights.reshape(self.codes.shape)


def concat_columns(parts: list[AffineWeights]) -> AffineWeights:
    """Join weights of the same K, width and group size along N (e.g. Q, K and V)."""
    if len({(p.codes.shape[-1], p.w_bits, p.group_size) for p in parts}) != 1:
        raise ValueError("concat_columns needs equal K, w_bits and group size")
    return AffineWeights(*(np.concatenate([getattr(p, f) for p in parts], axis=-2)
                           for f in ("codes", "scale", "zero")), parts[0].w_bits)


def from_q4_1(raw: np.ndarray) -> AffineWeights:
    """GGUF Q4_1 rows [N, K/32 * 20] uint8 -> AffineWeights (w_bits 4, group 32), exactly.

    Each block is W = d * q + m with q the nibbles (low nibbles: elements 0..15, high: 16..31),
    so scale = d and zero = -m / d. A block with d = 0 holds m everywhere: codes 0, scale 1,
    zero -m.
    """
    raw = np.ascontiguousarray(raw, dtype=np.uint8)
    if raw.ndim != 2 or raw.shape[1] % Q4_1_BYTES:
        raise ValueError(f"Q4_1 rows must be [N, blocks * {Q4_1_BYTES}] bytes, got {raw.shape}")
    blocks = raw.reshape(raw.shape[0], -1, Q4_1_BYTES)
    d = blocks[..., 0:2].copy().view(np.float16)[..., 0].astype(np.float64)
    m = blocks[..., 2:4].copy().view(np.float16)[..., 0].astype(np.float64)
    nibbles = blocks[..., 4:]
    codes = np.concatenate([nibbles & 0x0F, nibbles >> 4], axis=-1)  # [N, blocks, 32]
    constant = d == 0
    codes = np.where(constant[..., None], 0, codes).reshape(raw.shape[0], -1).astype(np.uint8)
    with np.errstate(divide="ignore", invalid="ignore"):
        zero = np.where(constant, -m, -m / d)
    return AffineWeights(codes, np.where(constant, 1.0, d), zero, 4)


def quantize_rtn(w: np.ndarray, w_bits: int, group_size: int) -> AffineWeights:
    """Round-to-nearest asymmetric INT``w_bits`` quantization of w [..., N, K], one scale and
    integer zero point per ``group_size`` weights along K.

    As GPTQ's quantizer: the group's range [min, max] is widened to include 0 (so 0 is exact),
    scale = (max - min) / (2^b - 1), zero = round(-min / scale), codes = clip(round(w / scale)
    + zero, 0, 2^b - 1); rounding is half-to-even.
    """
    w = np.asarray(w, np.float64)
    if not 1 <= w_bits <= 8:
        raise ValueError(f"w_bits must be in 1..8, got {w_bits}")
    if group_size < 1 or w.shape[-1] % group_size:
        raise ValueError(f"group_size must divide K = {w.shape[-1]}, got {group_size}")
    groups = w.reshape(*w.shape[:-1], -1, group_size)
    low = np.minimum(groups.min(axis=-1), 0.0)
    high = np.maximum(groups.max(axis=-1), 0.0)
    top = (1 << w_bits) - 1
    scale = np.where(high > low, (high - low) / top, 1.0)
    zero = np.round(-low / scale)
    codes = groups / scale[..., None]  # then in place: one [..., N, K] float64 array, not four
    np.round(codes, out=codes)
    codes += zero[..., None]
    np.clip(codes, 0, top, out=codes)
    return AffineWeights(codes.reshape(w.shape).astype(np.uint8), scale, zero, w_bits)
