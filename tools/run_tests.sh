#!/bin/sh
# Runs the test suite, one `deno test` process per test file, with the narrowest permissions each
# area needs (only the CUDA tests get --allow-ffi). One process per file because processes that
# had created many WebGPU devices on Mesa's CPU fallback sometimes aborted at exit, in native
# teardown, after every test had passed ("double free or corruption"; about 1 run in 5 when all
# files shared one process, through GL or Vulkan alike); a file's own process exits before that.
# Prints "N passed, N failed" (files) at the end and exits non-zero if any file failed.
set -u
cd "$(dirname "$0")/.."
sh tests/fixtures/cuda_sim/build.sh || exit 1

COMMON="--unstable-webgpu --allow-env=GPUCOMPUTE_CACHE_DIR --allow-read=.tmp,tests/fixtures,sync,runtime/core,examples --allow-write=.tmp --allow-run=deno"
CUDA="--unstable-webgpu --allow-ffi --allow-env=GPUCOMPUTE_CUDA_LIBRARY,GPUCOMPUTE_NVRTC_LIBRARY,CUDA_SIM_NO_DEVICE,CUDA_SIM_TOTAL_MEM,CUDA_SIM_OOM_AT,CUDA_SIM_LAUNCH_FAIL_AT,CUDA_SIM_HANG_RECORD_AT,CUDA_SIM_NO_MEMPOOLS --allow-read=runtime/server/cuda/kernels,tests/fixtures --allow-run=nvcc"

passed=0
failed=0
failures=""
for file in tests/*_test.ts; do
  case "$file" in
    tests/cuda_*) flags=$CUDA ;;
    *) flags=$COMMON ;;
  esac
  # shellcheck disable=SC2086
  if deno test $flags "$file"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    failures="$failures $file"
  fi
done
[ -z "$failures" ] || echo "Failed test files:$failures"
echo "test files: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
