#!/usr/bin/env bash
# Issue 30's device check, one command on the device machine (about 2-4 minutes on an H100, at
# most 7):
#   run(command="bash tools/device/run.sh", carry=[".device-build/bin"], timeout_s=480)
# after tools/device/build.sh here. Writes to $OUT: gpu.csv (name, driver, clocks, power at the
# start and the end), clocks.csv (SM clock and power every 100 ms while the benchmarks run),
# wgmma_chain.jsonl, tma_pipeline.jsonl and rs_gemm.jsonl (the benchmarks' JSON lines), and each
# one's stderr: 8 files, the most a call brings back.
set -uo pipefail
out=${OUT:?"run on the device machine, where OUT names the folder that comes back"}
bin=${BIN:-.device-build/bin}
query=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.draw,power.limit,temperature.gpu
nvidia-smi --query-gpu=timestamp,$query --format=csv > "$out/gpu.csv"
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw --format=csv,noheader -lms 100 \
  > "$out/clocks.csv" &
sampler=$!
python3 tools/device/shapes.py > /tmp/rs_shapes.txt
timeout 60 "$bin/wgmma_chain" > "$out/wgmma_chain.jsonl" 2> "$out/wgmma_chain.err"
echo "wgmma_chain: rc $?, $(wc -l < "$out/wgmma_chain.jsonl") lines"
timeout 60 "$bin/tma_pipeline" > "$out/tma_pipeline.jsonl" 2> "$out/tma_pipeline.err"
echo "tma_pipeline: rc $?, $(wc -l < "$out/tma_pipeline.jsonl") lines"
timeout 300 "$bin/rs_gemm_bench" /tmp/rs_shapes.txt > "$out/rs_gemm.jsonl" 2> "$out/rs_gemm.err"
echo "rs_gemm_bench: rc $?, $(wc -l < "$out/rs_gemm.jsonl") lines"
kill "$sampler"
nvidia-smi --query-gpu=timestamp,$query --format=csv,noheader >> "$out/gpu.csv"
tail -n 3 "$out/wgmma_chain.err" "$out/tma_pipeline.err" "$out/rs_gemm.err"
