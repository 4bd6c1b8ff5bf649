#!/bin/sh
# Fetches NVIDIA's driver library (Debian bookworm's `libcuda1`, from the non-free component) for
# tests/cuda_libcuda_test.ts, which runs the CUDA backend's loading code against it: the machine
# needs no GPU, since the library loads and answers without one (cuInit returns
# CUDA_ERROR_NO_DEVICE).
#
# Nothing is installed system-wide: apt runs under a private configuration (its own sources list
# with the non-free component, its own lists and cache) with `apt-get download`, and the package is
# unpacked with `dpkg -x` into .tmp/libcuda/root (git-ignored). .tmp/libcuda/STATUS says what
# happened, for the test to report: "ok <package version> <path of libcuda.so.1>", or
# "unavailable: <why>". Exits 0 either way: a machine without the network or without apt just
# skips that test. LIBCUDA_VERSION=535.261.03-1 picks a version (default: the newest in the
# lists, bookworm-security's where it has one).
set -u
cd "$(dirname "$0")/.."
out=.tmp/libcuda
status="$out/STATUS"
mkdir -p "$out"

unavailable() {
  echo "unavailable: $*" >"$status"
  echo "fetch_libcuda: $*; tests/cuda_libcuda_test.ts will be skipped" >&2
  exit 0
}

# Already unpacked (CI caches .tmp, a developer runs it twice): nothing to do.
if [ -z "${LIBCUDA_VERSION:-}" ] && [ -f "$status" ] && grep -q '^ok ' "$status"; then
  lib=$(cut -d' ' -f3 "$status")
  [ -f "$lib" ] && { echo "fetch_libcuda: $(cat "$status")"; exit 0; }
fi

suite=bookworm
# The private apt configuration, its `apt-get update`, the options in "$@" (see the file).
. tools/_debian_apt.sh
package=libcuda1${LIBCUDA_VERSION:+=$LIBCUDA_VERSION}
rm -f "$out"/deb/*.deb
(cd "$out/deb" && apt-get "$@" download "$package") >>"$out/apt.log" 2>&1 ||
  unavailable "apt-get download $package failed (see $out/apt.log): $(tail -1 "$out/apt.log")"
deb=$(ls "$out"/deb/libcuda1_*.deb 2>/dev/null | head -1)
[ -n "$deb" ] || unavailable "apt-get download left no libcuda1 package"
rm -rf "$out/root"
dpkg -x "$deb" "$out/root" || unavailable "dpkg -x $deb failed"
lib=$(find "$out/root" -name libcuda.so.1 | head -1)
[ -n "$lib" ] || unavailable "the package has no libcuda.so.1"
version=$(dpkg-deb -f "$deb" Version)
echo "ok $version $lib" >"$status"
echo "fetch_libcuda: $(cat "$status")"
