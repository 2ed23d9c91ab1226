// One tactic of rs_gemm_tactics.h: an entry point that calls the launcher as flashinfer vendors it
// (no TensorRT-LLM or CUTLASS file is changed). tools/device/build.sh compiles it once a tactic
// with -DRS_TACTIC=<name> -DRS_WTYPE=<type> -DRS_CTA_M=<rows> -DRS_CTA_N=<tokens>
// -DRS_CLUSTER_M=<1|2> -DRS_CLUSTER_N=<1|2>.
#include "rs_gemm_tactics.h"

#include "tensorrt_llm/kernels/cutlass_kernels/fpA_intB_gemm/launchers/fpA_intB_launcher_sm90.inl"

namespace tkc = tensorrt_llm::cutlass_extensions;
namespace launchers = tensorrt_llm::kernels::cutlass_kernels_oss;
using CtaShape = cute::Shape<cute::Int<RS_CTA_M>, cute::Int<RS_CTA_N>, cute::Int<64>>;
using ClusterShape = cute::Shape<cute::Int<RS_CLUSTER_M>, cute::Int<RS_CLUSTER_N>, cute::_1>;
// The schedules sm90_dispatch_mainloop_schedules / sm90_dispatch_epilogue_schedules pick for AUTO.
using MainloopSchedule =
    cute::conditional_t<RS_CTA_M == 64, cutlass::gemm::KernelTmaWarpSpecializedPingpong,
                        cutlass::gemm::KernelTmaWarpSpecializedCooperative>;
using EpilogueSchedule =
    cute::conditional_t<RS_CTA_M == 64, cutlass::epilogue::TmaWarpSpecialized,
                        cutlass::epilogue::TmaWarpSpecializedCooperative>;

#define RS_PASTE(a, b) a##b
#define RS_NAME(name) RS_PASTE(rs_launch_, name)
void RS_NAME(RS_TACTIC)(half const* A, void const* B, half const* scales, half* C, int m, int n,
                        int k, char* workspace, size_t workspace_bytes, cudaStream_t stream) {
  launchers::sm90_generic_mixed_gemm_kernelLauncher<
      half, RS_WTYPE, half, half, half, cutlass::WeightOnlyQuantOp::PER_COLUMN_SCALE_ONLY,
      tkc::EpilogueOpBias, CtaShape, ClusterShape, MainloopSchedule, EpilogueSchedule>(
      A, static_cast<RS_WTYPE const*>(B), scales, nullptr, nullptr, 1.0f, C, m, n, k, k,
      tkc::CutlassGemmConfig{}, workspace, workspace_bytes, stream, nullptr);
}
