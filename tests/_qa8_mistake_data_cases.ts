/**
 * QA wave 8, the mistakes table of the data calls (allocations, writes, reads, copies, streams):
 * see tests/_qa8_mistake_cases.ts.
 *
 * @module
 */
import { elementwise, random, reduce, sort } from "../mod.ts";
import { Tuner } from "../runtime/tune/mod.ts";
import type { Mistake } from "./_qa8_mistake_cases.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

/** Mistakes of the allocations, writes, reads and copies. */
export const DATA_MISTAKES: readonly Mistake[] = [
  {
    name: "zeros label a number",
    names: "label",
    run: (e) => e.client.zeros(4, "u32", { label: 5 as Any }),
  },
  {
    name: "full value a string",
    names: "value",
    run: (e) => e.client.full(4, "2" as Any, { dtype: "u32" }),
  },
  {
    name: "full value undefined",
    names: "value",
    run: (e) => e.client.full(4, undefined as Any, { dtype: "f32" }),
  },
  { name: "arange step 0", run: (e) => e.client.arange(3, "f32", { start: 2, step: 0 }) },
  { name: "arange step NaN", names: "step", run: (e) => e.client.arange(3, "f32", { step: NaN }) },
  {
    name: "arange u32 step 0.5",
    names: /step|u32|integer/,
    run: (e) => e.client.arange(3, "u32", { step: 0.5 }),
  },
  {
    name: "arange i32 past 2^31",
    names: /i32|fit|start|step/,
    run: (e) => e.client.arange(3, "i32", { start: 2 ** 31 - 2 }),
  },
  {
    name: "createTensor bad kind",
    names: "kind",
    run: (e) => e.client.createTensor([2, 2], "f32", { kind: "bogus" as Any }),
  },
  {
    name: "createTensor bad dtype",
    names: "dtype",
    run: (e) => e.client.createTensor([2, 2], "f33" as Any),
  },
  { name: "handle of a sibling client (read)", run: (e) => e.client.read(e.kin) },
  {
    name: "handle of a sibling client (write)",
    run: (e) => e.client.write(e.kin, new Uint32Array(4)),
  },
  { name: "handle of a sibling client (copyTo)", run: (e) => e.client.copyTo(e.kin, e.client) },
  {
    name: "handle of a sibling client (as destination)",
    run: (e) => e.sibling.copyTo(e.kin, e.client),
  },
  { name: "zeros -1", names: "length", run: (e) => e.client.zeros(-1, "u32") },
  { name: "zeros 1.5", names: "length", run: (e) => e.client.zeros(1.5, "u32") },
  { name: "zeros NaN", names: "length", run: (e) => e.client.zeros(NaN, "u32") },
  { name: "zeros string", names: "length", run: (e) => e.client.zeros("4" as Any, "u32") },
  { name: "zeros 2^53", names: "length", run: (e) => e.client.zeros(2 ** 53, "u32") },
  { name: "zeros bad dtype", names: "dtype", run: (e) => e.client.zeros(4, "f33" as Any) },
  { name: "zeros 0", run: (e) => e.client.zeros(0, "u32") },
  {
    name: "zeros option typo",
    names: "strem",
    run: (e) => e.client.zeros(4, "u32", { strem: 1 } as Any),
  },
  {
    name: "zeros stream -1",
    names: /stream/i,
    run: (e) => e.client.zeros(4, "u32", { stream: -1 }),
  },
  {
    name: "zeros options a number",
    names: "options",
    run: (e) => e.client.zeros(4, "u32", 3 as Any),
  },
  {
    name: "empty option typo",
    names: "lable",
    run: (e) => e.client.empty(4, "u32", { lable: "x" } as Any),
  },
  { name: "createBytes -4", names: /byteSize|size/, run: (e) => e.client.createBytes(-4) },
  { name: "full NaN u32", names: "value", run: (e) => e.client.full(4, NaN, { dtype: "u32" }) },
  { name: "full -1 u32", names: "value", run: (e) => e.client.full(4, -1, { dtype: "u32" }) },
  { name: "full 1.5 i32", names: "value", run: (e) => e.client.full(4, 1.5, { dtype: "i32" }) },
  {
    name: "full bigint f32",
    names: "value",
    run: (e) => e.client.full(4, 1n as Any, { dtype: "f32" }),
  },
  {
    name: "full option typo",
    names: "dtyp",
    run: (e) => e.client.full(4, 1, { dtyp: "u32" } as Any),
  },
  { name: "arange negative step", run: (e) => e.client.arange(3, "i32", { start: 2, step: -1 }) },
  {
    name: "arange u32 negative",
    names: /start|step|u32/,
    run: (e) => e.client.arange(3, "u32", { start: 0, step: -1 }),
  },
  {
    name: "arange option typo",
    names: "strat",
    run: (e) => e.client.arange(3, "u32", { strat: 1 } as Any),
  },
  {
    name: "createWithData plain array",
    names: "data",
    run: (e) => e.client.createWithData([1, 2] as Any),
  },
  { name: "createWithData null", names: "data", run: (e) => e.client.createWithData(null as Any) },
  {
    name: "createWithData DataView",
    run: (e) => e.client.createWithData(new DataView(new ArrayBuffer(4)) as Any),
  },
  { name: "createWithData empty", run: (e) => e.client.createWithData(new Uint32Array(0)) },
  {
    name: "createWithData option typo",
    names: "lable",
    run: (e) => e.client.createWithData(new Uint32Array(2), { lable: "x" } as Any),
  },
  {
    name: "createWithData stream NaN",
    names: /stream/i,
    run: (e) => e.client.createWithData(new Uint32Array(2), { stream: NaN }),
  },
  {
    name: "write too long",
    names: /length|elements|offset|bytes/,
    run: (e) => e.client.write(e.v, new Uint32Array(5)),
  },
  { name: "write shorter", run: (e) => e.client.write(e.v, new Uint32Array([7, 8])) },
  {
    name: "write wrong type",
    names: /Float32Array|type|u32/,
    run: (e) => e.client.write(e.v, new Float32Array(4)),
  },
  {
    name: "write i32 into u32",
    names: /Int32Array|type|u32/,
    run: (e) => e.client.write(e.v, new Int32Array(4)),
  },
  {
    name: "write plain array",
    names: "data",
    run: (e) => e.client.write(e.v, [1, 2, 3, 4] as Any),
  },
  { name: "write ArrayBuffer", run: (e) => e.client.write(e.v, new ArrayBuffer(16) as Any) },
  {
    name: "write offset past end",
    names: /offset|element 3/,
    run: (e) => e.client.write(e.v, new Uint32Array(2), { offset: 3 }),
  },
  {
    name: "write offset -1",
    names: "offset",
    run: (e) => e.client.write(e.v, new Uint32Array(2), { offset: -1 }),
  },
  {
    name: "write offset 1.5",
    names: "offset",
    run: (e) => e.client.write(e.v, new Uint32Array(2), { offset: 1.5 }),
  },
  {
    name: "write offset string",
    names: "offset",
    run: (e) => e.client.write(e.v, new Uint32Array(2), { offset: "1" } as Any),
  },
  {
    name: "write option typo",
    names: "offest",
    run: (e) => e.client.write(e.v, new Uint32Array(2), { offest: 1 } as Any),
  },
  {
    name: "write disposed",
    names: "dispose",
    run: (e) => e.client.write(e.gone, new Uint32Array(4)),
  },
  { name: "write foreign", run: (e) => e.client.write(e.foreign, new Uint32Array(4)) },
  {
    name: "write not a handle",
    names: "handle",
    run: (e) => e.client.write({} as Any, new Uint32Array(4)),
  },
  {
    name: "write view past end",
    names: /offset|bytes/,
    run: (e) => e.client.write(e.v.withOffsetStart(8), new Uint32Array(3)),
  },
  {
    name: "write stream -1",
    names: /stream/i,
    run: (e) => e.client.write(e.v, new Uint32Array(4), { stream: -1 }),
  },
  { name: "read Float32Array of u32", run: (e) => e.client.read(e.u, Float32Array as Any) },
  { name: "read Float64Array of 16 bytes", run: (e) => e.client.read(e.u, Float64Array as Any) },
  {
    name: "read Float64Array of 12 bytes",
    names: /bytes|Float64Array/,
    run: (e) => e.client.read(e.u.withOffsetEnd(12), Float64Array as Any),
  },
  { name: "read Array", names: "type", run: (e) => e.client.read(e.u, Array as Any) },
  { name: "read Object", names: "type", run: (e) => e.client.read(e.u, Object as Any) },
  { name: "read DataView", names: "type", run: (e) => e.client.read(e.u, DataView as Any) },
  { name: "read BigInt64Array of u32", run: (e) => e.client.read(e.u, BigInt64Array as Any) },
  { name: "read option typo", names: "strem", run: (e) => e.client.read(e.u, { strem: 1 } as Any) },
  {
    name: "read typed, option typo",
    names: "strem",
    run: (e) => e.client.read(e.u, Uint8Array as Any, { strem: 1 } as Any),
  },
  { name: "read stream 1.5", names: /stream/i, run: (e) => e.client.read(e.u, { stream: 1.5 }) },
  { name: "read disposed", names: "dispose", run: (e) => e.client.read(e.gone) },
  { name: "read foreign", run: (e) => e.client.read(e.foreign) },
  {
    name: "read not a handle",
    names: "handle",
    run: (e) => e.client.read(new Uint32Array(4) as Any),
  },
  { name: "readMany not an array", names: "handles", run: (e) => e.client.readMany(e.u as Any) },
  { name: "readMany disposed", names: "dispose", run: (e) => e.client.readMany([e.u, e.gone]) },
  { name: "readMany foreign", run: (e) => e.client.readMany([e.u, e.foreign]) },
  { name: "copyTo self", run: (e) => e.client.copyTo(e.u, e.client) },
  {
    name: "copyTo option typo",
    names: "strem",
    run: (e) => e.client.copyTo(e.u, e.client, { strem: 1 } as Any),
  },
  {
    name: "copyTo other option typo",
    names: "strem",
    run: (e) => e.client.copyTo(e.u, e.other, { strem: 1 } as Any),
  },
  {
    name: "copyTo chunkBytes 3",
    names: "chunkBytes",
    run: (e) => e.client.copyTo(e.u, e.client, { chunkBytes: 3 }),
  },
  {
    name: "copyTo chunkBytes -4",
    names: "chunkBytes",
    run: (e) => e.client.copyTo(e.u, e.client, { chunkBytes: -4 }),
  },
  {
    name: "copyTo destinationStream -1",
    names: "destinationStream",
    run: (e) => e.client.copyTo(e.u, e.client, { destinationStream: -1 }),
  },
  {
    name: "copyTo other, destinationStream string",
    names: "destinationStream",
    run: (e) => e.client.copyTo(e.u, e.other, { destinationStream: "1" as Any }),
  },
  {
    name: "copyTo target not a client",
    names: "destination",
    run: (e) => e.client.copyTo(e.u, {} as Any),
  },
  { name: "copyTo disposed", names: "dispose", run: (e) => e.client.copyTo(e.gone, e.client) },
  { name: "copyTo foreign", run: (e) => e.client.copyTo(e.foreign, e.client) },
  { name: "sync option typo", names: "strem", run: (e) => e.client.sync({ strem: 1 } as Any) },
  { name: "flush stream -1", names: /stream/i, run: (e) => e.client.flush({ stream: -1 }) },
  { name: "signal option typo", names: "strem", run: (e) => e.client.signal({ strem: 1 } as Any) },
  { name: "waitFor not a signal", names: "signal", run: (e) => e.client.waitFor({} as Any, 1n) },
  { name: "waitFor negative", names: "value", run: (e) => e.client.waitFor(e.client.timeline, -1) },
  {
    name: "waitFor option typo",
    names: "timeout",
    run: (e) => e.client.waitFor(e.client.timeline, 0, { timeout: 1 } as Any),
  },
  {
    name: "memoryCleanup option typo",
    names: "strem",
    run: (e) => e.client.memoryCleanup({ strem: 1 } as Any),
  },
  {
    name: "allocationMode bogus",
    names: "mode",
    run: (e) => e.client.allocationMode("bogus" as Any),
  },
  { name: "withStream -1", names: /stream/i, run: (e) => e.client.withStream(-1, () => 1) },
  { name: "withStream not a function", names: "fn", run: (e) => e.client.withStream(1, 3 as Any) },
  {
    name: "createTensor bad shape",
    names: "shape",
    run: (e) => e.client.createTensor([2, -1], "f32"),
  },
  {
    name: "Tuner option typo",
    names: "persistant",
    run: (e) => new Tuner(e.client, { persistant: false } as Any),
  },
  {
    name: "Tuner persistent string",
    names: "persistent",
    run: (e) => new Tuner(e.client, { persistent: "no" as Any }),
  },
  { name: "Tuner of no client", names: "client", run: () => new Tuner({} as Any) },
  {
    name: "profile perKernel string",
    names: "perKernel",
    run: (e) => e.client.profile(() => 1, { perKernel: "yes" as Any }),
  },
  { name: "profile not a function", names: "fn", run: (e) => e.client.profile(3 as Any) },
  { name: "capture not a function", names: "fn", run: (e) => e.client.capture(3 as Any) },
];

const square = elementwise({ inputs: ["x"], expression: "x * x" });

/** Calls on a client after its `destroy()` (its env made before). */
export const DESTROYED_MISTAKES: readonly Mistake[] = [
  {
    name: "execute",
    run: (e) =>
      e.client.execute(e.add as Any, { threads: 4, buffers: [e.u, e.v], params: { c: 1, n: 4 } }),
  },
  {
    name: "execute with bad params",
    run: (e) =>
      e.client.execute(e.add as Any, { threads: 4, buffers: [e.u, e.v], params: { c: -1 } }),
  },
  { name: "read", run: (e) => e.client.read(e.u) },
  { name: "readMany", run: (e) => e.client.readMany([e.u, e.v]) },
  { name: "write", run: (e) => e.client.write(e.v, new Uint32Array(4)) },
  { name: "zeros", run: (e) => e.client.zeros(4, "u32") },
  { name: "zeros of a bad length", run: (e) => e.client.zeros(-1, "u32") },
  { name: "createWithData", run: (e) => e.client.createWithData(new Uint32Array(4)) },
  { name: "full", run: (e) => e.client.full(4, 1, { dtype: "u32" }) },
  { name: "arange", run: (e) => e.client.arange(4, "u32") },
  { name: "createBytes", run: (e) => e.client.createBytes(16) },
  { name: "copyTo self", run: (e) => e.client.copyTo(e.u, e.client) },
  { name: "copyTo other", run: (e) => e.client.copyTo(e.u, e.other) },
  { name: "copyTo from the live other", run: (e) => e.other.copyTo(e.foreign, e.client) },
  { name: "sync", run: (e) => e.client.sync() },
  { name: "flush", run: (e) => e.client.flush() },
  { name: "signal", run: (e) => e.client.signal() },
  { name: "waitFor", run: (e) => e.client.waitFor(e.other.timeline, 0) },
  { name: "compile", run: (e) => e.client.compile(e.add as Any) },
  { name: "profile", run: (e) => e.client.profile(() => 1) },
  { name: "capture", run: (e) => e.client.capture(() => {}) },
  { name: "memoryUsage", run: (e) => e.client.memoryUsage() },
  { name: "memoryCleanup", run: (e) => e.client.memoryCleanup() },
  { name: "withStream", run: (e) => e.client.withStream(1, () => 1) },
  { name: "dispose a handle", run: (e) => e.u.dispose() },
  { name: "a view of a handle", run: (e) => e.u.withOffsetStart(4).length },
  { name: "its handle on the live other", run: (e) => e.other.read(e.u) },
  { name: "destroy again", run: (e) => e.client.destroy() },
  { name: "a helper", run: (e) => reduce(e.client, e.f) },
  { name: "an elementwise kernel", run: (e) => square.run(e.client, { x: e.f }) },
  { name: "random", run: (e) => random(e.client, 4, { seed: 1 }) },
  { name: "sort", run: (e) => sort(e.client, e.f) },
];
