import assert from "node:assert/strict";
import { configure, type LogRecord, reset } from "@logtape/logtape";
import {
  BufferTooBigError,
  ComputeError,
  InvalidHandleError,
  MemoryManagement,
  type MemoryManagementOptions,
  OutOfMemoryError,
  type SliceHandle,
} from "../backend.ts";
import { HostStorage, type HostStorageOptions } from "./fixtures/host_storage.ts";

const ALIGN = 256;
const PAGE = 16384;
const MAX_SLICE = 4096;
const aligned = (size: number) => Math.ceil(size / ALIGN) * ALIGN;

/** A manager with one small sliced pool (slices <= 4 KiB in 16 KiB pages) and the exclusive pool. */
function setup(options: MemoryManagementOptions = {}, storageOptions: HostStorageOptions = {}) {
  const storage = new HostStorage({ alignment: ALIGN, ...storageOptions });
  const mm = new MemoryManagement(storage, {
    slicedPools: [{ maxSliceSize: MAX_SLICE, pageSize: PAGE }],
    deallocPeriod: 100,
    ...options,
  });
  return { storage, mm };
}

/** The error `fn` throws (fails if it returns). */
function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  assert.fail("expected an error");
}

/** A deterministic generator (mulberry32) so the long-run tests are reproducible. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

Deno.test("a released slice is handed back at the same location", () => {
  const { storage, mm } = setup();
  using a = mm.reserve(1000);
  using b = mm.reserve(1000);
  const first = mm.get(a.record);
  assert.notEqual(mm.get(b.record).offset, first.offset);
  a.dispose();
  using c = mm.reserve(1000);
  assert.deepEqual(mm.get(c.record), first);
  // Exclusive pool: a page is reused for a smaller request within the 2x rule.
  const big = mm.reserve(10_000);
  const bigPage = mm.get(big.record).page;
  big.dispose();
  using again = mm.reserve(9000);
  assert.deepEqual(mm.get(again.record), { page: bigPage, offset: 0, size: 9000 });
  assert.equal(storage.allocs, 2);
  mm.destroy();
});

Deno.test("a released id never finds the slot or page that now holds another slice", () => {
  const { mm } = setup();
  // A split then a merge: the slot object of `a` is reused for `b` (and exclusive pages likewise).
  const a = mm.reserve(1000);
  const staleSliced = a.record;
  a.dispose();
  using b = mm.reserve(1000);
  const big = mm.reserve(10_000);
  const staleExclusive = big.record;
  big.dispose();
  using again = mm.reserve(9000);
  for (const stale of [staleSliced, staleExclusive]) {
    assert.throws(() => mm.get(stale), InvalidHandleError);
  }
  assert.deepEqual(mm.get(b.record), { page: mm.get(b.record).page, offset: 0, size: 1000 });
  assert.equal(mm.get(again.record).size, 9000);
  assert.equal(mm.usage().numberAllocs, 2);
  mm.destroy();
});

Deno.test("a location is made on first lookup, kept while live, and never outlives its slice", () => {
  const { mm } = setup();
  const a = mm.reserve(1000);
  const at = mm.get(a.record);
  assert.equal(mm.get(a.record), at, "one location object per reservation");
  const { page, offset } = at;
  a.dispose();
  // The same slot serves the next reservation of another size: a new location, the old one intact.
  using b = mm.reserve(500);
  const now = mm.get(b.record);
  assert.notEqual(now, at);
  assert.deepEqual(now, { page, offset, size: 500 });
  assert.deepEqual(at, { page, offset, size: 1000 });
  mm.destroy();
});

Deno.test("freed neighbours coalesce into a slice for a larger request", () => {
  const { storage, mm } = setup({ slicedPools: [{ maxSliceSize: PAGE, pageSize: PAGE }] });
  const quarter = PAGE / 4;
  const slices = [0, 1, 2, 3].map(() => mm.reserve(quarter));
  assert.deepEqual(
    slices.map((s) => mm.get(s.record).offset),
    [0, 1, 2, 3].map((i) => i * quarter),
  );
  // Free 0 and 2 (not adjacent), then 1: it merges with both neighbours.
  slices[0].dispose();
  slices[2].dispose();
  slices[1].dispose();
  using merged = mm.reserve(3 * quarter);
  assert.deepEqual(mm.get(merged.record), {
    page: mm.get(slices[3].record).page,
    offset: 0,
    size: 3 * quarter,
  });
  assert.equal(storage.allocs, 1, "no new page was needed");
  merged.dispose();
  slices[3].dispose();
  // Everything merged back: the whole page is one free slice.
  using whole = mm.reserve(PAGE);
  assert.equal(mm.get(whole.record).offset, 0);
  assert.equal(storage.allocs, 1);
  mm.destroy();
});

Deno.test("usage figures are exact after a known sequence", () => {
  const { mm } = setup();
  assert.deepEqual(mm.usage(), {
    numberAllocs: 0,
    bytesInUse: 0,
    bytesPadding: 0,
    bytesReserved: 0,
  });
  const small = mm.reserve(100); // sliced: slot of 256 bytes
  using exact = mm.reserve(256); // sliced: no padding
  const large = mm.reserve(5000); // exclusive: page of 5120 bytes
  assert.deepEqual(mm.usage(), {
    numberAllocs: 3,
    bytesInUse: 100 + 256 + 5000,
    bytesPadding: (aligned(100) - 100) + 0 + (aligned(5000) - 5000),
    bytesReserved: PAGE + aligned(5000),
  });
  small.dispose();
  large.dispose();
  using reused = mm.reserve(4500); // reuses the 5120-byte page (5120 <= 2 * 4608)
  assert.deepEqual(mm.usage(), {
    numberAllocs: 2,
    bytesInUse: 256 + 4500,
    bytesPadding: aligned(5000) - 4500,
    bytesReserved: PAGE + aligned(5000),
  });
  const clone = reused.clone();
  reused.dispose();
  assert.equal(mm.usage().numberAllocs, 2, "a clone keeps the slice alive");
  clone.dispose();
  exact.dispose();
  assert.deepEqual(mm.usage(), {
    numberAllocs: 0,
    bytesInUse: 0,
    bytesPadding: 0,
    bytesReserved: PAGE + aligned(5000),
  });
  mm.cleanup(true);
  assert.equal(mm.usage().bytesReserved, 0);
  mm.destroy();
});

Deno.test("10,000 alloc/free cycles of mixed sizes do not grow reserved memory", () => {
  const storage = new HostStorage({ alignment: ALIGN });
  const mm = new MemoryManagement(storage, {
    slicedPools: [{ maxSliceSize: 1024, pageSize: 8192 }, { maxSliceSize: 16384, pageSize: 65536 }],
    deallocPeriod: 500,
  });
  const next = random(42);
  const window: SliceHandle[] = [];
  let maxReserved = 0, maxPages = 0, earlyMaxReserved = 0, asked = 0;
  for (let cycle = 0; cycle < 10_000; cycle++) {
    // Sizes spread over both sliced pools and the exclusive pool (up to 256 KiB), skewed small.
    const size = 1 + Math.floor(next() ** 3 * 256 * 1024);
    asked += size;
    window.push(mm.reserve(size));
    if (window.length > 8) window.splice(Math.floor(next() * window.length), 1)[0].dispose();
    const reserved = mm.usage().bytesReserved;
    assert.equal(reserved, storage.liveBytes, "bytesReserved matches the storage");
    maxReserved = Math.max(maxReserved, reserved);
    maxPages = Math.max(maxPages, storage.livePages);
    if (cycle === 4999) earlyMaxReserved = maxReserved;
  }
  // At most 9 live slices (<= 2.3 MiB) plus the free pages kept for one period: measured peaks
  // are about 4.4 MiB and 35 pages with this seed, against ~150 MiB asked in all. Bound: 8 MiB.
  assert.ok(asked > 100 * 1024 * 1024, `asked ${asked} bytes in all`);
  assert.ok(maxReserved <= 8 * 1024 * 1024, `reserved peaked at ${maxReserved} bytes`);
  assert.ok(maxPages <= 48, `the storage held up to ${maxPages} pages`);
  assert.equal(maxReserved, earlyMaxReserved, "the peak was reached in the first half");
  for (const slice of window) slice.dispose();
  mm.cleanup(true);
  assert.equal(storage.livePages, 0);
  assert.equal(storage.allocs, storage.deallocs);
  mm.destroy();
});

Deno.test("persistent pages survive automatic cleanup and go with explicit cleanup", () => {
  const { storage, mm } = setup({ deallocPeriod: 10 });
  mm.mode = "persistent";
  const kept = mm.reserve(100);
  const at = mm.get(kept.record);
  assert.equal(storage.pageSize(at.page), aligned(100), "an exclusive page of its own");
  kept.dispose();
  using reused = mm.reserve(200);
  assert.equal(mm.get(reused.record).page, at.page, "persistent pages are reused too");
  reused.dispose();
  mm.mode = "auto";
  for (let i = 0; i < 50; i++) mm.reserve(64).dispose(); // five automatic cleanups
  mm.cleanup(false);
  assert.equal(storage.pageSize(at.page), aligned(100), "the persistent page is still there");
  mm.cleanup(true);
  assert.equal(storage.pageSize(at.page), undefined);
  assert.equal(storage.livePages, 0);
  mm.destroy();
});

Deno.test("automatic cleanup frees pages idle for a period and keeps busy ones", () => {
  const { storage, mm } = setup({ deallocPeriod: 10 });
  const big = mm.reserve(10_000);
  const bigPage = mm.get(big.record).page;
  big.dispose();
  let smallPage = -1;
  for (let i = 0; i < 25; i++) {
    using s = mm.reserve(64);
    smallPage = mm.get(s.record).page;
  }
  assert.equal(storage.pageSize(bigPage), undefined, "idle exclusive page freed");
  assert.equal(storage.pageSize(smallPage), PAGE, "busy sliced page kept");
  mm.destroy();
});

Deno.test("a pinned slice is not reused until unpinned", () => {
  const { mm } = setup();
  const a = mm.reserve(1000);
  const location = mm.get(a.record);
  const pin = a.record.pin();
  a.dispose();
  assert.deepEqual(mm.get(a.record), location, "still resolvable while pinned");
  using b = mm.reserve(1000);
  assert.notDeepEqual(mm.get(b.record), location);
  assert.equal(mm.usage().numberAllocs, 2);
  pin.release();
  assert.throws(() => mm.get(a.record), InvalidHandleError);
  using c = mm.reserve(1000);
  assert.deepEqual(mm.get(c.record), location);
  mm.destroy();
});

Deno.test("bad input gets typed errors and the manager stays usable", async (t) => {
  const { storage, mm } = setup({ maxAllocationSize: 1 << 20 });
  await t.step("reserve", () => {
    for (const size of [0, -1, 1.5, NaN, Infinity]) {
      assert.throws(() => mm.reserve(size), RangeError);
    }
    for (const size of ["8", undefined, 8n, null]) {
      assert.throws(() => mm.reserve(size as unknown as number), TypeError);
    }
    const error = thrown(() => mm.reserve((1 << 20) + 1));
    assert.ok(error instanceof BufferTooBigError && error.code === "BUFFER_TOO_BIG");
    assert.equal(error.requested, (1 << 20) + 1);
    assert.equal(error.limit, 1 << 20);
    assert.equal(storage.allocs, 0, "no page was allocated for a refused request");
  });
  await t.step("mode, get, cleanup", () => {
    assert.throws(() => (mm.mode = "fast" as "auto"), RangeError);
    assert.throws(() => (mm.mode = 1 as unknown as "auto"), TypeError);
    assert.equal(mm.mode, "auto");
    assert.throws(() => mm.get({} as never), TypeError);
    assert.throws(() => mm.cleanup("yes" as unknown as boolean), TypeError);
  });
  await t.step("options", () => {
    const make = (options: MemoryManagementOptions) => () => new MemoryManagement(storage, options);
    assert.throws(make({ slicedPools: [{ maxSliceSize: 10, pageSize: 5 }] }), RangeError);
    assert.throws(make({ slicedPools: [{ maxSliceSize: 0, pageSize: 5 }] }), RangeError);
    assert.throws(make({ deallocPeriod: 0 }), RangeError);
    assert.throws(
      make({ slicedPools: [{ maxSliceSize: 10, pageSize: 2048 }], maxAllocationSize: 1024 }),
      RangeError,
    );
    assert.throws(make({ maxAllocationSize: -5 }), RangeError);
    assert.throws(make({ exclusiveReuseRatio: 0.5 }), RangeError);
    assert.throws(() => new MemoryManagement(null as never), TypeError);
  });
  await t.step("still usable", () => {
    using slice = mm.reserve(8);
    mm.storage.resource(mm.get(slice.record)).set([1, 2, 3, 4, 5, 6, 7, 8]);
    using top = mm.reserve(1 << 20);
    assert.equal(mm.get(top.record).size, 1 << 20);
    assert.equal(mm.usage().numberAllocs, 2);
  });
  mm.destroy();
});

Deno.test("storage out of memory raises OutOfMemoryError and leaves the manager usable", () => {
  const { storage, mm } = setup({}, { capacity: PAGE + 4096 });
  const small = mm.reserve(100); // one sliced page of 16 KiB
  const error = thrown(() => mm.reserve(8000));
  assert.ok(error instanceof ComputeError && error.code === "OUT_OF_MEMORY");
  assert.ok(error.cause instanceof OutOfMemoryError, "the storage's error is the cause");
  assert.match(error.message, /8 KiB/);
  assert.deepEqual(mm.usage(), {
    numberAllocs: 1,
    bytesInUse: 100,
    bytesPadding: aligned(100) - 100,
    bytesReserved: PAGE,
  });
  using more = mm.reserve(200);
  assert.equal(mm.get(more.record).page, mm.get(small.record).page);
  more.dispose();
  // With the sliced page free, the retry after freeing free pages succeeds.
  small.dispose();
  using large = mm.reserve(8000);
  assert.equal(mm.get(large.record).size, 8000);
  assert.equal(storage.deallocs, 1);
  mm.destroy();
});

Deno.test("get refuses released and foreign memory", () => {
  const { mm } = setup();
  const other = setup().mm;
  using foreign = other.reserve(10);
  assert.throws(() => mm.get(foreign.record), InvalidHandleError);
  const mine = mm.reserve(10);
  mine.dispose();
  assert.throws(() => mm.get(mine.record), InvalidHandleError);
  other.destroy();
  mm.destroy();
});

Deno.test("default options route by size", () => {
  const storage = new HostStorage({ alignment: ALIGN });
  using mm = new MemoryManagement(storage);
  const pageOf = (size: number) => {
    using slice = mm.reserve(size);
    return storage.pageSize(mm.get(slice.record).page);
  };
  assert.equal(pageOf(64 * 1024), 1 << 20);
  assert.equal(pageOf(64 * 1024 + 1), 8 << 20);
  assert.equal(pageOf((1 << 20) + 1), aligned((1 << 20) + 1));
  assert.equal(mm.maxAllocationSize, 2 ** 31);
  // A small maximum leaves out the default pool whose 8 MiB pages would exceed it.
  using small = new MemoryManagement(storage, { maxAllocationSize: 4 << 20 });
  using slice = small.reserve((64 << 10) + 1);
  assert.equal(storage.pageSize(small.get(slice.record).page), aligned((64 << 10) + 1));
});

Deno.test("destroy frees every page, is idempotent, and refuses later calls", () => {
  const { storage, mm } = setup();
  const live = mm.reserve(100);
  const pinned = mm.reserve(9000).record.pin();
  mm.reserve(200).dispose();
  mm.destroy();
  assert.ok(mm.destroyed);
  assert.equal(storage.livePages, 0);
  assert.equal(storage.deallocs, storage.allocs);
  mm.destroy();
  live.dispose(); // late releases are harmless: nothing is freed twice
  pinned.release();
  assert.equal(storage.deallocs, storage.allocs);
  for (
    const call of [
      () => mm.reserve(8),
      () => mm.get(live.record),
      () => mm.usage(),
      () => mm.cleanup(true),
      () => (mm.mode = "persistent"),
    ]
  ) {
    const error = thrown(call);
    assert.ok(error instanceof ComputeError && error.code === "DESTROYED");
  }
});

Deno.test("page allocations and frees are logged at info with structured properties", async () => {
  const records: LogRecord[] = [];
  await configure({
    sinks: { buffer: (record) => void records.push(record) },
    loggers: [
      { category: ["gpucompute", "memory"], lowestLevel: "debug", sinks: ["buffer"] },
      { category: ["logtape", "meta"], lowestLevel: "warning", sinks: [] },
    ],
  });
  try {
    const { mm } = setup();
    mm.reserve(100).dispose();
    mm.cleanup(true);
    mm.destroy();
    const logged = records.splice(0).map((r) => ({
      level: r.level,
      text: r.message.join(""),
      page: r.properties.page,
      size: r.properties.size,
    }));
    const pool = "sliced (4 KiB in 16 KiB)";
    assert.deepEqual(logged, [
      {
        level: "info",
        text: `Allocated page 0 of 16 KiB for the ${pool} pool`,
        page: 0,
        size: 16384,
      },
      { level: "info", text: `Freed page 0 of 16 KiB from the ${pool} pool`, page: 0, size: 16384 },
    ]);
  } finally {
    await reset();
  }
});

Deno.test("exclusive pages are reused only within the reuse ratio, smallest first", () => {
  const { storage, mm } = setup({ slicedPools: [{ maxSliceSize: 256, pageSize: 1024 }] });
  const pages = [4096, 8192].map((size) => {
    const slice = mm.reserve(size);
    const page = mm.get(slice.record).page;
    slice.dispose();
    return page;
  });
  const pageFor = (size: number) => {
    using slice = mm.reserve(size);
    return mm.get(slice.record).page;
  };
  assert.equal(pageFor(4000), pages[0], "smallest free page that fits");
  assert.equal(pageFor(2048), pages[0], "4096 <= 2 * 2048");
  assert.equal(pageFor(4097), pages[1], "8192 <= 2 * 4352");
  const allocs = storage.allocs;
  const fresh = pageFor(2047); // aligned 2048: 4096 <= 4096 still fits
  assert.equal(fresh, pages[0]);
  const tooSmall = pageFor(1700); // aligned 1792: 4096 > 3584, so a new 1792-byte page
  assert.ok(!pages.includes(tooSmall));
  assert.equal(storage.pageSize(tooSmall), 1792);
  assert.equal(storage.allocs, allocs + 1);
  mm.destroy();
});

Deno.test("an out-of-memory retry frees dynamic pages but never persistent ones", () => {
  const { storage, mm } = setup({}, { capacity: 3 * PAGE });
  mm.mode = "persistent";
  const persistent = mm.reserve(PAGE);
  const persistentPage = mm.get(persistent.record).page;
  persistent.dispose();
  mm.mode = "auto";
  mm.reserve(100).dispose(); // a free sliced page: 2 pages of 3 are held, none live
  using big = mm.reserve(2 * PAGE - 1); // needs the sliced page's room
  assert.equal(mm.get(big.record).size, 2 * PAGE - 1);
  assert.equal(storage.pageSize(persistentPage), PAGE, "the persistent page was kept");
  assert.throws(() => mm.reserve(PAGE * 2), OutOfMemoryError);
  assert.equal(storage.pageSize(persistentPage), PAGE);
  mm.destroy();
});
