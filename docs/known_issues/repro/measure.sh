#!/bin/sh
# Runs the five-file program RUNS times (default 40) with the environment it is given and counts
# the runs whose exit status was not 0 and those where glibc reported heap corruption (the report
# sometimes comes from an exiting thread after the status was already decided, so both counts).
# Usage, from the repository root: DENO_WEBGPU_BACKEND=gl sh docs/known_issues/repro/measure.sh 40
set -u
runs=${1:-40}
dir=$(dirname "$0")
log=$(mktemp)
trap 'rm -f "$log"' EXIT
nonzero=0
heap=0
i=0
while [ "$i" -lt "$runs" ]; do
  i=$((i + 1))
  deno test --unstable-webgpu "$dir" >"$log" 2>&1
  status=$?
  [ "$status" -eq 0 ] || nonzero=$((nonzero + 1))
  grep -q -E "double free|corrupted|free\(\)|malloc" "$log" && heap=$((heap + 1))
done
echo "DENO_WEBGPU_BACKEND=${DENO_WEBGPU_BACKEND:-unset}: $runs runs, $nonzero exited non-zero," \
  "$heap with a glibc heap error"
