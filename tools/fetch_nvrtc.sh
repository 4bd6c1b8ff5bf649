#!/bin/sh
# Fetches NVIDIA's NVRTC (Debian trixie's `libnvrtc12`, NVRTC 12.4, and its builtins library, from
# the non-free component; bookworm has only NVRTC 11; the library needs glibc 2.34, which bookworm's
# 2.36 satisfies) for tests/cuda_nvrtc_test.ts and tests/cuda_ptx_interpreter_test.ts: NVRTC
# compiles CUDA C to PTX without a GPU, and the simulated driver runs that PTX.
#
# As tools/fetch_libcuda.sh does for libcuda1: nothing is installed system-wide; apt runs under a
# private configuration (its own sources list, lists and cache) with `apt-get download`, and the
# packages are unpacked with `dpkg -x` into .tmp/nvrtc/root (git-ignored). .tmp/nvrtc/STATUS says
# what happened: "ok <package version> <path of libnvrtc.so.12> <folder of the builtins>", or
# "unavailable: <why>". Exits 0 either way: without NVRTC the tests that need it are skipped (and
# a `{ source }` kernel is UNSUPPORTED, naming the library). tools/run_tests.sh points
# GPUCOMPUTE_NVRTC_LIBRARY at the library and LD_LIBRARY_PATH at the builtins when STATUS is ok.
set -u
cd "$(dirname "$0")/.."
out=.tmp/nvrtc
status="$out/STATUS"
mkdir -p "$out"

unavailable() {
  echo "unavailable: $*" >"$status"
  echo "fetch_nvrtc: $*; the tests that compile CUDA C with NVRTC will be skipped" >&2
  exit 0
}

# Already unpacked (CI caches .tmp, a developer runs it twice): nothing to do.
if [ -f "$status" ] && grep -q '^ok ' "$status"; then
  lib=$(cut -d' ' -f3 "$status")
  [ -f "$lib" ] && { echo "fetch_nvrtc: $(cat "$status")"; exit 0; }
fi

suite=trixie
# The private apt configuration, its `apt-get update`, the options in "$@" (see the file).
. tools/_debian_apt.sh
# The builtins package is versioned by name (libnvrtc-builtins12.4 in trixie): the one
# libnvrtc12 depends on.
depends=$(apt-cache "$@" depends libnvrtc12 2>>"$out/apt.log") ||
  unavailable "apt-cache depends libnvrtc12 failed (see $out/apt.log)"
builtins=$(echo "$depends" | sed -n 's/^ *Depends: \(libnvrtc-builtins[0-9.]*\).*/\1/p' | head -1)
[ -n "$builtins" ] || unavailable "libnvrtc12 names no libnvrtc-builtins package"
rm -f "$out"/deb/*.deb
(cd "$out/deb" && apt-get "$@" download libnvrtc12 "$builtins") >>"$out/apt.log" 2>&1 ||
  unavailable "apt-get download libnvrtc12 $builtins failed (see $out/apt.log): $(tail -1 "$out/apt.log")"
rm -rf "$out/root"
for deb in "$out"/deb/*.deb; do
  dpkg -x "$deb" "$out/root" || unavailable "dpkg -x $deb failed"
done
lib=$(find "$out/root" -name 'libnvrtc.so.12*' -type f | head -1)
[ -n "$lib" ] || unavailable "the package has no libnvrtc.so.12"
link=$(dirname "$lib")/libnvrtc.so.12
[ -e "$link" ] || ln -s "$(basename "$lib")" "$link"
builtin=$(find "$out/root" -name 'libnvrtc-builtins.so*' | head -1)
[ -n "$builtin" ] || unavailable "$builtins has no libnvrtc-builtins.so"
version=$(dpkg-deb -f "$(ls "$out"/deb/libnvrtc12_*.deb | head -1)" Version)
echo "ok $version $PWD/$link $PWD/$(dirname "$builtin")" >"$status"
echo "fetch_nvrtc: $(cat "$status")"
