// Clocks per TMA load with a given number of loads in flight, on one SM and on every SM, from
// DRAM and from the L2: the memory side of the sm90 weight-only k-tile (tools/device/README.md).
// One thread a CTA keeps `stages` 2D tensor loads (cp.async.bulk.tensor through CUTLASS's
// SM90_TMA_LOAD_2D, one mbarrier a stage) in flight: it waits for the oldest before it reuses
// its stage. Boxes: the weight tiles' row bytes and rows of the kernel's tactics (64 B = a
// 64-deep INT8 k-tile row, 32 B an INT4 one; 64 or 128 weight rows) and activation tiles (128 B
// = 64 FP16; 16 or 64 token rows). One JSON line a case.
#include <cuda.h>
#include <cuda_runtime.h>
#include <cudaTypedefs.h>
#include <cute/arch/copy_sm90_desc.hpp>
#include <cute/arch/copy_sm90_tma.hpp>
#include <cutlass/arch/barrier.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

constexpr int kMaxStages = 32;
constexpr size_t kTensorBytes = size_t(1) << 30;  // streamed from DRAM: >> the L2
constexpr size_t kInnerBytes = 4096;               // one row of the 2D tensor
constexpr size_t kL2RegionBytes = size_t(1) << 20;  // the one region every CTA reads from the L2
constexpr int kMaxLoads = 2048;
constexpr int kSmemBytes = 192 << 10;  // the stages' boxes (an SM has 227 KB)

void check(cudaError_t status, char const* what) {
  if (status != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(status));
    std::exit(2);
  }
}

// Each CTA streams a region of `region_rows` rows from row first_row + blockIdx.x x
// `region_stride` (stride 0: one region for all, in the L2), box after box along the rows'
// bytes, then down, wrapping: `loads` loads, `stages` in flight.
__global__ void tma_stream(const __grid_constant__ CUtensorMap map, int box_bytes, int box_rows,
                           int first_row, int region_rows, int region_stride, int loads,
                           int stages, long long* cycles) {
  extern __shared__ __align__(1024) uint8_t smem[];
  __shared__ uint64_t full[kMaxStages];
  if (threadIdx.x != 0) return;
  for (int s = 0; s < stages; ++s) cutlass::arch::ClusterBarrier::init(&full[s], 1);
  cutlass::arch::fence_barrier_init();
  int const per_row = int(kInnerBytes) / box_bytes;
  int const row0 = first_row + blockIdx.x * region_stride;
  uint32_t const bytes = uint32_t(box_bytes) * box_rows;
  uint64_t const hint = uint64_t(cute::TMA::CacheHintSm90::EVICT_NORMAL);
  long long const start = clock64();
  for (int i = 0; i < loads + stages; ++i) {
    int const s = i % stages;
    if (i >= stages) cutlass::arch::ClusterBarrier::wait(&full[s], (i / stages - 1) & 1);
    if (i >= loads) continue;  // the last `stages` iterations only drain
    cutlass::arch::ClusterTransactionBarrier::arrive_and_expect_tx(&full[s], bytes);
    int const x = (i % per_row) * box_bytes;
    int const y = row0 + (i / per_row * box_rows) % region_rows;
    cute::SM90_TMA_LOAD_2D::copy(&map, &full[s], hint, smem + size_t(s) * bytes, x, y);
  }
  cycles[blockIdx.x] = clock64() - start;
}

CUtensorMap make_map(PFN_cuTensorMapEncodeTiled_v12000 encode, void* base, int box_bytes,
                     int box_rows) {
  CUtensorMap map;
  cuuint64_t dims[2] = {kInnerBytes, kTensorBytes / kInnerBytes};
  cuuint64_t strides[1] = {kInnerBytes};
  cuuint32_t box[2] = {cuuint32_t(box_bytes), cuuint32_t(box_rows)};
  cuuint32_t element_strides[2] = {1, 1};
  CUresult status = encode(&map, CU_TENSOR_MAP_DATA_TYPE_UINT8, 2, base, dims, strides, box,
                           element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                           CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                           CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (status != CUDA_SUCCESS) {
    std::fprintf(stderr, "cuTensorMapEncodeTiled: error %d\n", int(status));
    std::exit(2);
  }
  return map;
}

}  // namespace

int main() {
  cudaDeviceProp prop;
  check(cudaGetDeviceProperties(&prop, 0), "properties");
  int const sms = prop.multiProcessorCount;
  void* encode_fn = nullptr;
  cudaDriverEntryPointQueryResult found;
  check(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &encode_fn, 12000,
                                         cudaEnableDefault, &found),
        "entry point");
  auto encode = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(encode_fn);
  uint8_t* tensor;
  long long* cycles;
  check(cudaMalloc(&tensor, kTensorBytes), "malloc tensor");
  check(cudaMemset(tensor, 0x5a, kTensorBytes), "memset tensor");
  check(cudaMalloc(&cycles, sms * sizeof(long long)), "malloc cycles");
  check(cudaFuncSetAttribute(tma_stream, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes),
        "smem");
  std::printf("{\"device\": \"%s\", \"sms\": %d}\n", prop.name, sms);
  int const boxes[][2] = {{64, 64}, {64, 128}, {32, 64}, {32, 128}, {128, 16}, {128, 64}};
  for (auto const& box : boxes) {
    CUtensorMap map = make_map(encode, tensor, box[0], box[1]);
    int const bytes = box[0] * box[1];
    for (char const* source : {"dram", "l2"}) {
      bool const dram = source[0] == 'd';
      for (int stages : {1, 2, 4, 8, 16, 32}) {
        if (stages * bytes > kSmemBytes) continue;
        for (int ctas : {1, sms}) {
          // from DRAM: each run on its own half of the tensor, so the measured one finds nothing
          // of its region in the L2
          size_t const region_bytes = dram ? kTensorBytes / 2 / sms : kL2RegionBytes;
          int const region_rows = int(region_bytes / kInnerBytes) / box[1] * box[1];
          // from DRAM each box once; from the L2 the region over and over
          int const loads = dram ? int(std::min<size_t>(kMaxLoads, region_bytes / bytes))
                                 : kMaxLoads;
          std::vector<long long> host(ctas);
          for (int rep = 0; rep < 2; ++rep) {  // the first run warms the clock (and the L2)
            int const first_row = dram ? rep * int(kTensorBytes / 2 / kInnerBytes) : 0;
            tma_stream<<<ctas, 32, kSmemBytes>>>(map, box[0], box[1], first_row, region_rows,
                                                 dram ? region_rows : 0, loads, stages, cycles);
            check(cudaDeviceSynchronize(), "tma_stream");
          }
          check(cudaMemcpy(host.data(), cycles, ctas * sizeof(long long), cudaMemcpyDeviceToHost),
                "copy");
          std::sort(host.begin(), host.end());
          std::printf("{\"box_row_bytes\": %d, \"box_rows\": %d, \"source\": \"%s\", "
                      "\"stages\": %d, \"ctas\": %d, \"loads\": %d, \"clocks_per_load\": %.1f}\n",
                      box[0], box[1], source, stages, ctas, loads,
                      double(host[ctas / 2]) / loads);
          std::fflush(stdout);
        }
      }
    }
  }
  return 0;
}
