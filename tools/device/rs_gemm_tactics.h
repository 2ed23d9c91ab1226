// The tactics tools/device/rs_gemm_bench times: TensorRT-LLM's sm90 weight-only GEMM launcher
// (fpA_intB, FP16 activations, per-column scales) at each CTA shape of its candidate list.
#pragma once
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstddef>

// The tactics: (name, weight type, CTA weight rows, CTA tokens, cluster along weight rows, along
// tokens): the ten CTA shapes of get_candidate_tiles_sm90 (cutlass_heuristic.cpp, not grouped),
// each at cluster 1x1x1 and at the multicast clusters get_candidate_configs_sm90 adds
// (sm90_supports_mcast_along_m: 128-row tiles, 2x1x1; _along_n: 128 and 256 tokens, 1x2x1; both:
// 2x2x1), INT8 and INT4: 42 tactics.
#define RS_TACTICS(X) \
  X(i8_64x16_c1x1, uint8_t, 64, 16, 1, 1) X(i8_64x32_c1x1, uint8_t, 64, 32, 1, 1)           \
  X(i8_64x64_c1x1, uint8_t, 64, 64, 1, 1) X(i8_64x128_c1x1, uint8_t, 64, 128, 1, 1)         \
  X(i8_64x128_c1x2, uint8_t, 64, 128, 1, 2) X(i8_64x256_c1x1, uint8_t, 64, 256, 1, 1)       \
  X(i8_64x256_c1x2, uint8_t, 64, 256, 1, 2) X(i8_128x16_c1x1, uint8_t, 128, 16, 1, 1)       \
  X(i8_128x16_c2x1, uint8_t, 128, 16, 2, 1) X(i8_128x32_c1x1, uint8_t, 128, 32, 1, 1)       \
  X(i8_128x32_c2x1, uint8_t, 128, 32, 2, 1) X(i8_128x64_c1x1, uint8_t, 128, 64, 1, 1)       \
  X(i8_128x64_c2x1, uint8_t, 128, 64, 2, 1) X(i8_128x128_c1x1, uint8_t, 128, 128, 1, 1)     \
  X(i8_128x128_c2x1, uint8_t, 128, 128, 2, 1) X(i8_128x128_c1x2, uint8_t, 128, 128, 1, 2)   \
  X(i8_128x128_c2x2, uint8_t, 128, 128, 2, 2) X(i8_128x256_c1x1, uint8_t, 128, 256, 1, 1)   \
  X(i8_128x256_c2x1, uint8_t, 128, 256, 2, 1) X(i8_128x256_c1x2, uint8_t, 128, 256, 1, 2)   \
  X(i8_128x256_c2x2, uint8_t, 128, 256, 2, 2)                                               \
  X(i4_64x16_c1x1, cutlass::uint4b_t, 64, 16, 1, 1)                                         \
  X(i4_64x32_c1x1, cutlass::uint4b_t, 64, 32, 1, 1)                                         \
  X(i4_64x64_c1x1, cutlass::uint4b_t, 64, 64, 1, 1)                                         \
  X(i4_64x128_c1x1, cutlass::uint4b_t, 64, 128, 1, 1)                                       \
  X(i4_64x128_c1x2, cutlass::uint4b_t, 64, 128, 1, 2)                                       \
  X(i4_64x256_c1x1, cutlass::uint4b_t, 64, 256, 1, 1)                                       \
  X(i4_64x256_c1x2, cutlass::uint4b_t, 64, 256, 1, 2)                                       \
  X(i4_128x16_c1x1, cutlass::uint4b_t, 128, 16, 1, 1)                                       \
  X(i4_128x16_c2x1, cutlass::uint4b_t, 128, 16, 2, 1)                                       \
  X(i4_128x32_c1x1, cutlass::uint4b_t, 128, 32, 1, 1)                                       \
  X(i4_128x32_c2x1, cutlass::uint4b_t, 128, 32, 2, 1)                                       \
  X(i4_128x64_c1x1, cutlass::uint4b_t, 128, 64, 1, 1)                                       \
  X(i4_128x64_c2x1, cutlass::uint4b_t, 128, 64, 2, 1)                                       \
  X(i4_128x128_c1x1, cutlass::uint4b_t, 128, 128, 1, 1)                                     \
  X(i4_128x128_c2x1, cutlass::uint4b_t, 128, 128, 2, 1)                                     \
  X(i4_128x128_c1x2, cutlass::uint4b_t, 128, 128, 1, 2)                                     \
  X(i4_128x128_c2x2, cutlass::uint4b_t, 128, 128, 2, 2)                                     \
  X(i4_128x256_c1x1, cutlass::uint4b_t, 128, 256, 1, 1)                                     \
  X(i4_128x256_c2x1, cutlass::uint4b_t, 128, 256, 2, 1)                                     \
  X(i4_128x256_c1x2, cutlass::uint4b_t, 128, 256, 1, 2)                                     \
  X(i4_128x256_c2x2, cutlass::uint4b_t, 128, 256, 2, 2)

// One tactic's entry point: C[m, n] = A[m, k] x dequant(B[n, k]); throws on a shape the kernel
// cannot run.
#define RS_DECLARE(name, wtype, cta_m, cta_n, cluster_m, cluster_n)                   \
  void rs_launch_##name(half const* A, void const* B, half const* scales, half* C, int m, int n, \
                        int k, char* workspace, size_t workspace_bytes, cudaStream_t stream);

RS_TACTICS(RS_DECLARE)
