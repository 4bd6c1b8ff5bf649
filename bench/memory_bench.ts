/**
 * Memory pool reserve + dispose against the raw baseline of allocating fresh storage each time
 * (`storage.alloc` + `dealloc` of the same size), on the ArrayBuffer host storage.
 *
 * Run: `deno bench bench/memory_bench.ts`
 *
 * @module
 */

import "./_bench_guard.ts"; // deno bench awaits only async fns: a promise from another one throws
import { formatBytes, MemoryManagement } from "../backend.ts";
import { HostStorage } from "../tests/fixtures/host_storage.ts";

const storage = new HostStorage({ alignment: 256 });
// Default routing: 256 B and 64 KiB go to the 64 KiB-in-1 MiB sliced pool, 4 MiB to the
// exclusive pool.
const memory = new MemoryManagement(storage);

// A second manager whose small pool already holds 1,000 live 256-byte slices with holes between
// them, to show that reserve does not scan used slices.
const fragmented = new MemoryManagement(new HostStorage({ alignment: 256 }));
const held = Array.from({ length: 2000 }, () => fragmented.reserve(256));
held.forEach((slice, i) => i % 2 === 0 && slice.dispose());
fragmented.reserve(512).dispose(); // a request that fits none of the holes
const kept = held.filter((slice) => !slice.disposed);

for (const size of [256, 64 * 1024, 4 * 1024 * 1024]) {
  const group = formatBytes(size);
  Deno.bench({
    name: `storage alloc + dealloc ${group}`,
    group,
    baseline: true,
    fn: () => {
      storage.dealloc(storage.alloc(size));
    },
  });
  Deno.bench({
    name: `pool reserve + dispose ${group}`,
    group,
    fn: () => {
      memory.reserve(size).dispose();
    },
  });
}

for (const size of [256, 512]) {
  Deno.bench({
    name: `fragmented pool reserve + dispose ${formatBytes(size)}`,
    group: "1000 live slices with 1000 holes of 256 B",
    // 256 B: first fit hits the first hole; 512 B: every hole is too small, so reserve walks the
    // page's whole free list (1000 entries) before carving from the tail.
    fn: () => {
      fragmented.reserve(size).dispose();
    },
  });
}

// Module scope keeps the live slices reachable, so the safety-net finalizer never frees them.
export { kept as _kept };
