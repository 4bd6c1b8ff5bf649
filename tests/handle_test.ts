import assert from "node:assert/strict";
import {
  AllocationDescriptor,
  contiguousStrides,
  copyDescriptor,
  Handle,
  InvalidHandleError,
  isContiguous,
  SliceHandle,
  SliceRecord,
  withStream,
} from "../backend.ts";

function newHandle(size = 64, stream = 0): { handle: Handle; memory: SliceRecord } {
  const memory = new SliceRecord();
  return { handle: new Handle(new SliceHandle(memory), { stream, cursor: 1, size }), memory };
}

Deno.test("handle size is net of both offsets and derived handles share memory", () => {
  const { handle, memory } = newHandle(100);
  const tail = handle.withOffsetStart(10);
  const narrowed = tail.withOffsetEnd(30);
  assert.equal(handle.size(), 100);
  assert.equal(narrowed.size(), 60);
  assert.equal(narrowed.offsetStart, 10);
  assert.equal(narrowed.offsetEnd, 30);
  assert.equal(narrowed.ref().size(), 60);
  assert.equal(memory.owners, 3, "every derived handle is an owner");
  tail.dispose();
  narrowed.dispose();
  assert.equal(memory.released, false);
  handle.dispose();
  assert.equal(memory.released, true);
});

Deno.test("offsets beyond the size are rejected and the handle stays usable", () => {
  const { handle } = newHandle(16);
  assert.throws(() => handle.withOffsetStart(17), RangeError);
  assert.throws(() => handle.withOffsetStart(10).withOffsetEnd(7), RangeError);
  assert.throws(() => handle.withOffsetStart(-1), RangeError);
  assert.throws(() => handle.withOffsetStart(1.5), RangeError);
  assert.throws(
    () => new Handle(new SliceHandle(new SliceRecord()), { stream: 0, cursor: 0, size: -4 }),
    RangeError,
  );
  using whole = handle.withOffsetStart(16);
  assert.equal(whole.size(), 0);
  assert.equal(handle.size(), 16);
  handle.dispose();
});

Deno.test("Handle.fresh is new Handle without offsets, and checks its numbers the same way", () => {
  const memory = new SliceRecord();
  using fresh = Handle.fresh(new SliceHandle(memory), 3, 7, 48);
  using built = new Handle(new SliceHandle(new SliceRecord()), {
    stream: 3,
    cursor: 7,
    size: 48,
  });
  for (const field of ["stream", "cursor", "fullSize", "offsetStart", "offsetEnd"] as const) {
    assert.equal(fresh[field], built[field], field);
  }
  assert.equal(fresh.slice.record, memory);
  // Its reused init object carries nothing over to the next handle.
  using narrowed = fresh.withOffsetStart(8);
  using second = Handle.fresh(new SliceHandle(new SliceRecord()), 0, 0, 16);
  assert.deepEqual([second.offsetStart, second.size(), narrowed.size()], [undefined, 16, 40]);
  for (const [cursor, size] of [[-1, 4], [0, 1.5], [0, Number.NaN]]) {
    assert.throws(
      () => Handle.fresh(new SliceHandle(new SliceRecord()), 0, cursor, size),
      RangeError,
    );
  }
  assert.throws(
    () => Handle.fresh(new SliceHandle(new SliceRecord()), 0, 0, "8" as unknown as number),
    TypeError,
  );
});

Deno.test("canMut needs the sole owner on the current stream", async () => {
  const { handle } = newHandle(8, 3);
  assert.equal(handle.canMut(), false, "created on stream 3, current stream is 0");
  assert.equal(handle.canMut(3), true);
  await withStream(3, () => assert.equal(handle.canMut(), true));
  const clone = handle.clone();
  assert.equal(handle.canMut(3), false, "two owners");
  clone.dispose();
  assert.equal(handle.canMut(3), true);
  handle.dispose();
  assert.equal(handle.canMut(3), false, "disposed");
});

Deno.test("dispose is idempotent, using releases, and disposed handles give typed errors", () => {
  const memory = new SliceRecord();
  {
    using handle = new Handle(new SliceHandle(memory), { stream: 0, cursor: 0, size: 4 });
    const binding = handle.ref();
    binding.assertLive();
  }
  assert.equal(memory.released, true);
  const { handle } = newHandle();
  const binding = handle.ref();
  handle.dispose();
  handle.dispose();
  assert.equal(handle.disposed, true);
  assert.throws(() => handle.ref(), InvalidHandleError);
  assert.throws(() => handle.clone(), InvalidHandleError);
  assert.throws(() => binding.assertLive(), (error: InvalidHandleError) => {
    return error.code === "INVALID_HANDLE" && /released/.test(error.message);
  });
});

Deno.test("pins keep memory alive after the last owner and release exactly once", () => {
  let releases = 0;
  const memory = new SliceRecord(() => releases++);
  const slice = new SliceHandle(memory);
  const pin = memory.pin();
  slice.dispose();
  assert.equal(memory.released, false);
  assert.equal(releases, 0);
  pin.release();
  pin.release();
  assert.equal(releases, 1);
  assert.throws(() => memory.pin(), InvalidHandleError);
});

Deno.test("allocation and copy descriptors validate shapes and detect contiguity", () => {
  assert.deepEqual(contiguousStrides([2, 3, 4]), [12, 4, 1]);
  assert.equal(isContiguous([2, 3], [3, 1]), true);
  assert.equal(isContiguous([2, 3], [4, 1]), false);
  assert.equal(isContiguous([1, 3], [99, 1]), true, "size-1 dimensions may have any stride");
  assert.deepEqual(AllocationDescriptor.optimized([4, 4], 4).kind, "optimized");
  assert.throws(() => AllocationDescriptor.contiguous([4, -1], 4), RangeError);
  assert.throws(() => AllocationDescriptor.contiguous([4], 0), RangeError);
  const { handle } = newHandle();
  assert.throws(() => copyDescriptor(handle.ref(), [4, 4], [4], 4), RangeError);
  assert.equal(handle.copyDescriptor([4, 4], [4, 1], 4).elemSize, 4);
  handle.dispose();
});

Deno.test("a binding fails after its last handle is disposed, even while work pins the memory", () => {
  const { handle, memory } = newHandle();
  const clone = handle.clone();
  const binding = handle.ref();
  const pin = memory.pin(); // queued work
  handle.dispose();
  binding.assertLive(); // the clone still owns the memory
  clone.dispose();
  assert.equal(memory.released, false, "the pin keeps the slice out of its pool");
  assert.equal(memory.disposed, true);
  assert.throws(
    () => binding.assertLive(),
    (error) => error instanceof InvalidHandleError && error.code === "INVALID_HANDLE",
  );
  const runtimePin = memory.pin(); // the runtime may still pin memory in flight
  runtimePin.release();
  pin.release();
  assert.equal(memory.released, true);
  assert.throws(() => memory.pin(), InvalidHandleError);
});
