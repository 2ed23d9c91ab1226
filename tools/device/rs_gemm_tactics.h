// The tactics tools/device/rs_gemm_bench times: TensorRT-LLM's sm90 weight-only GEMM launcher
// (fpA_intB, FP16 activations, per-column scales) at each CTA shape of its candidate list.
#pragma once
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstddef>

// The tactics: (name, weight type, CTA weight rows, CTA tokens): the ten CTA shapes of
// get_candidate_tiles_sm90 (cutlass_heuristic.cpp, not grouped) at cluster 1x1x1, INT8 and INT4.
#define RS_TACTICS(X)                                                                      \
  X(i8_64x16, uint8_t, 64, 16) X(i8_64x32, uint8_t, 64, 32) X(i8_64x64, uint8_t, 64, 64)   \
  X(i8_64x128, uint8_t, 64, 128) X(i8_64x256, uint8_t, 64, 256)                            \
  X(i8_128x16, uint8_t, 128, 16) X(i8_128x32, uint8_t, 128, 32)                            \
  X(i8_128x64, uint8_t, 128, 64) X(i8_128x128, uint8_t, 128, 128)                          \
  X(i8_128x256, uint8_t, 128, 256)                                                         \
  X(i4_64x16, cutlass::uint4b_t, 64, 16) X(i4_64x32, cutlass::uint4b_t, 64, 32)            \
  X(i4_64x64, cutlass::uint4b_t, 64, 64) X(i4_64x128, cutlass::uint4b_t, 64, 128)          \
  X(i4_64x256, cutlass::uint4b_t, 64, 256) X(i4_128x16, cutlass::uint4b_t, 128, 16)        \
  X(i4_128x32, cutlass::uint4b_t, 128, 32) X(i4_128x64, cutlass::uint4b_t, 128, 64)        \
  X(i4_128x128, cutlass::uint4b_t, 128, 128) X(i4_128x256, cutlass::uint4b_t, 128, 256)

// One tactic's entry point: C[m, n] = A[m, k] x dequant(B[n, k]); throws on a shape the kernel
// cannot run.
#define RS_DECLARE(name, wtype, cta_m, cta_n)                                                  \
  void rs_launch_##name(half const* A, void const* B, half const* scales, half* C, int m, int n, \
                        int k, char* workspace, size_t workspace_bytes, cudaStream_t stream);

RS_TACTICS(RS_DECLARE)
