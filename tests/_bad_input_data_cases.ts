/**
 * Bad-input cases of typed data and the helpers (issue #18): typed constructors, handle views,
 * typed reads and writes, launches checked against the WGSL's element types, large launches
 * that cannot be folded, element-wise and reduction helpers, streams and signals.
 */
import { CpuTimelineSignal } from "../sync/mod.ts";
import { CubeCount, elementwise, reduce, reduction, type WgslKernel } from "../mod.ts";
import { any, bad, type Case, disposed, type Env } from "./_bad_input.ts";
import { increment } from "./_wgsl_kernels.ts";

const vec3: WgslKernel = {
  id: "vec3_read",
  source: `
@group(0) @binding(0) var<storage, read> p: array<vec3f>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3u) {
  if (g.x < arrayLength(&out)) { out[g.x] = p[g.x].x; } }`,
};

const viaStruct: WgslKernel = {
  id: "via_struct",
  source: `
struct In { @builtin(global_invocation_id) gid: vec3u }
@group(0) @binding(0) var<storage, read_write> y: array<u32>;
@compute @workgroup_size(64) fn main(input: In) { if (input.gid.x < 1u) { y[0] = 1u; } }`,
};

const saxpy = elementwise({ inputs: ["x", "y"], params: { a: "f32" }, expression: "a * x + y" });
const norm = reduction({ inputs: ["x"], combine: "a + b", identity: "0.0" });
const launch = (env: Env, options: Record<string, unknown>) =>
  env.client.execute(increment, any({ buffers: [env.data], ...options }));
const max = (env: Env) => env.server.properties.maxAllocationSize;

/** The cases. */
export const DATA_CASES: Case[] = [
  // Typed constructors count elements, and never round, wrap or clamp a value.
  ["empty -1 elements", (env) => env.client.empty(-1), RangeError],
  ["empty 1.5 elements", (env) => env.client.empty(1.5), RangeError],
  ["empty '4' elements", (env) => env.client.empty(any("4")), TypeError],
  ["empty of dtype f128", (env) => env.client.empty(4, any("f128")), TypeError],
  ["empty of dtype bytes", (env) => env.client.empty(4, any("bytes")), TypeError],
  ["empty with options null", (env) => env.client.empty(4, "f32", any(null)), TypeError],
  ["empty over the device limit", (env) => env.client.empty(max(env) / 4 + 1), "BUFFER_TOO_BIG"],
  ["empty past the safe integers", (env) => env.client.empty(2 ** 52, "f64"), RangeError],
  ["zeros -1", (env) => env.client.zeros(-1), RangeError],
  ["zeros of dtype 'x'", (env) => env.client.zeros(4, any("x")), TypeError],
  ["zeros with options 'x'", (env) => env.client.zeros(4, "u32", any("x")), TypeError],
  ["full with a string", (env) => env.client.full(4, any("1")), TypeError],
  ["full u8 with 256", (env) => env.client.full(4, 256, { dtype: "u8" }), RangeError],
  ["full u32 with -1", (env) => env.client.full(4, -1, { dtype: "u32" }), RangeError],
  ["full i32 with 1.5", (env) => env.client.full(4, 1.5, { dtype: "i32" }), RangeError],
  ["full i32 with 2**31", (env) => env.client.full(4, 2 ** 31, { dtype: "i32" }), RangeError],
  ["full f32 with a bigint", (env) => env.client.full(4, 1n, { dtype: "f32" }), TypeError],
  ["full u64 with 2n**64n", (env) => env.client.full(4, 2n ** 64n, { dtype: "u64" }), RangeError],
  ["full u64 with -1n", (env) => env.client.full(4, -1n, { dtype: "u64" }), RangeError],
  ["full i64 with 2**53", (env) => env.client.full(4, 2 ** 53, { dtype: "i64" }), TypeError],
  ["full of dtype 'bogus'", (env) => env.client.full(4, 1, { dtype: any("bogus") }), TypeError],
  ["arange past u8", (env) => env.client.arange(300, "u8"), RangeError],
  ["arange u32 from -1", (env) => env.client.arange(4, "u32", { start: -1 }), RangeError],
  ["arange i32 by 0.5", (env) => env.client.arange(4, "i32", { step: 0.5 }), RangeError],
  ["arange from NaN", (env) => env.client.arange(4, "f32", { start: NaN }), TypeError],
  ["arange by Infinity", (env) => env.client.arange(4, "f32", { step: Infinity }), TypeError],
  ["arange -1", (env) => env.client.arange(-1), RangeError],
  [
    "arange i32 past 2**31 - 1",
    (env) => env.client.arange(4, "i32", { start: 2 ** 31 - 2 }),
    RangeError,
  ],
  [
    "createWithData of a DataView",
    (env) => env.client.createWithData(any(new DataView(new ArrayBuffer(4)))),
    TypeError,
  ],
  [
    "createWithData of a plain array",
    (env) => env.client.createWithData(any([1, 2, 3])),
    TypeError,
  ],
  ["createWithData of null", (env) => env.client.createWithData(any(null)), TypeError],
  [
    "createWithData with label 5",
    (env) => env.client.createWithData(new Float32Array(1), { label: any(5) }),
    TypeError,
  ],
  ["createBytes with label {}", (env) => env.client.createBytes(4, { label: any({}) }), TypeError],
  ["createTensor of bytes", (env) => env.client.createTensor([2, 2], any("bytes")), TypeError],
  ["createTensor of shape '2'", (env) => env.client.createTensor(any("2"), "f32"), TypeError],
  // Handles: views keep to whole elements.
  ["12 bytes as f64", (env) => env.odd.as("f64").dispose(), RangeError],
  ["as('bogus')", (env) => env.odd.as(any("bogus")), TypeError],
  ["u32 handle from byte 2", (env) => env.odd.withOffsetStart(2), RangeError],
  ["u32 handle cut by 3 bytes", (env) => env.odd.withOffsetEnd(3), RangeError],
  ["offset past the end", (env) => env.odd.withOffsetStart(16), RangeError],
  ["as() of a disposed handle", (env) => disposed(env).as("u32"), "INVALID_HANDLE"],
  ["clone of a disposed handle", (env) => disposed(env).clone(), "INVALID_HANDLE"],
  // Reads and writes keep to the handle's type.
  ["read u32 as Float32Array", (env) => env.client.read(env.data, Float32Array), TypeError],
  [
    "readMany mixed as Float32Array",
    (env) => env.client.readMany([env.data, env.floats], Float32Array),
    TypeError,
  ],
  ["read as a Map", (env) => env.client.read(env.data, any(Map)), TypeError],
  ["readMany with null", (env) => env.client.readMany([env.data, any(null)]), TypeError],
  ["write f32 data into u32", (env) => env.client.write(env.data, new Float32Array(1)), TypeError],
  ["write i32 data into u32", (env) => env.client.write(env.data, new Int32Array(1)), TypeError],
  [
    "write 3 raw bytes into u32",
    (env) => env.client.write(env.data, new ArrayBuffer(3)),
    RangeError,
  ],
  [
    "write at element 1.5",
    (env) => env.client.write(env.data, new Uint32Array(1), { offset: 1.5 }),
    RangeError,
  ],
  [
    "write at element '1'",
    (env) => env.client.write(env.data, new Uint32Array(1), { offset: any("1") }),
    TypeError,
  ],
  [
    "write a DataView",
    (env) => env.client.write(env.data, any(new DataView(new ArrayBuffer(4)))),
    TypeError,
  ],
  [
    "write with options null",
    (env) => env.client.write(env.data, new Uint32Array(1), any(null)),
    TypeError,
  ],
  // Launches are checked against the WGSL's element types.
  ["f32 handle into array<u32>", (env) => bad(env, { buffers: [env.floats] }), "KERNEL_ARGUMENT"],
  ["i32 handle into array<u32>", (env) => bad(env, { buffers: [env.ints] }), "KERNEL_ARGUMENT"],
  ["u8 handle into array<u32>", (env) => bad(env, { buffers: [env.bytes] }), "KERNEL_ARGUMENT"],
  [
    "6 floats into array<vec3f>",
    (env) => {
      using packed = env.client.createWithData(new Float32Array(6));
      env.client.execute(vec3, { threads: 2, buffers: [packed, env.floats] });
    },
    "KERNEL_ARGUMENT",
  ],
  ["threads -1", (env) => launch(env, { threads: -1 }), RangeError],
  ["threads 1.5", (env) => launch(env, { threads: 1.5 }), RangeError],
  ["threads '4'", (env) => launch(env, { threads: "4" }), TypeError],
  ["threads 2**32", (env) => launch(env, { threads: 2 ** 32 }), RangeError],
  [
    "threads and count",
    (env) => launch(env, { threads: 4, count: CubeCount.newSingle() }),
    TypeError,
  ],
  ["neither threads nor count", (env) => launch(env, {}), TypeError],
  [
    "2-D threads past the limit",
    (env) => launch(env, { threads: [64 * 70_000, 2] }),
    "KERNEL_ARGUMENT",
  ],
  [
    "a fold through a struct parameter",
    (env) => env.client.execute(viaStruct, { threads: 5_000_000, buffers: [env.data] }),
    "KERNEL_ARGUMENT",
  ],
  // Element-wise helpers.
  ["elementwise without expression", () => elementwise(any({ inputs: ["x"] })), TypeError],
  [
    "elementwise input of f64",
    () => elementwise({ inputs: { x: any("f64") }, expression: "x" }),
    RangeError,
  ],
  ["elementwise input named i", () => elementwise({ inputs: ["i"], expression: "i" }), RangeError],
  [
    "elementwise raw f64 input",
    () => elementwise({ inputs: { x: any("raw f64") }, expression: "1.0" }),
    RangeError,
  ],
  ["elementwise input missing", (env) => saxpy.run(env.client, { x: env.floats }), RangeError],
  [
    "elementwise input of i32",
    (env) => saxpy.run(env.client, { x: env.floats, y: env.ints }),
    TypeError,
  ],
  [
    "elementwise inputs of two lengths",
    (env) => {
      using y = env.client.zeros(5);
      saxpy.run(env.client, { x: env.floats, y });
    },
    RangeError,
  ],
  [
    "elementwise output too small",
    (env) => {
      using out = env.client.zeros(2);
      saxpy.run(env.client, { x: env.floats, y: env.floats }, { out, params: { a: 1 } });
    },
    RangeError,
  ],
  [
    "elementwise param missing",
    (env) => saxpy.run(env.client, { x: env.floats, y: env.floats }),
    "KERNEL_ARGUMENT",
  ],
  // Reductions.
  ["reduce op prod", (env) => reduce(env.client, env.floats, { op: any("prod") }), RangeError],
  ["reduce of u8", (env) => reduce(env.client, any(env.bytes)), TypeError],
  ["mean of i32", (env) => reduce(env.client, env.ints, { op: "mean" }), RangeError],
  [
    "reduce shape of 6 for 4",
    (env) => reduce(env.client, env.floats, { shape: [2, 3] }),
    RangeError,
  ],
  [
    "reduce axis 2",
    (env) => reduce(env.client, env.floats, { shape: [2, 2], axis: any(2) }),
    RangeError,
  ],
  ["reduce axis without shape", (env) => reduce(env.client, env.floats, { axis: 0 }), RangeError],
  [
    "reduce shape [-1, -4]",
    (env) => reduce(env.client, env.floats, { shape: [-1, -4] }),
    RangeError,
  ],
  [
    "reduce into a small out",
    (env) => {
      using out = env.client.zeros(1);
      reduce(env.client, env.floats, { shape: [2, 2], out });
    },
    RangeError,
  ],
  [
    "reduction without combine",
    () => reduction(any({ inputs: ["x"], identity: "0.0" })),
    TypeError,
  ],
  [
    "reduction input named nan",
    () => reduction({ inputs: ["nan"], combine: "a + b", identity: "0.0" }),
    RangeError,
  ],
  [
    "reduction of two inputs without map",
    () => reduction({ inputs: ["x", "y"], combine: "a + b", identity: "0.0" }),
    RangeError,
  ],
  [
    "reduction of no input",
    () => reduction({ inputs: [], combine: "a + b", identity: "0.0" }),
    RangeError,
  ],
  ["reduction input missing", (env) => norm.run(env.client, {}), RangeError],
  ["reduction of i32 for f32", (env) => norm.run(env.client, { x: env.ints }), TypeError],
  // Streams, signals, profiles, compilation.
  ["waitFor null", (env) => env.client.waitFor(any(null), 1), TypeError],
  [
    "waitFor with timeout -1",
    (env) => env.client.waitFor(new CpuTimelineSignal(), 1, { timeoutMs: -1 }),
    RangeError,
  ],
  [
    "waitFor on stream -1",
    (env) => env.client.waitFor(new CpuTimelineSignal(), 1, { stream: -1 }),
    RangeError,
  ],
  ["withStream '1'", (env) => env.client.withStream(any("1"), () => 0), TypeError],
  ["signal on stream 1.5", (env) => env.client.signal({ stream: 1.5 }), RangeError],
  ["profile on stream -1", (env) => env.client.profile(() => 0, { stream: -1 }), RangeError],
  [
    "profile perKernel 'yes'",
    (env) => env.client.profile(() => 0, { perKernel: any("yes") }),
    TypeError,
  ],
  ["memoryUsage on stream -1", (env) => env.client.memoryUsage({ stream: -1 }), RangeError],
  ["allocationMode bogus (client)", (env) => env.client.allocationMode(any("bogus")), RangeError],
  ["compile null", (env) => env.client.compile(any(null)), TypeError],
  ["compile a source of 5", (env) => env.client.compile(any({ source: 5 })), TypeError],
  [
    "compile bad WGSL",
    (env) => env.client.compile({ id: `bad_${Math.random()}`, source: "fn main( {" }),
    "COMPILATION",
  ],
];
