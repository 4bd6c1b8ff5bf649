/**
 * The shared server layer (runtime/server/shared/) on its own: what every backend gets from it,
 * checked with the primitives a backend would pass (here: host slices and a recording write).
 */
import assert from "node:assert/strict";
import {
  AllocationDescriptor,
  checkEmpty,
  contiguousExtent,
  contiguousLayout,
  copyTarget,
  copyThroughHost,
  createAllocations,
  createWithData,
  Handle,
  type HandleRef,
  leaseResource,
  ServerState,
  SliceHandle,
  SliceRecord,
  type WriteEntry,
  writeTargets,
} from "../backend.ts";
import { SimulatedServer } from "./fixtures/simulated_server.ts";

/** A backend's reservation: host slices, recorded so tests can see what is still owned. */
function reservations() {
  const made: Handle[] = [];
  return {
    made,
    allocate(bytes: number): Handle {
      const handle = new Handle(new SliceHandle(new SliceRecord()), {
        stream: 0,
        cursor: 0,
        size: bytes,
      });
      made.push(handle);
      return handle;
    },
  };
}

const locate = (ref: HandleRef) => ({ resource: "page", offset: 64, size: ref.size() });
const layout = (d: Parameters<typeof contiguousExtent>[0]) => contiguousExtent(d, "Test");

Deno.test("ServerState: usable until destroyed, then DESTROYED naming the server", () => {
  const state = new ServerState("test server");
  state.assertUsable(3);
  assert.throws(() => state.assertUsable(-1), RangeError);
  assert.throws(() => state.assertUsable("1" as unknown as number), TypeError);
  assert.equal(state.destroyed, false);
  assert.equal(state.markDestroyed(), true);
  assert.equal(state.markDestroyed(), false, "destroy runs once");
  assert.throws(() => state.assertUsable(), {
    code: "DESTROYED",
    name: "DestroyedError",
    message: "The test server was destroyed",
  });
  assert.equal(state.destroyedError({ cause: 7 }).cause, 7);
});

Deno.test("createAllocations checks every descriptor before reserving, and reserves all or none", async (t) => {
  await t.step("a bad descriptor anywhere: nothing reserved", () => {
    const backend = reservations();
    const good = AllocationDescriptor.contiguous([4], 4);
    for (
      const [bad, error] of [
        [{ kind: "strided", shape: [4], elemSize: 4 }, TypeError],
        [{ kind: "contiguous", shape: [-1], elemSize: 4 }, RangeError],
        [{ kind: "contiguous", shape: [2], elemSize: 0 }, RangeError],
        [null, TypeError],
      ] as const
    ) {
      assert.throws(
        () =>
          createAllocations([good, bad as never], 0, {
            layout: contiguousLayout,
            memory: { allocate: backend.allocate, maxAllocationSize: 1024 },
          }),
        error,
      );
    }
    assert.throws(
      () =>
        createAllocations("x" as never, 0, {
          layout: contiguousLayout,
          memory: { allocate: backend.allocate, maxAllocationSize: 1024 },
        }),
      TypeError,
    );
    assert.equal(backend.made.length, 0);
  });
  await t.step("a size past the safe integers: BUFFER_TOO_BIG naming the limit", () => {
    const backend = reservations();
    assert.throws(
      () =>
        createAllocations([AllocationDescriptor.contiguous([2 ** 30, 2 ** 30], 8)], 0, {
          layout: contiguousLayout,
          memory: { allocate: backend.allocate, maxAllocationSize: 1024 },
        }),
      (e: Error & { code?: string }) => e.code === "BUFFER_TOO_BIG" && /1 KiB/.test(e.message),
    );
    assert.equal(backend.made.length, 0);
  });
  await t.step("a reservation that fails: the earlier ones are given back", () => {
    const backend = reservations();
    let calls = 0;
    const allocate = (bytes: number) => {
      if (++calls === 3) throw new RangeError("out of pages");
      return backend.allocate(bytes);
    };
    const descriptors = [4, 8, 16].map((n) => AllocationDescriptor.contiguous([n], 1));
    assert.throws(
      () =>
        createAllocations(descriptors, 0, {
          layout: contiguousLayout,
          memory: { allocate: allocate, maxAllocationSize: 64 },
        }),
      /out of pages/,
    );
    assert.equal(backend.made.length, 2);
    assert.ok(backend.made.every((handle) => handle.disposed), "rolled back");
  });
  await t.step("layouts come from the backend; 1-D strides are shared", () => {
    const backend = reservations();
    const padded = () => ({ bytes: 64, strides: [16, 1] });
    const [a, b] = createAllocations(
      [AllocationDescriptor.optimized([2, 3], 4), AllocationDescriptor.contiguous([5], 2)],
      0,
      {
        layout: (d) => d.kind === "optimized" ? padded() : contiguousLayout(d),
        memory: { allocate: backend.allocate, maxAllocationSize: 1024 },
      },
    );
    assert.deepEqual([a.handle.size(), a.strides], [64, [16, 1]]);
    assert.deepEqual([b.handle.size(), b.strides], [10, [1]]);
    assert.equal(contiguousLayout(AllocationDescriptor.contiguous([7], 4)).strides, b.strides);
    backend.made.forEach((handle) => handle.dispose());
  });
});

Deno.test("checkEmpty and createWithData check sizes and kinds first; a failed upload is given back", () => {
  checkEmpty(0, undefined);
  checkEmpty(12, { dtype: "f32" });
  assert.throws(() => checkEmpty(-4, undefined), RangeError);
  assert.throws(() => checkEmpty(1.5, undefined), RangeError);
  assert.throws(() => checkEmpty("8" as never, undefined), TypeError);
  assert.throws(() => checkEmpty(6, { dtype: "f32" }), /whole number of f32 elements/);
  assert.throws(() => checkEmpty(8, { dtype: "f33" as never }), TypeError);
  const backend = reservations();
  const written: WriteEntry[][] = [];
  const parts = {
    memory: { allocate: (bytes: number) => backend.allocate(bytes), maxAllocationSize: 1024 },
    server: { write: (entries: readonly WriteEntry[]) => void written.push([...entries]) },
  };
  assert.throws(() => createWithData([1, 2] as never, undefined, 0, parts), TypeError);
  assert.throws(() => createWithData(new Uint8Array(6), { dtype: "u32" }, 0, parts), RangeError);
  assert.equal(backend.made.length, 0, "checked before anything is reserved");
  using handle = createWithData(new Uint8Array([1, 2, 3, 4]), undefined, 0, parts);
  assert.equal(handle.size(), 4);
  assert.deepEqual([...written[0][0].data], [1, 2, 3, 4]);
  assert.equal(written[0][0].descriptor.ref.slice.record, handle.slice.record);
  const failing = {
    ...parts,
    server: {
      write: () => {
        throw new RangeError("no");
      },
    },
  };
  assert.throws(() => createWithData(new Uint8Array(4), undefined, 0, failing), /no/);
  assert.equal(backend.made.at(-1)!.disposed, true, "the new handle was given back");
});

Deno.test("copyTarget and writeTargets: one check of hand-built descriptors, one error text", () => {
  using handle = new Handle(new SliceHandle(new SliceRecord()), { stream: 0, cursor: 0, size: 64 });
  const ref = handle.ref();
  const target = copyTarget(handle.copyDescriptor([4, 4], [4, 1], 4), { layout, locate });
  assert.deepEqual(target.at, { resource: "page", offset: 64, size: 64 });
  assert.equal(target.ref, ref);
  assert.throws(
    () =>
      copyTarget({ ref: {} as HandleRef, shape: [1], strides: [1], elemSize: 1 }, {
        layout,
        locate,
      }),
    TypeError,
  );
  assert.throws(
    () => copyTarget({ ref, shape: [2], strides: [-1], elemSize: 4 }, { layout, locate }),
    RangeError,
  );
  assert.throws(
    () => copyTarget(handle.copyDescriptor([2, 2], [4, 1], 4), { layout, locate }),
    { code: "UNSUPPORTED_STRIDES" },
  );
  assert.throws(
    () => copyTarget(handle.copyDescriptor([17], [1], 4), { layout, locate }),
    { name: "RangeError", message: "Copy of 68 bytes is out of range of a 64-byte ref" },
  );
  // A pitched layout: the span, not the bytes moved, must fit.
  const rows = () => ({ bytes: 32, span: 80 });
  assert.throws(() => copyTarget(handle.copyDescriptor([8], [1], 4), { layout: rows, locate }), {
    message: "Copy of 80 bytes is out of range of a 64-byte ref",
  });
  const entry = (data: unknown): WriteEntry =>
    ({ descriptor: handle.copyDescriptor([16], [1], 4), data }) as WriteEntry;
  assert.throws(() => writeTargets("x" as never, { layout, locate }), TypeError);
  assert.throws(() => writeTargets([null as never], { layout, locate }), /entries\[0\]/);
  assert.throws(() => writeTargets([entry([1])], { layout, locate }), /entries\[0\].data/);
  assert.throws(() => writeTargets([entry(new Uint8Array(63))], { layout, locate }), {
    message: "Write of 63 bytes into a descriptor of 64 bytes",
  });
  // The second entry is bad: the call throws before handing back any target.
  assert.throws(() =>
    writeTargets([entry(new Uint8Array(64)), entry(new Uint8Array(1))], {
      layout,
      locate,
    }), RangeError);
  const [written] = writeTargets([entry(new Uint8Array(64))], { layout, locate });
  assert.equal(written.data.byteLength, 64);
});

Deno.test("leaseResource pins the memory until released, idempotently", () => {
  const handle = new Handle(new SliceHandle(new SliceRecord()), { stream: 0, cursor: 0, size: 8 });
  const ref = handle.ref();
  {
    using lease = leaseResource({ resource: 1, offset: 8, size: 8 }, ref);
    assert.deepEqual([lease.resource, lease.offset, lease.size], [1, 8, 8]);
    handle.dispose();
    assert.equal(ref.slice.record.released, false, "a disposed handle's memory stays leased");
    assert.equal(lease.released, false);
  }
  assert.equal(ref.slice.record.released, true, "released at the end of the block");
  assert.throws(() => leaseResource({ resource: 1, offset: 0, size: 8 }, ref), {
    code: "INVALID_HANDLE",
  });
});

Deno.test("copyThroughHost: a read on one server, a new allocation on the other", async () => {
  using from = new SimulatedServer({ seed: 3 });
  using to = new SimulatedServer({ seed: 4 });
  using source = from.createWithData(new Uint8Array([9, 8, 7, 6, 5, 4]), 1);
  const copy = await copyThroughHost(from, to, source.copyDescriptor([3], [1], 2), {
    source: 1,
    destination: 2,
  });
  using copied = copy.handle;
  assert.deepEqual(copy.strides, [1]);
  assert.equal(copied.stream, 2);
  const [bytes] = await to.read([copied.copyDescriptor([6], [1], 1)], 2);
  assert.deepEqual([...bytes], [9, 8, 7, 6, 5, 4]);
});
