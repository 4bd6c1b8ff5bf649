#!/bin/bash
# Runs the CUDA checks on a machine with an NVIDIA GPU and no network (a lent device machine):
# the CUDA test files against the real driver (libcuda.so.1, not the simulator), the user-kernel
# examples (examples/saxpy_cuda.ts through NVRTC when one is found; the PTX path is in
# tests/cuda_kernel_api_test.ts), and the CUDA benchmarks with the real driver, then writes a
# summary to $OUT/device_summary.txt (or .tmp/device_summary.txt) with every log beside it.
#
# Prepare here (with network): bash ../shared/tools/prepare_device.sh (Deno and the npm cache in
# .device/), then on the device (the run tool, carry [".device"]):
#   bash .device/unpack.sh && export PATH=/tmp/dev:$PATH DENO_DIR=/tmp/dev/deno_dir &&
#   bash tools/device_run.sh
# NVRTC is not carried (58 MiB): the script uses the toolkit's (/usr/local/cuda*/lib64) or
# GPUCOMPUTE_NVRTC_LIBRARY; without one, the CUDA C example is skipped and says so.
set -u
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
if [ -n "${GPUCOMPUTE_NVRTC_LIBRARY:-}" ]; then
  export LD_LIBRARY_PATH="$(dirname "$GPUCOMPUTE_NVRTC_LIBRARY")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  note "nvrtc: $GPUCOMPUTE_NVRTC_LIBRARY"
else
  note "nvrtc: none found (CUDA C kernels are UNSUPPORTED; the CUDA C example is skipped)"
fi

# The tests that run against whatever driver GPUCOMPUTE_CUDA_LIBRARY names (the others load the
# simulator by path: they check the runtime, not the device).
CUDA_FLAGS="--unstable-webgpu --allow-ffi --allow-env --allow-read --allow-run=nvcc,ptxas"
status=0
run() { # run NAME COMMAND...
  local name=$1; shift
  local log="$out/device_$name.log"
  local start=$(date +%s)
  "$@" > "$log" 2>&1
  local rc=$?
  local tail=$(sed 's/\x1b\[[0-9;]*m//g' "$log" | grep -E '^(ok|FAILED) \|' | tail -1)
  note "$name: rc=$rc $(($(date +%s) - start))s ${tail:-(no test summary; see $log)}"
  [ $rc -eq 0 ] || status=1
}

sh tests/fixtures/cuda_sim/build.sh > "$out/device_sim_build.log" 2>&1 || note "simulator build failed"
run real_driver deno test $CUDA_FLAGS tests/cuda_real_test.ts tests/cuda_libcuda_test.ts
if [ -n "${GPUCOMPUTE_NVRTC_LIBRARY:-}" ]; then
  run saxpy_cuda deno run --allow-ffi --allow-env --allow-read examples/saxpy_cuda.ts
fi
# The whole CUDA suite (simulator and real driver where a test asks for it).
run cuda_suite deno test $CUDA_FLAGS $(ls tests/cuda_*_test.ts)
# Benchmarks against the real driver (raw driver calls beside each figure).
GPUCOMPUTE_BENCH_CUDA_LIBRARY=$GPUCOMPUTE_CUDA_LIBRARY run cuda_bench \
  deno bench --unstable-webgpu --allow-ffi --allow-env --allow-read bench/cuda_bench.ts
sed 's/\x1b\[[0-9;]*m//g' "$out/device_cuda_bench.log" | grep -E '^\||^benchmark|^[a-z].* (µs|ns|ms)' \
  >> "$summary" 2>/dev/null
note "status: $([ $status -eq 0 ] && echo ok || echo FAILED)"
exit $status
