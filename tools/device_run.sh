#!/bin/bash
# Runs the CUDA checks on a machine with an NVIDIA GPU and no network (a lent device machine):
# the CUDA test files against the real driver (libcuda.so.1, not the simulator), the user-kernel
# examples (examples/saxpy_cuda.ts through NVRTC when one is found; the PTX path is in
# tests/cuda_kernel_api_test.ts), the CUDA benchmarks with the real driver, and the tuned matmul
# at 4096 on CUDA and on WebGPU through Vulkan (bench/_device_matmul.ts, checked against the CPU),
# then writes a summary to $OUT/device_summary.txt (or .tmp/device_summary.txt) with every log
# beside it. Each step has a time limit (STEP_S, default 240 s), so a hang costs one step.
#
# Prepare here (with network): bash ../shared/tools/prepare_device.sh (Deno and the npm cache in
# .device/), then bash tools/device_run.sh --pack-nvrtc (NVRTC from .tmp/nvrtc, fetched by
# tools/fetch_nvrtc.sh, packed into .device/nvrtc.tar.xz: ~17 MiB), then on the device (the run
# tool, carry [".device"]):
#   bash .device/unpack.sh && export PATH=/tmp/dev:$PATH DENO_DIR=/tmp/dev/deno_dir &&
#   bash tools/device_run.sh
# NVRTC comes from GPUCOMPUTE_NVRTC_LIBRARY, the toolkit's (/usr/local/cuda*/lib64), or the
# carried one; without any, the CUDA C example and CUDA's tuned matmul are skipped and say so.
set -u
if [ "${1:-}" = "--pack-nvrtc" ]; then
  cd "$(dirname "$0")/.."
  lib=$(cut -d' ' -f4 .tmp/nvrtc/STATUS 2>/dev/null)
  [ -n "$lib" ] && [ -d "$lib" ] || { echo "no NVRTC in .tmp/nvrtc: run sh tools/fetch_nvrtc.sh" >&2; exit 1; }
  mkdir -p .device
  tar -C "$lib" -cf - . | xz -T2 -6 -c > .device/nvrtc.tar.xz
  echo ".device: $(du -sb .device | cut -f1) bytes (the carry limit is 67108864 with the tree)"
  exit 0
fi
cd "$(dirname "$0")/.."
out=${OUT:-.tmp}
mkdir -p "$out"
summary="$out/device_summary.txt"
: > "$summary"
note() { echo "$*" | tee -a "$summary"; }

note "device run $(date -u +%FT%TZ)"
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total \
  --format=csv,noheader 2>&1 | sed 's/^/gpu: /' | tee -a "$summary"
driver=$(ldconfig -p 2>/dev/null | awk '/libcuda\.so\.1 /{print $NF; exit}')
export GPUCOMPUTE_CUDA_LIBRARY=${GPUCOMPUTE_CUDA_LIBRARY:-${driver:-libcuda.so.1}}
note "driver: $GPUCOMPUTE_CUDA_LIBRARY"
if [ -z "${GPUCOMPUTE_NVRTC_LIBRARY:-}" ]; then
  for lib in /usr/local/cuda/lib64/libnvrtc.so* /usr/local/cuda-*/lib64/libnvrtc.so* \
    /usr/lib/x86_64-linux-gnu/libnvrtc.so*; do
    case $lib in *builtins*) continue ;; esac
    [ -f "$lib" ] && { export GPUCOMPUTE_NVRTC_LIBRARY=$lib; break; }
  done
fi
if [ -z "${GPUCOMPUTE_NVRTC_LIBRARY:-}" ] && [ -f .device/nvrtc.tar.xz ]; then
  mkdir -p /tmp/dev/nvrtc && xz -dc .device/nvrtc.tar.xz | tar -C /tmp/dev/nvrtc -xf - &&
    export GPUCOMPUTE_NVRTC_LIBRARY=$(ls /tmp/dev/nvrtc/libnvrtc.so.* | grep -v builtins | head -1)
fi
if [ -n "${GPUCOMPUTE_NVRTC_LIBRARY:-}" ]; then
  export LD_LIBRARY_PATH="$(dirname "$GPUCOMPUTE_NVRTC_LIBRARY")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  note "nvrtc: $GPUCOMPUTE_NVRTC_LIBRARY"
else
  note "nvrtc: none found (CUDA C kernels are UNSUPPORTED; the CUDA C example and matmul skipped)"
fi

# The tests that run against whatever driver GPUCOMPUTE_CUDA_LIBRARY names (the others load the
# simulator by path: they check the runtime, not the device).
CUDA_FLAGS="--unstable-webgpu --allow-ffi --allow-env --allow-read --allow-run=nvcc,ptxas"
status=0
began=$(date +%s)
run() { # run NAME COMMAND... (skipped once TOTAL_S, default 520 s, have passed)
  local name=$1; shift
  local log="$out/device_$name.log"
  local start=$(date +%s)
  if [ $((start - began)) -ge "${TOTAL_S:-520}" ]; then
    note "$name: skipped (the run's ${TOTAL_S:-520} s are spent)"; status=1; return
  fi
  timeout "${STEP_S:-240}" "$@" > "$log" 2>&1
  local rc=$?
  local tail=$(sed 's/\x1b\[[0-9;]*m//g' "$log" | grep -E '^(ok|FAILED) \|' | tail -1)
  local line=$(sed 's/\x1b\[[0-9;]*m//g' "$log" | grep -E '^(adapter:|matmul |SAXPY)' | tr '\n' ' ')
  note "$name: rc=$rc $(($(date +%s) - start))s ${tail:-${line:-(no test summary; see $log)}}"
  [ $rc -eq 0 ] || status=1
}

sh tests/fixtures/cuda_sim/build.sh > "$out/device_sim_build.log" 2>&1 || note "simulator build failed"
# Most telling first: a step that hangs costs STEP_S, and the last steps may be skipped.
run real_driver deno test $CUDA_FLAGS tests/cuda_real_test.ts tests/cuda_libcuda_test.ts
if [ -n "${GPUCOMPUTE_NVRTC_LIBRARY:-}" ]; then
  run saxpy_cuda deno run --allow-ffi --allow-env --allow-read examples/saxpy_cuda.ts
  run matmul_cuda deno run -A bench/_device_matmul.ts cuda "${MATMUL_N:-4096}"
fi
# Benchmarks against the real driver (raw driver calls beside each figure).
GPUCOMPUTE_BENCH_CUDA_LIBRARY=$GPUCOMPUTE_CUDA_LIBRARY run cuda_bench \
  deno bench --unstable-webgpu --allow-ffi --allow-env --allow-read bench/cuda_bench.ts
sed 's/\x1b\[[0-9;]*m//g' "$out/device_cuda_bench.log" | grep -E '^\||^benchmark|^[a-z].* (µs|ns|ms)' \
  >> "$summary" 2>/dev/null
# WebGPU on the GPU through Vulkan (the adapter is named in the log).
DENO_WEBGPU_BACKEND=vulkan run matmul_webgpu deno run -A bench/_device_matmul.ts webgpu "${MATMUL_N:-4096}"
# The whole CUDA suite (simulator and real driver where a test asks for it).
run cuda_suite deno test $CUDA_FLAGS $(ls tests/cuda_*_test.ts)
note "status: $([ $status -eq 0 ] && echo ok || echo FAILED)"
exit $status
