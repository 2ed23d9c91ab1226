// Times TensorRT-LLM's sm90 weight-only GEMM (FP16 activations x INT8 / INT4 weights, per-column
// scales: the launcher the WeightOnlyQuantMatmul plugin calls on Hopper) for every CTA shape and
// cluster of its candidate list (rs_gemm_tactics.h; each its own translation unit,
// rs_gemm_tactic.cu) over the shapes tools/device/shapes.py prints, one JSON line per (tactic,
// shape). Built by tools/device/build.sh against the launcher as flashinfer vendors it (no
// TensorRT-LLM or CUTLASS file is changed).
//
// Four timings per shape, medians of CUDA-event times:
//   profiler_us  events around one launcher call on an idle GPU, the host's work in the call
//                included (what TensorRT's per-layer profiler records for a plugin layer);
//   stream_us    a batch of calls enqueued back to back, per call (the host may set the pace);
//   graph_us     a CUDA graph of the batch, per call: the device's own time (0 where the
//                launcher's steps refused stream capture);
//   hot_us       the same graph with every call on one copy of the weights, in the L2 where
//                they fit: against graph_us, what the DRAM round trips cost the pipeline.
// Except in hot_us, each call reads another copy of the weights, so they come from DRAM.
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <cutlass/numeric_types.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "rs_gemm_tactics.h"

namespace {

using Launch = void (*)(half const*, void const*, half const*, half*, int, int, int, char*, size_t,
                        cudaStream_t);
struct Tactic {
  char const* name;
  int bits, cta_m, cta_n, cluster_m, cluster_n;
  Launch launch;
};
#define RS_ENTRY(name, wtype, cta_m, cta_n, cluster_m, cluster_n) \
  {#name, cutlass::sizeof_bits<wtype>::value, cta_m, cta_n, cluster_m, cluster_n, rs_launch_##name},
Tactic const kTactics[] = {RS_TACTICS(RS_ENTRY)};

void check(cudaError_t status, char const* what) {
  if (status != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(status));
    std::exit(2);
  }
}

// Random data (tensor-core power, and so the clock, depends on it): a hash of the index.
__global__ void fill_random(uint32_t* words, size_t count, uint32_t seed, uint32_t mask) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count;
       i += size_t(gridDim.x) * blockDim.x) {
    uint32_t x = uint32_t(i) * 0x9e3779b9u ^ seed;
    x ^= x >> 16, x *= 0x85ebca6bu, x ^= x >> 13, x *= 0xc2b2ae35u, x ^= x >> 16;
    words[i] = x & mask;
  }
}

constexpr size_t kRotationBytes = size_t(512) << 20;  // weights read per rotation: >> the L2
constexpr size_t kWorkspaceBytes = size_t(256) << 20;
constexpr int kBatch = 10, kRepeats = 3;  // at most: batches of 10 calls, three of each timing
constexpr float kBudgetUs = 20000;          // device time a timing may take, about

struct Buffers {
  half *a, *scales, *c;
  char *weights, *workspace;
  size_t weight_bytes;
};

float median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

float elapsed_us(cudaEvent_t start, cudaEvent_t stop) {
  float ms = 0;
  check(cudaEventSynchronize(stop), "sync");
  check(cudaEventElapsedTime(&ms, start, stop), "elapsed");
  return ms * 1e3f;
}

// Per call, the median time of a CUDA graph of `calls` launcher calls, call i reading weight copy
// copy_of(i): the device's own time. 0 where a launcher step refuses stream capture.
template <typename Call, typename CopyOf>
float graph_time_us(Call const& call, int calls, cudaStream_t stream, cudaEvent_t start,
                    cudaEvent_t stop, CopyOf copy_of) {
  cudaGraph_t captured = nullptr;
  cudaGraphExec_t exec = nullptr;
  bool ok = cudaStreamBeginCapture(stream, cudaStreamCaptureModeRelaxed) == cudaSuccess;
  try {
    for (int i = 0; ok && i < calls; ++i) call(copy_of(i));
  } catch (std::exception const&) {
    ok = false;
  }
  ok = cudaStreamEndCapture(stream, &captured) == cudaSuccess && ok &&
       cudaGraphInstantiate(&exec, captured, 0) == cudaSuccess;
  cudaGetLastError();
  std::vector<float> times;
  if (ok) {
    check(cudaGraphLaunch(exec, stream), "graph warm-up");
    for (int r = 0; r < kRepeats; ++r) {
      check(cudaEventRecord(start, stream), "record");
      check(cudaGraphLaunch(exec, stream), "graph");
      check(cudaEventRecord(stop, stream), "record");
      times.push_back(elapsed_us(start, stop) / calls);
    }
  }
  if (exec) cudaGraphExecDestroy(exec);
  if (captured) cudaGraphDestroy(captured);
  return ok ? median(times) : 0.0f;
}

struct Timing {
  float profiler_us = 0, stream_us = 0, graph_us = 0, hot_us = 0;  // 0: the capture failed
};

// Times one tactic at one shape; returns false (and says why) where the kernel cannot run it.
bool time_shape(Tactic const& t, Buffers const& buf, int m, int n, int k, cudaStream_t stream,
                Timing* timing, std::string* error) {
  size_t const bytes = size_t(n) * k * t.bits / 8;
  int const copies = int(std::max<size_t>(2, std::min(buf.weight_bytes, kRotationBytes) / bytes));
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "event");
  check(cudaEventCreate(&stop), "event");
  auto call = [&](int i) {
    t.launch(buf.a, buf.weights + (i % copies) * bytes, buf.scales, buf.c, m, n, k,
             buf.workspace, kWorkspaceBytes, stream);
  };
  std::vector<float> single, batch;
  int batch_size = kBatch;
  try {
    for (int i = 0; i < 3; ++i) call(i);  // warm-up: TMA descriptors, smem carve-out
    check(cudaStreamSynchronize(stream), "warm-up");
    for (int r = 0; r < kRepeats * batch_size; ++r) {  // one call on an idle GPU at a time
      check(cudaEventRecord(start, stream), "record");
      call(r);
      check(cudaEventRecord(stop, stream), "record");
      single.push_back(elapsed_us(start, stop));
      if (r == 0) {  // long calls get fewer repeats: about kBudgetUs of calls per timing
        batch_size = std::clamp(int(kBudgetUs / kRepeats / single[0]), 1, kBatch);
      }
    }
    for (int r = 0; r < kRepeats; ++r) {  // back to back: the host may still set the pace
      check(cudaEventRecord(start, stream), "record");
      for (int i = 0; i < batch_size; ++i) call(r * batch_size + i);
      check(cudaEventRecord(stop, stream), "record");
      batch.push_back(elapsed_us(start, stop) / batch_size);
    }
  } catch (std::exception const& e) {
    *error = e.what();
    cudaGetLastError();
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    return false;
  }
  check(cudaGetLastError(), "launch");
  timing->graph_us = graph_time_us(call, batch_size, stream, start, stop, [](int i) { return i; });
  timing->hot_us = graph_time_us(call, batch_size, stream, start, stop, [](int) { return 0; });
  timing->profiler_us = median(single);
  timing->stream_us = median(batch);
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s SHAPES_FILE (lines: m n k)\n", argv[0]);
    return 1;
  }
  std::vector<int> ms, ns, ks;
  FILE* f = std::fopen(argv[1], "r");
  if (!f) {
    std::fprintf(stderr, "cannot read %s\n", argv[1]);
    return 1;
  }
  for (int m, n, k; std::fscanf(f, "%d %d %d", &m, &n, &k) == 3;) {
    ms.push_back(m), ns.push_back(n), ks.push_back(k);
  }
  std::fclose(f);
  int max_mk = 0, max_mn = 0;
  size_t max_nk = 0;
  for (size_t i = 0; i < ms.size(); ++i) {
    max_mk = std::max(max_mk, ms[i] * ks[i]);
    max_mn = std::max(max_mn, ms[i] * ns[i]);
    max_nk = std::max(max_nk, size_t(ns[i]) * ks[i]);
  }
  Buffers buf{};
  buf.weight_bytes = std::max(kRotationBytes, 2 * max_nk);  // INT8: at least two copies
  check(cudaMalloc(&buf.a, size_t(max_mk) * sizeof(half)), "malloc A");
  check(cudaMalloc(&buf.c, size_t(max_mn) * sizeof(half)), "malloc C");
  check(cudaMalloc(&buf.scales, size_t(1) << 20), "malloc scales");
  check(cudaMalloc(&buf.weights, buf.weight_bytes), "malloc weights");
  check(cudaMalloc(&buf.workspace, kWorkspaceBytes), "malloc workspace");
  // Activations and scales: FP16 of magnitude below 1 (mask 0xbbff: exponent field <= 0b01110),
  // random signs and mantissas; weights: random codes.
  fill_random<<<1024, 256>>>(reinterpret_cast<uint32_t*>(buf.a), size_t(max_mk) / 2, 1,
                             0xbbffbbffu);
  fill_random<<<1024, 256>>>(reinterpret_cast<uint32_t*>(buf.scales), (size_t(1) << 20) / 4, 2,
                             0x3bff3bffu);
  fill_random<<<1024, 256>>>(reinterpret_cast<uint32_t*>(buf.weights), buf.weight_bytes / 4, 3,
                             0xffffffffu);
  check(cudaDeviceSynchronize(), "fill");

  cudaDeviceProp prop;
  check(cudaGetDeviceProperties(&prop, 0), "properties");
  int driver = 0, sm_khz = 0;
  cudaDriverGetVersion(&driver);
  cudaDeviceGetAttribute(&sm_khz, cudaDevAttrClockRate, 0);
  std::printf("{\"device\": \"%s\", \"sms\": %d, \"l2_bytes\": %d, \"driver\": %d, "
              "\"max_sm_mhz\": %d, \"batch\": %d, \"repeats\": %d}\n",
              prop.name, prop.multiProcessorCount, prop.l2CacheSize, driver, sm_khz / 1000,
              kBatch, kRepeats);
  cudaStream_t stream;
  check(cudaStreamCreate(&stream), "stream");
  // Shapes outer (shapes.py lists them by M, smallest first): a run cut short by its time limit
  // loses the largest M, where the k-tile question does not sit, not whole tactics.
  for (size_t i = 0; i < ms.size(); ++i) {
    for (Tactic const& t : kTactics) {
      Timing timing;
      std::string error;
      bool ok = time_shape(t, buf, ms[i], ns[i], ks[i], stream, &timing, &error);
      std::printf("{\"tactic\": \"%s\", \"bits\": %d, \"cta_m\": %d, \"cta_n\": %d, "
                  "\"cluster\": \"%dx%dx1\", \"m\": %d, \"n\": %d, \"k\": %d, ",
                  t.name, t.bits, t.cta_m, t.cta_n, t.cluster_m, t.cluster_n, ms[i], ns[i], ks[i]);
      if (ok) {
        std::printf("\"profiler_us\": %.3f, \"stream_us\": %.3f, \"graph_us\": %.3f, "
                    "\"hot_us\": %.3f}\n",
                    timing.profiler_us, timing.stream_us, timing.graph_us, timing.hot_us);
      } else {
        std::replace(error.begin(), error.end(), '"', '\'');  // a JSON string
        std::replace(error.begin(), error.end(), '\\', '/');
        std::replace(error.begin(), error.end(), '\n', ' ');
        std::printf("\"error\": \"%s\"}\n", error.substr(0, 120).c_str());
      }
      std::fflush(stdout);
    }
  }
  return 0;
}
