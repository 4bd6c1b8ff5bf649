#!/bin/sh
# `deno task check` step: the entry points load with no permission at all (no FFI, no env, no
# read), so importing the package, or its CUDA backend, opens no library.
set -eu
for entry in mod.ts backend.ts runtime/server/cuda/mod.ts runtime/tune/mod.ts; do
  deno run --no-prompt "$entry"
done
echo "mod.ts, backend.ts, runtime/server/cuda/mod.ts and runtime/tune/mod.ts load with no permission"
