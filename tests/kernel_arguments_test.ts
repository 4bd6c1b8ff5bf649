import assert from "node:assert/strict";
import {
  CubeCount,
  Handle,
  KernelArguments,
  ScalarArgument,
  SliceHandle,
  SliceRecord,
} from "../backend.ts";

Deno.test("scalars are encoded little-endian per storage type", () => {
  const f32 = ScalarArgument.from("f32", [1.5, -2]);
  assert.deepEqual([...new Float32Array(f32.bytes.buffer)], [1.5, -2]);
  const u64 = ScalarArgument.from("u64", [2n ** 40n + 1n]);
  assert.equal(new DataView(u64.bytes.buffer).getBigUint64(0, true), 2n ** 40n + 1n);
  const i16 = ScalarArgument.from("i16", [-3, 7]);
  assert.deepEqual([...new Int16Array(i16.bytes.buffer)], [-3, 7]);
  const bf16 = ScalarArgument.from("bf16", [1]);
  assert.equal(new DataView(bf16.bytes.buffer).getUint16(0, true), 0x3f80);
  assert.throws(() => ScalarArgument.from("f128" as "f32", [1]), TypeError);
});

Deno.test("bindings collect buffers, scalars by type, metadata and tensor maps", () => {
  using handle = new Handle(new SliceHandle(new SliceRecord()), {
    stream: 1,
    cursor: 2,
    size: 32,
  });
  const bindings = new KernelArguments()
    .withBuffer(handle.ref())
    .withScalar("u32", [1, 2])
    .withScalar("u32", [9])
    .withMetadata({ data: new Uint32Array([3, 4, 5]), staticLength: 2 })
    .withTensorMaps([{ ref: handle.ref(), shape: [8], strides: [1], storageType: "f32" }]);
  assert.equal(bindings.scalars.get("u32")?.length, 1, "a later call replaces scalars of a type");
  assert.equal(bindings.refs().length, 2);
  assert.throws(
    () => bindings.withMetadata({ data: new Uint32Array(1), staticLength: 2 }),
    RangeError,
  );
  assert.equal(bindings.metadata.staticLength, 2, "rejected metadata leaves the old one");
});

Deno.test("cube counts check u32 dimensions and dynamic buffers", () => {
  assert.deepEqual(CubeCount.new2d(3, 4), { kind: "static", x: 3, y: 4, z: 1 });
  assert.deepEqual(CubeCount.newSingle(), CubeCount.new3d(1, 1, 1));
  assert.throws(() => CubeCount.new1d(2 ** 32), RangeError);
  assert.throws(() => CubeCount.new1d(-1), RangeError);
  assert.throws(() => CubeCount.new1d(Number("x")), RangeError);
  using small = new Handle(new SliceHandle(new SliceRecord()), {
    stream: 0,
    cursor: 0,
    size: 8,
  });
  assert.throws(() => CubeCount.dynamic(small.ref()), RangeError);
  using enough = new Handle(new SliceHandle(new SliceRecord()), {
    stream: 0,
    cursor: 0,
    size: 12,
  });
  assert.equal(CubeCount.dynamic(enough.ref()).kind, "dynamic");
});
