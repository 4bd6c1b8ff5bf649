import assert from "node:assert/strict";
import fc from "fast-check";
import {
  InvalidHandleError,
  MemoryManagement,
  type SliceHandle,
  type SlicePin,
  type SliceRecord,
} from "../backend.ts";
import { HostStorage } from "./fixtures/host_storage.ts";

const ALIGN = 64;
const aligned = (size: number) => Math.ceil(size / ALIGN) * ALIGN;

type Op =
  | { kind: "reserve"; size: number }
  | { kind: "dispose"; index: number }
  | { kind: "clone"; index: number }
  | { kind: "pin"; index: number }
  | { kind: "unpin"; index: number }
  | { kind: "mode" }
  | { kind: "cleanup"; explicit: boolean };

/** What the test knows of one reservation: its owners and pins. */
interface Entry {
  readonly memory: SliceRecord;
  readonly size: number;
  readonly tag: number;
  owners: SliceHandle[];
  pins: SlicePin[];
}

const live = (entry: Entry) => entry.owners.length > 0 || entry.pins.length > 0;

const size = fc.oneof(
  fc.integer({ min: 1, max: 512 }), // small sliced pool
  fc.integer({ min: 513, max: 4096 }), // large sliced pool
  fc.integer({ min: 4097, max: 20_000 }), // exclusive pool
);
const index = fc.nat({ max: 63 });
const op: fc.Arbitrary<Op> = fc.oneof(
  { arbitrary: size.map((size) => ({ kind: "reserve" as const, size })), weight: 4 },
  { arbitrary: index.map((index) => ({ kind: "dispose" as const, index })), weight: 3 },
  { arbitrary: index.map((index) => ({ kind: "clone" as const, index })), weight: 1 },
  { arbitrary: index.map((index) => ({ kind: "pin" as const, index })), weight: 1 },
  { arbitrary: index.map((index) => ({ kind: "unpin" as const, index })), weight: 1 },
  { arbitrary: fc.constant({ kind: "mode" as const }), weight: 1 },
  {
    arbitrary: fc.boolean().map((explicit) => ({ kind: "cleanup" as const, explicit })),
    weight: 1,
  },
);

function apply(mm: MemoryManagement<Uint8Array>, entries: Entry[], step: Op): void {
  const entry = "index" in step && entries.length > 0
    ? entries[step.index % entries.length]
    : undefined;
  switch (step.kind) {
    case "reserve": {
      const handle = mm.reserve(step.size);
      const tag = 1 + (entries.length % 250);
      mm.storage.resource(mm.get(handle.record)).fill(tag);
      entries.push({ memory: handle.record, size: step.size, tag, owners: [handle], pins: [] });
      break;
    }
    case "dispose":
      entry?.owners.pop()?.dispose();
      break;
    case "clone":
      if (entry?.owners.length) entry.owners.push(entry.owners[0].clone());
      break;
    case "pin":
      if (entry && live(entry)) entry.pins.push(entry.memory.pin());
      break;
    case "unpin":
      entry?.pins.pop()?.release();
      break;
    case "mode":
      mm.mode = mm.mode === "auto" ? "persistent" : "auto";
      break;
    case "cleanup":
      mm.cleanup(step.explicit);
  }
}

function check(
  mm: MemoryManagement<Uint8Array>,
  storage: HostStorage,
  entries: Entry[],
  exactPadding: boolean,
): void {
  const alive = entries.filter(live);
  const usage = mm.usage();
  assert.equal(usage.numberAllocs, alive.length);
  assert.equal(usage.bytesInUse, alive.reduce((sum, e) => sum + e.size, 0));
  const alignPadding = alive.reduce((sum, e) => sum + aligned(e.size) - e.size, 0);
  if (exactPadding) assert.equal(usage.bytesPadding, alignPadding);
  else assert.ok(usage.bytesPadding >= alignPadding);
  assert.equal(usage.bytesReserved, storage.liveBytes);
  assert.ok(usage.bytesInUse + usage.bytesPadding <= usage.bytesReserved);
  const byPage = new Map<number, { start: number; end: number }[]>();
  for (const entry of alive) {
    const at = mm.get(entry.memory);
    assert.equal(at.size, entry.size);
    assert.equal(at.offset % ALIGN, 0, "offsets are aligned");
    const pageSize = storage.pageSize(at.page);
    assert.ok(pageSize !== undefined && at.offset + aligned(at.size) <= pageSize, "within page");
    const view = mm.storage.resource(at);
    assert.equal(view[0], entry.tag, "first byte intact");
    assert.equal(view[view.length - 1], entry.tag, "last byte intact");
    byPage.set(at.page, [...byPage.get(at.page) ?? [], {
      start: at.offset,
      end: at.offset + at.size,
    }]);
  }
  for (const ranges of byPage.values()) {
    ranges.sort((a, b) => a.start - b.start);
    for (let i = 1; i < ranges.length; i++) {
      assert.ok(ranges[i - 1].end <= ranges[i].start, "live slices never overlap");
    }
  }
  for (const entry of entries) {
    if (!live(entry)) assert.throws(() => mm.get(entry.memory), InvalidHandleError);
  }
}

Deno.test("random reserve/dispose/pin/unpin sequences keep the pools consistent", () => {
  fc.assert(
    fc.property(
      fc.array(op, { minLength: 1, maxLength: 150, size: "max" }),
      fc.boolean(),
      fc.integer({ min: 1, max: 20 }),
      (ops, exactPadding, deallocPeriod) => {
        const storage = new HostStorage({ alignment: ALIGN });
        const mm = new MemoryManagement(storage, {
          slicedPools: [{ maxSliceSize: 512, pageSize: 2048 }, {
            maxSliceSize: 4096,
            pageSize: 8192,
          }],
          // A ratio of 1 reuses exclusive pages only for the same aligned size: padding is exact.
          exclusiveReuseRatio: exactPadding ? 1 : 2,
          deallocPeriod,
        });
        const entries: Entry[] = [];
        try {
          for (const step of ops) {
            apply(mm, entries, step);
            check(mm, storage, entries, exactPadding);
          }
          for (const entry of entries) {
            for (const owner of entry.owners.splice(0)) owner.dispose();
            for (const pin of entry.pins.splice(0)) pin.release();
          }
          check(mm, storage, entries, exactPadding);
          mm.cleanup(true);
          assert.deepEqual(mm.usage(), {
            numberAllocs: 0,
            bytesInUse: 0,
            bytesPadding: 0,
            bytesReserved: 0,
          });
          assert.equal(storage.livePages, 0, "every page was returned");
          assert.equal(storage.allocs, storage.deallocs);
        } finally {
          mm.destroy();
        }
      },
    ),
    { numRuns: 300 },
  );
});
