#!/bin/bash
# Runs the CUDA checks on a machine with an NVIDIA GPU and no network (a lent device machine):
# the CUDA test files against the real driver (libcuda.so.1, not the simulator), the user-kernel
# examples (examples/saxpy_cuda.ts through NVRTC when one is found; the PTX path is in
# tests/cuda_kernel_api_test.ts), the CUDA benchmarks with the real driver, and the tuned matmul
# at 4096 on CUDA and on WebGPU through Vulkan (bench/_device_matmul.ts, checked against the CPU),
# then writes a summary to $OUT/device_summary.txt (or .tmp/device_summary.txt) with every log
# beside it (8 files: the device tool brings no more back). Each step has a time limit (STEP_S,
# default 240 s), so a hang costs one step.
#
# Prepare here (with network): bash ../shared/tools/prepare_device.sh (Deno and the npm cache in
# .device/), then bash tools/device_run.sh --pack-nvrtc (NVRTC from .tmp/nvrtc, fetched by
# tools/fetch_nvrtc.sh, packed into .device/nvrtc.tar.xz: ~17 MiB; the lent H100/H200 image has
# CUDA 13's NVRTC in /usr/local/cuda, found first), then bash tools/device_run.sh --pack-gl (the
# Vulkan loader and libglvnd's Debian packages into .device/gl: the image has NVIDIA's Vulkan ICD
# but no loader, and without libGLdispatch the ICD finds no device), then on the device (the run
# tool, carry [".device"]):
#   bash .device/unpack.sh && export PATH=/tmp/dev:$PATH DENO_DIR=/tmp/dev/deno_dir &&
#   bash tools/device_run.sh
# A fault on a real device ends the process's CUDA context: the NVRTC client tests run on the real
# driver one file per process (GPUCOMPUTE_TEST_CUDA_LIBRARY), 8 at a time; so do the WebGPU test
# files, through Vulkan (TAP, failures with their messages in device_webgpu_tests.log).
# NVRTC comes from GPUCOMPUTE_NVRTC_LIBRARY, the toolkit's (/usr/local/cuda*/lib64), or the
# carried one; without any, the CUDA C example and CUDA's tuned matmul are skipped and say so.
set -u
tap_summary() { # tap_summary LOG: "=== file ok=N notok=N steps_notok=N rc=N", then each "not ok"
  sed 's/\x1b\[[0-9;]*m//g; s/\\u001b\[[0-9;]*m//g' "$1" | awk -v name="$(basename "$1" .log)" '
    /^ok / { ok++ }
    /^not ok / { bad++ }
    /^ +not ok / { steps++ }
    /^# rc=/ { rc = substr($0, 6) }
    /^ *not ok / { out = out substr($0, 1, 500) "\n"; keep = 1; next }
    keep == 1 && /^ *---$/ { keep = 2; next }
    keep == 1 { keep = 0 }
    keep == 2 && /^ *\.\.\.$/ { keep = 0; next }
    keep == 2 { out = out "    " substr($0, 1, 3000) "\n" }
    END { printf "=== %s ok=%d notok=%d steps_notok=%d rc=%s%s\n%s", name, ok, bad, steps, rc,
      rc == 124 ? " (timed out: the counts are of the tests that finished)" : "", out }'
}
# tools/device_run.sh --tap-summary LOG...: the summary of per-file TAP logs (as the WebGPU step
# writes it), to read logs brought back by hand.
if [ "${1:-}" = "--tap-summary" ]; then
  shift
  for log in "$@"; do tap_summary "$log"; done
  exit 0
fi
if [ "${1:-}" = "--pack-nvrtc" ]; then
  cd "$(dirname "$0")/.."
  lib=$(cut -d' ' -f4 .tmp/nvrtc/STATUS 2>/dev/null)
  [ -n "$lib" ] && [ -d "$lib" ] || { echo "no NVRTC in .tmp/nvrtc: run sh tools/fetch_nvrtc.sh" >&2; exit 1; }
  mkdir -p .device
  tar -C "$lib" -cf - . | xz -T2 -6 -c > .device/nvrtc.tar.xz
  echo ".device: $(du -sb .device | cut -f1) bytes (the carry limit is 67108864 with the tree)"
  exit 0
fi
if [ "${1:-}" = "--pack-gl" ]; then
  cd "$(dirname "$0")/.."
  mkdir -p .device/gl /tmp/amd64/partial
  o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64'
  # shellcheck disable=SC2086
  apt-get $o update >/dev/null && (cd .device/gl && apt-get $o download libvulkan1 libglvnd0 \
    libegl1 libgl1 libglx0 libgles2 libopengl0 >/dev/null 2>&1)
  ls .device/gl
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

if ! ldconfig -p 2>/dev/null | grep -q libvulkan.so.1 && [ -d .device/gl ]; then
  for deb in .device/gl/*.deb; do dpkg -x "$deb" / 2>/dev/null; done
  ldconfig
  note "vulkan: loader unpacked from .device/gl"
fi
mkdir -p /tmp/dev && sh tests/fixtures/cuda_sim/build.sh > /tmp/dev/sim_build.log 2>&1 || note "simulator build failed"
# WEBGPU_ONLY=1: only the WebGPU test files (a rerun of them on a device costs less).
if [ -z "${WEBGPU_ONLY:-}" ]; then
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
  # The NVRTC client tests (helpers, primitives, user kernels) on the real driver, a process per
  # file (a fault ends a real context for the whole process); failures summarized in one log.
  if [ -n "${GPUCOMPUTE_NVRTC_LIBRARY:-}" ]; then
    start=$(date +%s)
    mkdir -p /tmp/dev/real_logs
    # shellcheck disable=SC2016
    grep -l simulatedCudaClient tests/cuda_*_test.ts | GPUCOMPUTE_TEST_CUDA_LIBRARY=$GPUCOMPUTE_CUDA_LIBRARY \
      xargs -P 8 -I{} sh -c 'timeout 90 deno test '"$CUDA_FLAGS"' {} > /tmp/dev/real_logs/$(basename {}).log 2>&1'
    for log in /tmp/dev/real_logs/*.log; do
      echo "=== $(basename "$log" .log) $(sed 's/\x1b\[[0-9;]*m//g' "$log" | grep -E '^(ok|FAILED) \|')"
      sed 's/\x1b\[[0-9;]*m//g' "$log" | sed -n '/^ ERRORS/,/^ FAILURES/p' | grep -v '^    at ' | head -40
    done > "$out/device_cuda_real_files.log"
    note "cuda_real_files: $(($(date +%s) - start))s $(grep -c '^=== .* ok |' "$out/device_cuda_real_files.log") files ok, $(grep -c '^=== .* FAILED |' "$out/device_cuda_real_files.log") failed"
  fi
fi
# WebGPU's tests on the GPU through Vulkan (the default adapter), with the CI's permissions, one
# process per file, 8 at a time, each for at most WEBGPU_FILE_S (default 150) s (WEBGPU_TESTS: the
# files, default every WebGPU test file). On NVIDIA's driver `deno test --parallel` over every file
# in one process had failures that one process per file did not (docs/known_issues.md), and its
# timeout lost every error. TAP prints each result as it comes (a step's "not ok" indented under
# its test), so a file cut by its timeout still tells what failed before; the summary log has, per
# file, its counts and exit status, then every "not ok" (tests and steps) with its message.
# --no-check: the types are checked here and by CI; 8 processes need not check them again.
COMMON=$(grep '^COMMON=' tools/run_tests.sh | sed 's/^COMMON="//; s/"$//')
start=$(date +%s)
rm -rf /tmp/dev/webgpu_logs && mkdir -p /tmp/dev/webgpu_logs
export COMMON WEBGPU_FILE_S=${WEBGPU_FILE_S:-150}
# (LD_LIBRARY_PATH unset: Deno refuses a test's subprocess spawned with it without --allow-run)
# shellcheck disable=SC2016,SC2086
ls ${WEBGPU_TESTS:-tests/*_test.ts} | grep -vE 'cuda_|browser' |
  env -u LD_LIBRARY_PATH DENO_WEBGPU_BACKEND=vulkan xargs -P 8 -I{} sh -c 'log=/tmp/dev/webgpu_logs/$(basename {} _test.ts).log;
    timeout "$WEBGPU_FILE_S" deno test $COMMON --no-check --reporter=tap {} > "$log" 2>&1; echo "# rc=$?" >> "$log"'
for log in /tmp/dev/webgpu_logs/*.log; do tap_summary "$log"; done > "$out/device_webgpu_tests.log"
files=$(grep -c '^=== ' "$out/device_webgpu_tests.log")
failed=$(grep -c '^=== .* rc=[1-9]' "$out/device_webgpu_tests.log")
note "webgpu_tests: $(($(date +%s) - start))s $((files - failed)) files ok, $failed failed (per file, ${WEBGPU_FILE_S} s each)"
grep '^=== .* rc=[1-9]' "$out/device_webgpu_tests.log" | tee -a "$summary"
[ "$failed" -eq 0 ] || status=1
note "status: $([ $status -eq 0 ] && echo ok || echo FAILED)"
exit $status
