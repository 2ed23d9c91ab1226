"""A minimal GGUF reader: the metadata as Python values and every tensor as its raw bytes.

PyPI ``gguf``'s ``GGUFReader`` builds a numpy view for every element of every metadata array
(about 10 s for the 49,152 tokens and 48,900 merges of SmolLM2); this parses the same layout
(GGUF v2/v3, little-endian: ggml's docs/gguf.md) with ``struct`` and one numpy view per numeric
array, and gives the values ``ReaderField.contents()`` gives (tests compare the two).
"""

from __future__ import annotations

import os
import struct
from typing import NamedTuple

import numpy as np

MAGIC = b"GGUF"
VERSIONS = (2, 3)
DEFAULT_ALIGNMENT = 32  # general.alignment when absent (gguf.md)
# GGUFValueType -> struct code of the scalar types (gguf.md: 0..7 and 10..12)
SCALARS = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 7: "?", 10: "Q", 11: "q",
           12: "d"}
STRING, ARRAY = 8, 9


class RawTensor(NamedTuple):
    """One tensor: its ggml type id, its shape (outermost first, as numpy orders it) and its
    bytes, [*shape[:-1], bytes per row] uint8 (a read-only view of the file)."""

    type: int
    shape: tuple[int, ...]
    data: np.ndarray


class GgufFile(NamedTuple):
    """metadata: key -> value (str, int, float, bool, or a list of them); tensors: name -> raw."""

    metadata: dict
    tensors: dict[str, RawTensor]


class _Cursor:
    def __init__(self, buffer):
        self.buffer, self.offset = buffer, 0

    def unpack(self, code: str):
        values = struct.unpack_from("<" + code, self.buffer, self.offset)
        self.offset += struct.calcsize("<" + code)
        return values[0] if len(values) == 1 else values

    def string(self) -> str:
        length = self.unpack("Q")
        start, self.offset = self.offset, self.offset + length
        return str(self.buffer[start:self.offset], "utf-8")

    def value(self, kind: int):
        if kind == STRING:
            return self.string()
        if kind in SCALARS:
            return self.unpack(SCALARS[kind])
        if kind != ARRAY:
            raise ValueError(f"GGUF value type {kind} unknown")
        item, count = self.unpack("IQ")
        if item in SCALARS:  # one view for the whole array
            dtype = np.dtype("<" + SCALARS[item])
            values = np.frombuffer(self.buffer, dtype, count, self.offset)
            self.offset += dtype.itemsize * count
            return values.tolist()
        return [self.value(item) for _ in range(count)]


def read_gguf_file(path: str | os.PathLike) -> GgufFile:
    """Parse a GGUF file's header; tensor data stays memory-mapped."""
    from gguf import GGML_QUANT_SIZES, GGMLQuantizationType

    data = np.memmap(path, np.uint8, mode="r")
    cursor = _Cursor(memoryview(data))  # not the memmap: its slices are memmaps, half the speed
    if bytes(data[:4]) != MAGIC:
        raise ValueError(f"{path}: not a GGUF file (magic {bytes(data[:4])!r})")
    cursor.offset = 4
    version, tensor_count, kv_count = cursor.unpack("IQQ")
    if version not in VERSIONS:
        raise ValueError(f"{path}: GGUF version {version} unsupported; allowed values: "
                         f"{', '.join(map(str, VERSIONS))} (little-endian)")
    metadata = {}
    for _ in range(kv_count):
        key = cursor.string()
        metadata[key] = cursor.value(cursor.unpack("I"))
    infos = []
    for _ in range(tensor_count):
        name = cursor.string()
        dims = cursor.unpack(f"{cursor.unpack('I')}Q")
        dims = dims if isinstance(dims, tuple) else (dims,)
        infos.append((name, dims, *cursor.unpack("IQ")))
    alignment = metadata.get("general.alignment", DEFAULT_ALIGNMENT)
    start = -(-cursor.offset // alignment) * alignment
    tensors = {}
    for name, dims, kind, offset in infos:
        block, block_bytes = GGML_QUANT_SIZES[GGMLQuantizationType(kind)]
        shape = tuple(int(n) for n in reversed(dims))
        row_bytes = shape[-1] // block * block_bytes
        size = int(np.prod(shape[:-1], dtype=np.int64)) * row_bytes
        raw = data[start + offset:start + offset + size].reshape(*shape[:-1], row_bytes)
        tensors[name] = RawTensor(kind, shape, np.asarray(raw))
    return GgufFile(metadata, tensors)
