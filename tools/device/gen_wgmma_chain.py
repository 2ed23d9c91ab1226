"""Writes wgmma_chain.cu (to stdout): clock counts of Hopper's wgmma issued the way TensorRT-LLM's
sm90 weight-only main loop issues it, to settle what ``tools/rs_ktile_candidates.py`` cannot: the
time a 64-deep k-tile of four m64nNk16 wgmmas takes at small N. Issue 30's open question is
whether dependent wgmmas (all four k-blocks accumulate into one accumulator, as the compiled loop
does: ``HGMMA ... R24, ..., R24``) issue no faster than some interval at N = 16-128 whatever the
weight width; no public source gives that interval.

Every kernel runs once on one SM and once on every SM (one CTA an SM), ``warpgroups``
warpgroups each running ``ITERS`` k-tiles of four k-blocks; per k-block ``wgmma.fence``, one
wgmma, ``commit_group``, ``wait_group W`` (the loop's ``warpgroup_wait<K_BLOCK_MAX -
type_factor / 2>``: 3 for INT8, 2 for INT4; 0 = a serial chain). Variants:
  - ``ss`` / ``rs``: both operands from shared memory, or A from registers (the weight-only loop);
  - ``chains``: 1 (every k-block into the same accumulator) or 4 (independent accumulators);
  - ``convert``: ``raw``, or after each k-block's wait the next k-block's A registers rebuilt
    from words loaded from shared memory one k-block earlier with the loop's per-thread INT8 or
    INT4 conversion (``CONVERSIONS``: ``RS_DEQUANT``'s counts), and the words for the k-block
    after it loaded: the steady state of the compiled loop without its k-tile boundary (mbarrier
    waits, scale loads), so each fence follows fresh register writes.
Output: one JSON line per kernel, with clocks per wgmma (thread 0 of warpgroup 0, clock64 around
the loop, the median over CTAs).

Usage: python tools/device/gen_wgmma_chain.py > BUILD/wgmma_chain.cu (tools/device/build.sh).
"""

from __future__ import annotations

import itertools

N_VALUES = (8, 16, 32, 64, 128, 256)
ITERS = 256  # k-tiles per warpgroup: 1024 wgmmas, enough to hide the loop's ends

# After each k-block's wait: the next k-block's A registers from the words loaded one k-block
# earlier, then the LDS of the k-block after it (``RS_DEQUANT``'s per-k-block counts a thread).
CONVERSIONS = {
    # INT8: per A register a PRMT (with 0x64: 1024 + code), an HADD2 (- 1152: signed), an HMUL2
    "int8": """
      for (int h = 0; h < 2; ++h) {
        __half2 lo = __hsub2(as_half2(__byte_perm(words[h], 0x64646464u, 0x5250)), i8_bias);
        __half2 hi = __hsub2(as_half2(__byte_perm(words[h], 0x64646464u, 0x5351)), i8_bias);
        a[(kb + 1) % 4][2 * h] = as_u32(__hmul2(lo, scale));
        a[(kb + 1) % 4][2 * h + 1] = as_u32(__hmul2(hi, scale));
      }
      words[0] = lds[(threadIdx.x + kb * 256) % 2048];
      words[1] = lds[(threadIdx.x + kb * 256 + 128) % 2048];""",
    # INT4: one word for the four registers: a SHF, per register a LOP3 ((w & mask) | 0x6400),
    # an HADD2 (low nibbles, - 1032) or an HFMA2 (high nibbles, / 16 - 72), an HMUL2
    "int4": """
      for (int h = 0; h < 2; ++h) {
        uint32_t const w = words[0] >> (8 * h);
        __half2 lo = __hsub2(as_half2(and_or(w, 0x000f000fu, 0x64006400u)), i4_bias);
        __half2 hi = __hfma2(as_half2(and_or(w, 0x00f000f0u, 0x64006400u)), sixteenth, i4_high);
        a[(kb + 1) % 4][2 * h] = as_u32(__hmul2(lo, scale));
        a[(kb + 1) % 4][2 * h + 1] = as_u32(__hmul2(hi, scale));
      }
      words[0] = lds[(threadIdx.x + kb * 256) % 2048];""",
}


def mma_function(n: int, rs: bool) -> str:
    """A device function issuing one m64nNk16 F32 += F16 x F16 wgmma (A in registers or smem)."""
    regs = n // 2  # accumulator registers per thread: 64 x n floats over 128 threads
    d = ", ".join(f"%{i}" for i in range(regs))
    a_regs = ", ".join(f"%{regs + i}" for i in range(4))
    a_ops = f"{{{a_regs}}}" if rs else f"%{regs}"
    b_op = f"%{regs + 4}" if rs else f"%{regs + 1}"
    pred = f"%{regs + 5}" if rs else f"%{regs + 2}"
    imm = "1, 1, 0" if rs else "1, 1, 0, 0"  # scale-a, scale-b, (trans-a,) trans-b
    a_in = ('"r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), ' if rs else '"l"(desc_a), ')
    outs = ", ".join(f'"+f"(d[{i}])' for i in range(regs))
    name = f"mma_{'rs' if rs else 'ss'}_n{n}"
    return f"""
__device__ __forceinline__ void {name}(float (&d)[{regs}], uint32_t const (&a)[4],
                                      uint64_t desc_a, uint64_t desc_b, int scale_d) {{
  (void)a; (void)desc_a;
  asm volatile("{{\\n.reg .pred p;\\nsetp.ne.b32 p, {pred}, 0;\\n"
               "wgmma.mma_async.sync.aligned.m64n{n}k16.f32.f16.f16 "
               "{{{d}}}, {a_ops}, {b_op}, p, {imm};\\n}}\\n"
               : {outs}
               : {a_in}"l"(desc_b), "r"(scale_d));
}}"""


def variants() -> list[dict]:
    """The kernels: (n, rs, wait, chains, convert, warpgroups)."""
    out = []
    for n, rs, wait in itertools.product(N_VALUES, (True, False), (0, 1, 2, 3)):
        out.append(dict(n=n, rs=rs, wait=wait, chains=1, convert="raw", warpgroups=1))
    for n, wait in itertools.product((16, 32, 64, 128), (2, 3)):
        out.append(dict(n=n, rs=True, wait=wait, chains=1, convert="raw", warpgroups=2))
        for convert, groups in itertools.product(CONVERSIONS, (1, 2)):
            out.append(dict(n=n, rs=True, wait=wait, chains=1, convert=convert,
                            warpgroups=groups))
    for n, wait in itertools.product((16, 32, 64), (0, 3)):
        out.append(dict(n=n, rs=True, wait=wait, chains=4, convert="raw", warpgroups=1))
    return out


def kernel_name(v: dict) -> str:
    return (f"chain_{'rs' if v['rs'] else 'ss'}_n{v['n']}_w{v['wait']}_c{v['chains']}"
            f"_{v['convert']}_g{v['warpgroups']}")


def kernel(v: dict) -> str:
    n, regs, chains = v["n"], v["n"] // 2, v["chains"]
    mma = f"mma_{'rs' if v['rs'] else 'ss'}_n{n}"
    convert = CONVERSIONS.get(v["convert"], "")
    return f"""
__global__ void __launch_bounds__({128 * v['warpgroups']}, 1)
{kernel_name(v)}(long long* cycles, float* sink) {{
  extern __shared__ __align__(1024) uint8_t smem[];
  uint32_t const* lds = reinterpret_cast<uint32_t const*>(smem + 32768);
  for (int i = threadIdx.x; i < SMEM_BYTES / 4; i += blockDim.x)  // FP16 pairs below 1, random
    reinterpret_cast<uint32_t*>(smem)[i] = (uint32_t(i) * 0x9e3779b9u) & 0x3bff3bffu;
  float acc[{chains}][{regs}];
  for (int c = 0; c < {chains}; ++c)
    for (int i = 0; i < {regs}; ++i) acc[c][i] = 0.f;
  uint32_t a[4][4];
  for (int q = 0; q < 4; ++q)
    for (int i = 0; i < 4; ++i) a[q][i] = 0x3c003c00u ^ (threadIdx.x * 4 + q * 16 + i);
  __half2 const scale = __float2half2_rn(0.01f), i8_bias = __float2half2_rn(1152.f);
  __half2 const i4_bias = __float2half2_rn(1032.f), sixteenth = __float2half2_rn(0.0625f);
  __half2 const i4_high = __float2half2_rn(-72.f);
  uint32_t words[2] = {{lds[threadIdx.x % 2048], lds[(threadIdx.x + 128) % 2048]}};
  (void)scale; (void)i8_bias; (void)i4_bias; (void)sixteenth; (void)i4_high; (void)words;
  uint64_t const desc_a = smem_desc(smem), desc_b = smem_desc(smem + 16384);
  __syncthreads();
  long long const start = clock64();
  for (int it = 0; it < {ITERS}; ++it) {{
#pragma unroll
    for (int kb = 0; kb < 4; ++kb) {{
      asm volatile("wgmma.fence.sync.aligned;\\n" ::: "memory");
      {mma}(acc[kb % {chains}], a[kb], desc_a, desc_b, 1);
      asm volatile("wgmma.commit_group.sync.aligned;\\n" ::: "memory");
      asm volatile("wgmma.wait_group.sync.aligned %0;\\n" ::"n"({v['wait']}) : "memory");{convert}
    }}
  }}
  asm volatile("wgmma.wait_group.sync.aligned 0;\\n" ::: "memory");
  long long const stop = clock64();
  float total = 0.f;
  for (int c = 0; c < {chains}; ++c)
    for (int i = 0; i < {regs}; ++i) total += acc[c][i];
  sink[blockIdx.x * blockDim.x + threadIdx.x] = total;
  if (threadIdx.x == 0) cycles[blockIdx.x] = stop - start;
}}"""


HEADER = r"""// Generated by tools/device/gen_wgmma_chain.py: do not edit.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

constexpr int SMEM_BYTES = 40960;  // A and B operands (32 KB), then the conversion's words

__device__ __forceinline__ __half2 as_half2(uint32_t x) { __half2 h; memcpy(&h, &x, 4); return h; }
__device__ __forceinline__ uint32_t as_u32(__half2 h) { uint32_t x; memcpy(&x, &h, 4); return x; }
// (a & b) | c in one LOP3 (0xea), the constants in registers, as the loop's conversion does
__device__ __forceinline__ uint32_t and_or(uint32_t a, uint32_t b, uint32_t c) {
  uint32_t r;
  asm volatile("lop3.b32 %0, %1, %2, %3, 0xea;\n" : "=r"(r) : "r"(a), "r"(b), "r"(c));
  return r;
}

// A shared-memory matrix descriptor, no swizzle (the data are garbage: only the timing counts):
// start address, leading-dimension byte offset 128 and stride byte offset 256, each >> 4.
__device__ __forceinline__ uint64_t smem_desc(void const* p) {
  uint32_t const addr = static_cast<uint32_t>(__cvta_generic_to_shared(p));
  return uint64_t((addr >> 4) & 0x3fff) | (uint64_t(128 >> 4) << 16) | (uint64_t(256 >> 4) << 32);
}
"""

MAIN = r"""
struct Kernel {
  char const* name;
  void (*fn)(long long*, float*);
  int n, rs, wait, chains;
  char const* convert;
  int warpgroups;
};
Kernel const kKernels[] = {%(table)s};

void check(cudaError_t status, char const* what) {
  if (status != cudaSuccess) {
    std::fprintf(stderr, "%%s: %%s\n", what, cudaGetErrorString(status));
    std::exit(2);
  }
}

int main() {
  cudaDeviceProp prop;
  check(cudaGetDeviceProperties(&prop, 0), "properties");
  int const sms = prop.multiProcessorCount, smem_bytes = SMEM_BYTES;
  long long* cycles;
  float* sink;
  check(cudaMalloc(&cycles, sms * sizeof(long long)), "malloc");
  check(cudaMalloc(&sink, size_t(sms) * 384 * sizeof(float)), "malloc");
  std::printf("{\"device\": \"%%s\", \"sms\": %%d, \"iters\": %(iters)d, \"wgmmas_per_iter\": 4}\n",
              prop.name, sms);
  for (Kernel const& k : kKernels) {
    check(cudaFuncSetAttribute(k.fn, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_bytes),
          "smem");
    for (int ctas : {1, sms}) {
      std::vector<long long> host(ctas);
      for (int rep = 0; rep < 2; ++rep) {  // the first launch warms the clock and the code
        k.fn<<<ctas, 128 * k.warpgroups, smem_bytes>>>(cycles, sink);
        check(cudaDeviceSynchronize(), k.name);
      }
      check(cudaMemcpy(host.data(), cycles, ctas * sizeof(long long), cudaMemcpyDeviceToHost),
            "copy");
      std::sort(host.begin(), host.end());
      double const per_wgmma = double(host[ctas / 2]) / (%(iters)d * 4);
      std::printf("{\"kernel\": \"%%s\", \"n\": %%d, \"mode\": \"%%s\", \"wait\": %%d, "
                  "\"chains\": %%d, \"convert\": \"%%s\", \"warpgroups\": %%d, \"ctas\": %%d, "
                  "\"clocks_per_wgmma\": %%.2f}\n",
                  k.name, k.n, k.rs ? "rs" : "ss", k.wait, k.chains, k.convert,
                  k.warpgroups, ctas, per_wgmma);
      std::fflush(stdout);
    }
  }
  return 0;
}
"""


def main() -> None:
    parts = [HEADER]
    parts += [mma_function(n, rs) for n, rs in itertools.product(N_VALUES, (True, False))]
    table = []
    for v in variants():
        parts.append(kernel(v))
        table.append(f'{{"{kernel_name(v)}", {kernel_name(v)}, {v["n"]}, {int(v["rs"])}, '
                     f'{v["wait"]}, {v["chains"]}, "{v["convert"]}", {v["warpgroups"]}}}')
    parts.append(MAIN % {"table": ",\n    ".join(table), "iters": ITERS})
    print("\n".join(parts))


if __name__ == "__main__":
    main()
