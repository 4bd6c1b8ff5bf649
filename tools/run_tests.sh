#!/bin/sh
# Runs the test suite with the narrowest permissions each area needs: the CUDA files (tests/cuda_*,
# and tests/qa3_life_cuda_*, which run both backends) get --allow-ffi and the simulated driver's variables, the browser files (tests/browser_*) may run
# Chromium and serve pages on 127.0.0.1, every other file gets the COMMON set.
#
# Where wgpu can keep to Vulkan (a Vulkan driver with an adapter; CI installs Mesa lavapipe), the
# suite runs in four `deno test` processes at once (the non-CUDA area in two halves, CUDA,
# browser) beside one `deno check` of the test files, with DENO_WEBGPU_BACKEND=vulkan. Elsewhere
# each file gets its own process: with wgpu's GL backend enabled, libglvnd's libEGL frees the
# state of the runtime threads that ran test files twice as the process exits ("double free or
# corruption", status 134; docs/known_issues.md), the more often the more files a process ran. A
# file aborted that way after a summary with no failure is run once more; in the grouped mode
# such an abort fails the run, since keeping to Vulkan is what prevents it.
#
# Under CI (CI=true) a run that finds no WebGPU adapter fails instead of skipping the WebGPU tests.
# Ends with the line "N passed, N failed" (tests) and exits non-zero if anything failed.
set -u
cd "$(dirname "$0")/.."
sh tests/fixtures/cuda_sim/build.sh || exit 1

# NVIDIA's NVRTC where tools/fetch_nvrtc.sh unpacked it (.ci/run does): the CUDA tests compile
# CUDA C with it and run the PTX on the simulated driver. Its builtins library is found through
# LD_LIBRARY_PATH (NVRTC dlopens it by name), set for the CUDA processes only: Deno refuses to
# spawn subprocesses while LD_LIBRARY_PATH is set unless --allow-run is unrestricted, and the
# other areas spawn deno and Chromium.
CUDA_ENV=""
if [ -z "${GPUCOMPUTE_NVRTC_LIBRARY:-}" ] && [ -f .tmp/nvrtc/STATUS ] && grep -q '^ok ' .tmp/nvrtc/STATUS; then
  nvrtc_library=$(cut -d' ' -f3 .tmp/nvrtc/STATUS)
  if [ -f "$nvrtc_library" ]; then
    export GPUCOMPUTE_NVRTC_LIBRARY="$nvrtc_library"
    CUDA_ENV="LD_LIBRARY_PATH=$(cut -d' ' -f4 .tmp/nvrtc/STATUS)${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  fi
fi
# The environment of the `deno test` processes started next (`env` with no assignment: none).
RUN_ENV=""
# A process past this many seconds is stopped and fails the run: a test that never settles (or
# a driver call that never returns) must not hold CI until its own limit.
LIMIT=${GPUCOMPUTE_TEST_LIMIT:-900}
if command -v timeout >/dev/null 2>&1; then LIMITED="timeout -k 10 $LIMIT"; else LIMITED=""; fi

COMMON="--unstable-webgpu --allow-env=CI,GPUCOMPUTE_CACHE_DIR,GPUCOMPUTE_TEST_LARGE --allow-read=.tmp,tests/fixtures,sync,runtime/core,examples --allow-write=.tmp --allow-run=deno"
# The browser tests run Chromium (tools/install_browser.sh) through puppeteer-core, which reads the
# environment variables listed here, and serve the pages on 127.0.0.1.
CHROMIUM=/usr/bin/chromium-headless-shell
BROWSER="--unstable-webgpu --allow-env=CI,WS_NO_BUFFER_UTIL,PUPPETEER_TEST_EXPERIMENTAL_CHROME_FEATURES,PUPPETEER_DANGEROUS_NO_SANDBOX,TMPDIR,TMP,TEMP,NODE_V8_COVERAGE --allow-read=.tmp,examples,$CHROMIUM --allow-write=.tmp --allow-run=deno,$CHROMIUM --allow-net=127.0.0.1"
CUDA="--unstable-webgpu --allow-ffi --allow-env=CI,GPUCOMPUTE_CUDA_LIBRARY,GPUCOMPUTE_NVRTC_LIBRARY,CUDA_SIM_NO_DEVICE,CUDA_SIM_TOTAL_MEM,CUDA_SIM_OOM_AT,CUDA_SIM_LAUNCH_FAIL_AT,CUDA_SIM_HANG_RECORD_AT,CUDA_SIM_NO_MEMPOOLS,CUDA_SIM_DEVICES,CUDA_SIM_CC,CUDA_SIM_DRIVER_VERSION,CUDA_SIM_INIT_ERROR,CUDA_SIM_MAX_DELAY_US,CUDA_SIM_PEER,CUDA_SIM_NO_HOST_FUNC,CUDA_SIM_SPIN_LIMIT,CUDA_SIM_BLOCKS_REVERSED,CUDA_SIM_SYNC_ENTRY_DELAY_US --allow-read=runtime/server/cuda/kernels,tests/fixtures,.tmp/libcuda --allow-run=nvcc,ptxas"

LOG=$(mktemp)
STATUS=$(mktemp)
WORK=$(mktemp -d)
trap 'rm -rf "$LOG" "$STATUS" "$WORK"' EXIT
ESC=$(printf '\033')

# Prints the description of the adapter `requestAdapter()` finds with the current environment,
# nothing when there is none. One thread only, so the probe itself cannot hit the exit abort.
probe_adapter() {
  deno eval --unstable-webgpu \
    'const a = await navigator.gpu?.requestAdapter(); if (a) console.log(a.info.description || "?");' \
    2>/dev/null
}

# True when a Vulkan ICD manifest is installed (the loader's system and user locations, or one
# named by the loader's variables).
vulkan_driver() {
  [ -n "${VK_DRIVER_FILES:-}${VK_ICD_FILENAMES:-}" ] && return 0
  for json in /usr/share/vulkan/icd.d/*.json /etc/vulkan/icd.d/*.json \
    /usr/local/share/vulkan/icd.d/*.json "${XDG_DATA_HOME:-${HOME:-}/.local/share}"/vulkan/icd.d/*.json; do
    [ -e "$json" ] && return 0
  done
  return 1
}

# Chooses the mode: "grouped" (one process per area) or "per-file".
mode=per-file
adapter=""
case $(uname -s) in
  Linux)
    if [ -z "${DENO_WEBGPU_BACKEND:-}" ] && vulkan_driver; then
      adapter=$(DENO_WEBGPU_BACKEND=vulkan probe_adapter)
      # Without a Vulkan adapter, forcing Vulkan would only turn the WebGPU tests into skips.
      [ -n "$adapter" ] && export DENO_WEBGPU_BACKEND=vulkan
    fi
    [ "${DENO_WEBGPU_BACKEND:-}" = vulkan ] && mode=grouped
    ;;
  *) mode=grouped ;; # libglvnd, and with it the abort, is Linux only
esac

case ${CI:-} in
  true | TRUE | True | 1)
    [ -n "$adapter" ] || adapter=$(probe_adapter)
    if [ -z "$adapter" ]; then
      echo "error: CI=true but no WebGPU adapter was found (DENO_WEBGPU_BACKEND=${DENO_WEBGPU_BACKEND:-unset});" \
        "the WebGPU tests would only be skipped. Install a Vulkan driver (Mesa lavapipe:" \
        "mesa-vulkan-drivers libvulkan1), as .ci/run does." >&2
      echo "0 passed, 1 failed"
      exit 1
    fi
    ;;
esac
echo "test runner: $mode, DENO_WEBGPU_BACKEND=${DENO_WEBGPU_BACKEND:-unset}, adapter: ${adapter:-not probed}"
if [ "$mode" = per-file ]; then
  echo "test runner: one process per file, since wgpu cannot be kept on Vulkan here (no Vulkan" \
    "adapter) and libEGL aborts processes that ran several files at exit (docs/known_issues.md);" \
    "install Mesa lavapipe (mesa-vulkan-drivers) for the faster grouped mode."
fi

passed=0
failed=0
ignored=0
failures=""

# Reads a finished `deno test` process's output ($LOG) and exit status ($STATUS). Sets status,
# summary (1 when the summary line was printed), n_passed, n_failed, n_ignored. The summary line
# reads e.g. "ok | 197 passed (216 steps) | 0 failed | 1 ignored (33s)".
parse() {
  status=$(cat "$STATUS")
  eval "$(sed "s/$ESC\[[0-9;]*m//g" "$LOG" | awk '
    /^(ok|FAILED) \| [0-9]+ passed/ {
      for (i = 2; i <= NF; i++) {
        if ($i == "passed") p = $(i - 1)
        if ($i == "failed") f = $(i - 1)
        if ($i == "ignored") g = $(i - 1)
      }
      seen = 1
    }
    END { printf "summary=%d n_passed=%d n_failed=%d n_ignored=%d\n", seen, p, f, g }')"
}

# Whether the process parsed last died at exit after a clean summary: 134 is glibc's abort on the
# double free, 139 a SIGSEGV seen once at the same point (the libEGL exit abort).
exit_abort() {
  [ "$summary" -eq 1 ] && [ "$n_failed" -eq 0 ] && { [ "$status" -eq 134 ] || [ "$status" -eq 139 ]; }
}

# Adds the counts of the process parsed last, named $1, to the totals; a process that failed
# without a failed test counts as one failure.
tally() {
  if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
    echo "ERROR: $1 was stopped after $LIMIT s (GPUCOMPUTE_TEST_LIMIT): a test never settled."
  fi
  if [ "$status" -ne 0 ]; then
    exit_abort && echo "ERROR: $1 exited with status $status after all its tests passed (the" \
      "libEGL exit abort, docs/known_issues.md)."
    failures="$failures $1"
    [ "$n_failed" -gt 0 ] || n_failed=1
  fi
  passed=$((passed + n_passed))
  failed=$((failed + n_failed))
  ignored=$((ignored + n_ignored))
}

# Runs one `deno test` process: `run NAME RETRIES FLAGS... FILES...`. NAME names it in messages;
# RETRIES is how many times it runs again after an exit abort that followed a clean summary.
run() {
  name=$1
  retries=$2
  shift 2
  while :; do
    # The status of `deno test` goes through a file: POSIX sh has no pipefail.
    # shellcheck disable=SC2086
    { $LIMITED env $RUN_ENV deno test "$@"; echo $? >"$STATUS"; } 2>&1 | tee "$LOG"
    parse
    if [ "$status" -ne 0 ] && exit_abort && [ "$retries" -gt 0 ]; then
      echo "NOTE: $name exited with status $status after all its tests passed (the libEGL" \
        "exit abort, docs/known_issues.md); running it once more."
      retries=$((retries - 1))
      continue
    fi
    break
  done
  tally "$name"
}

# Starts one `deno test` process in the background: `start KEY FLAGS... FILES...`, its output in
# $WORK/KEY.log and its exit status in $WORK/KEY.status.
start() {
  key=$1
  shift
  # shellcheck disable=SC2086
  { $LIMITED env $RUN_ENV deno test "$@" >"$WORK/$key.log" 2>&1; echo $? >"$WORK/$key.status"; } &
}

# Prints what the background process KEY printed and adds its counts: `collect KEY NAME`.
collect() {
  LOG="$WORK/$1.log"
  STATUS="$WORK/$1.status"
  cat "$LOG"
  parse
  tally "$2"
}

common_files=""
cuda_files=""
browser_files=""
for file in tests/*_test.ts; do
  case $file in
    tests/cuda_* | tests/qa3_life_cuda_*) cuda_files="$cuda_files $file" ;;
    tests/browser_*) browser_files="$browser_files $file" ;;
    *) common_files="$common_files $file" ;;
  esac
done

# shellcheck disable=SC2086
began=$(date +%s)
if [ "$mode" = grouped ]; then
  # The areas run at once: much of each is waiting (device polls every ~10 ms, Chromium, the
  # simulated driver's delays), so together they take little more than the longest alone.
  # Each prints when all are done, in this order.
  # The non-CUDA files, the longest area, go in two processes (every other file). The test
  # processes skip type-checking (--no-check): one `deno check` of every test file runs beside
  # them instead of four checks of the shared modules, and its failure fails the run.
  common_a=""
  common_b=""
  turn=a
  for file in $common_files; do
    if [ $turn = a ]; then common_a="$common_a $file" turn=b; else common_b="$common_b $file" turn=a; fi
  done
  { $LIMITED deno check $common_files $cuda_files $browser_files >"$WORK/check.log" 2>&1
    echo $? >"$WORK/check.status"; } &
  [ -z "$common_a" ] || start common_a --no-check $COMMON $common_a
  [ -z "$common_b" ] || start common_b --no-check $COMMON $common_b
  RUN_ENV=$CUDA_ENV
  [ -z "$cuda_files" ] || start cuda --no-check $CUDA $cuda_files
  RUN_ENV=""
  [ -z "$browser_files" ] || start browser --no-check $BROWSER $browser_files
  wait
  if [ "$(cat "$WORK/check.status")" -ne 0 ]; then
    cat "$WORK/check.log"
    echo "ERROR: the type check of the test files failed."
    failures="$failures type-check"
    failed=$((failed + 1))
  fi
  [ -z "$common_a" ] || collect common_a "the non-CUDA tests (first half)"
  [ -z "$common_b" ] || collect common_b "the non-CUDA tests (second half)"
  [ -z "$cuda_files" ] || collect cuda "the CUDA tests"
  [ -z "$browser_files" ] || collect browser "the browser tests"
else
  for file in $common_files; do run "$file" 1 $COMMON "$file"; done
  RUN_ENV=$CUDA_ENV
  for file in $cuda_files; do run "$file" 1 $CUDA "$file"; done
  RUN_ENV=""
  for file in $browser_files; do run "$file" 1 $BROWSER "$file"; done
fi

echo "test time: $(($(date +%s) - began)) s ($mode)"
[ -z "$failures" ] || echo "Failed:$failures"
[ "$ignored" -eq 0 ] || echo "$ignored ignored"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
