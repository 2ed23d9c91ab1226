#!/usr/bin/env bash
# Builds tools/device's benchmarks for sm_90a here (no GPU needed) into $BUILD (default
# .device-build/, which .gitignore ignores); the device machine runs them (tools/device/run.sh,
# carrying .device-build). Sources, as pinned commits of the mirrors that `fetch` brings:
#   github:flashinfer-ai/flashinfer  csrc/nv_internal: TensorRT-LLM's sm90 fpA_intB launcher and
#                                     collective as flashinfer vendors them
#   github:NVIDIA/cutlass            include/, tools/util/include/ (flashinfer's submodule pin)
# Usage: tools/device/build.sh [-j JOBS]   (about 25 minutes cold on 2 cores; 5 GB of memory per compile)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-$repo/.device-build}
MIRRORS=${MIRRORS:-/work/.mirror}
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
FLASHINFER_COMMIT=fb28d7242b3506a2348265962041acc1fb56cca4
CUTLASS_COMMIT=b46b16d003484063bca4ed365e44095c4c6ed633  # v4.4.0-30, flashinfer's 3rdparty/cutlass
JOBS=2
[[ "${1:-}" == "-j" ]] && JOBS=$2

src=$BUILD/src
mkdir -p "$src/flashinfer" "$src/cutlass" "$src/stub" "$BUILD/obj" "$BUILD/bin"
unpack() {  # unpack MIRROR COMMIT DEST PATH...
  local git_dir=$MIRRORS/$1/repo commit=$2 dest=$3; shift 3
  git --git-dir="$git_dir" cat-file -e "$commit^{commit}" 2>/dev/null || {
    echo "build.sh: $1 lacks commit $commit: run the fetch tool on github:${1/+//}" >&2; exit 1; }
  [[ -f $dest/.commit && $(cat "$dest/.commit") == "$commit" ]] && return
  git --git-dir="$git_dir" archive "$commit" "$@" | tar -x -C "$dest"
  echo "$commit" > "$dest/.commit"
}
unpack flashinfer-ai+flashinfer $FLASHINFER_COMMIT "$src/flashinfer" csrc/nv_internal
unpack NVIDIA+cutlass $CUTLASS_COMMIT "$src/cutlass" include tools/util/include
# cudaUtils.h includes cuBLAS's headers for one enum, cublasStatus_t; none is installed here.
printf '#pragma once\n#include "cublas_v2.h"\n' > "$src/stub/cublasLt.h"
cat > "$src/stub/cublas_v2.h" <<'STUB'
#pragma once
typedef enum { CUBLAS_STATUS_SUCCESS = 0, CUBLAS_STATUS_NOT_INITIALIZED = 1,
  CUBLAS_STATUS_ALLOC_FAILED = 3, CUBLAS_STATUS_INVALID_VALUE = 7, CUBLAS_STATUS_ARCH_MISMATCH = 8,
  CUBLAS_STATUS_MAPPING_ERROR = 11, CUBLAS_STATUS_EXECUTION_FAILED = 13,
  CUBLAS_STATUS_INTERNAL_ERROR = 14, CUBLAS_STATUS_NOT_SUPPORTED = 15,
  CUBLAS_STATUS_LICENSE_ERROR = 16 } cublasStatus_t;
STUB

nv=$src/flashinfer/csrc/nv_internal
flags=(-std=c++17 --expt-relaxed-constexpr -O3 -DNDEBUG -DCOMPILE_HOPPER_TMA_GEMMS -DENABLE_BF16
       -DENABLE_FP8 -gencode arch=compute_90a,code=sm_90a -I"$src/stub" -I"$nv" -I"$nv/include"
       -I"$nv/tensorrt_llm/cutlass_extensions/include" -I"$src/cutlass/include"
       -I"$src/cutlass/tools/util/include")
tactic_src=$here/rs_gemm_tactic.cu
# The tactic list lives in rs_gemm_tactics.h (RS_TACTICS); read it back from there.
mapfile -t tactics < <(grep -o 'X(i[48]_[0-9x_c]*, [a-z:_0-9]*, [0-9]*, [0-9]*, [12], [12])' \
                       "$here/rs_gemm_tactics.h" \
                       | sed 's/X(//; s/)//; s/,//g')
compile() {  # compile NAME WTYPE CTA_M CTA_N CLUSTER_M CLUSTER_N
  local out=$BUILD/obj/$1.o
  [[ -f $out && $out -nt $tactic_src && $out -nt $here/rs_gemm_tactics.h ]] && return
  "$NVCC" "${flags[@]}" -DRS_TACTIC="$1" -DRS_WTYPE="$2" -DRS_CTA_M="$3" -DRS_CTA_N="$4" \
    -DRS_CLUSTER_M="$5" -DRS_CLUSTER_N="$6" -c "$tactic_src" -o "$out.tmp" && mv "$out.tmp" "$out"
}
running=0
for t in "${tactics[@]}"; do
  compile $t &
  if (( ++running >= JOBS )); then wait -n; running=$((running - 1)); fi
done
wait
objects=()
for t in "${tactics[@]}"; do
  objects+=("$BUILD/obj/${t%% *}.o")
  [[ -f ${objects[-1]} ]] || { echo "build.sh: tactic ${t%% *} did not compile" >&2; exit 1; }
done
"$NVCC" "${flags[@]}" -c "$here/rs_gemm_bench.cu" -o "$BUILD/obj/main.o"
for common in logger tllmException stringUtils; do  # the launcher's logging and exceptions
  "$NVCC" "${flags[@]}" -x cu -c "$nv/cpp/common/$common.cpp" -o "$BUILD/obj/$common.o"
  objects+=("$BUILD/obj/$common.o")
done
"$NVCC" -gencode arch=compute_90a,code=sm_90a "${objects[@]}" "$BUILD/obj/main.o" \
  -o "$BUILD/bin/rs_gemm_bench"
echo "built $BUILD/bin/rs_gemm_bench (${#tactics[@]} tactics)"

python3 "$here/gen_wgmma_chain.py" > "$BUILD/wgmma_chain.cu"
"$NVCC" -std=c++17 -O3 -gencode arch=compute_90a,code=sm_90a -diag-suppress 550 \
  "$BUILD/wgmma_chain.cu" -o "$BUILD/bin/wgmma_chain"
echo "built $BUILD/bin/wgmma_chain"

"$NVCC" -std=c++17 -O3 -gencode arch=compute_90a,code=sm_90a --expt-relaxed-constexpr \
  -I"$src/cutlass/include" "$here/tma_pipeline.cu" -o "$BUILD/bin/tma_pipeline"
echo "built $BUILD/bin/tma_pipeline"
