/**
 * Bad-input cases of launches, memory and the server API (issue #7, item 9): scalars, cube
 * counts, buffers, kernels, allocations, reads and writes, streams, server calls.
 */
import { AllocationDescriptor, KernelArguments } from "../backend.ts";
import { CubeCount } from "../mod.ts";
import {
  any,
  bad,
  bigInfo,
  buffers,
  type Case,
  count,
  disposed,
  kernel,
  scalars,
  wgsl,
} from "./_bad_input.ts";
import { increment, typeMismatch, vec4Store } from "./_wgsl_kernels.ts";

/** The cases. */
export const LAUNCH_CASES: Case[] = [
  // Scalars that do not fit their type are never coerced.
  ["u32 -1", scalars({ u32: [-1] }), RangeError],
  ["u32 1.5", scalars({ u32: [1.5] }), RangeError],
  ["u32 NaN", scalars({ u32: [NaN] }), RangeError],
  ["u32 2**32", scalars({ u32: [2 ** 32] }), RangeError],
  ["u32 Infinity", scalars({ u32: [Infinity] }), RangeError],
  ["u32 string", scalars({ u32: ["1"] }), TypeError],
  ["u32 bigint", scalars({ u32: [1n] }), TypeError],
  ["i32 2**31", scalars({ i32: [2 ** 31] }), RangeError],
  ["i32 below -2**31", scalars({ i32: [-(2 ** 31) - 1] }), RangeError],
  ["i8 128", scalars({ i8: [128] }), RangeError],
  ["u8 256", scalars({ u8: [256] }), RangeError],
  ["i16 -32769", scalars({ i16: [-32769] }), RangeError],
  ["u16 65536", scalars({ u16: [65536] }), RangeError],
  ["u64 -1n", scalars({ u64: [-1n] }), RangeError],
  ["u64 2n**64n", scalars({ u64: [2n ** 64n] }), RangeError],
  ["i64 2n**63n", scalars({ i64: [2n ** 63n] }), RangeError],
  ["u64 unsafe number", scalars({ u64: [2 ** 53] }), RangeError],
  ["f32 string", scalars({ f32: ["x"] }), TypeError],
  ["f32 1e39", scalars({ f32: [1e39] }), RangeError],
  ["f16 70000", scalars({ f16: [70000] }), RangeError],
  ["f32 bigint", scalars({ f32: [1n] }), TypeError],
  ["f64 null", scalars({ f64: [null] }), TypeError],
  ["unknown storage type", scalars({ u33: [1] }), TypeError],
  ["scalars not an array", scalars({ f32: 1.5 }), TypeError],
  ["scalars not an object", scalars("f32"), TypeError],
  // Hand-built cube counts are checked at execute.
  ["count x -1", count({ kind: "static", x: -1, y: 1, z: 1 }), RangeError],
  ["count x 1.5", count({ kind: "static", x: 1.5, y: 1, z: 1 }), RangeError],
  ["count x NaN", count({ kind: "static", x: NaN, y: 1, z: 1 }), RangeError],
  ["count x 2**32", count({ kind: "static", x: 2 ** 32, y: 1, z: 1 }), RangeError],
  ["count x string", count({ kind: "static", x: "1", y: 1, z: 1 }), TypeError],
  ["count without y", count({ kind: "static", x: 1, z: 1 }), TypeError],
  ["count of unknown kind", count({ kind: "bogus", x: 1, y: 1, z: 1 }), TypeError],
  ["count null", count(null), TypeError],
  ["count missing", count(undefined), TypeError],
  ["dynamic count without ref", count({ kind: "dynamic", ref: null }), TypeError],
  [
    "dynamic count of 4 bytes",
    (env) => bad(env, { count: { kind: "dynamic", ref: env.small.ref() } }),
    RangeError,
  ],
  [
    "2-D count over the device limit (only [G, 1, 1] folds)",
    (env) =>
      bad(env, {
        count: CubeCount.new2d(env.server.device.limits.maxComputeWorkgroupsPerDimension + 1, 2),
      }),
    "KERNEL_ARGUMENT",
  ],
  ["CubeCount.new1d(-1)", () => CubeCount.new1d(-1), RangeError],
  // Buffers.
  ["buffers [null]", buffers(() => [null]), TypeError],
  ["buffers [undefined]", buffers(() => [undefined]), TypeError],
  ["buffers [{}]", buffers(() => [{}]), TypeError],
  ["buffers a string", buffers(() => "abc"), TypeError],
  ["buffers [disposed handle]", buffers((env) => [disposed(env)]), "INVALID_HANDLE"],
  ["buffers [binding of a disposed handle]", (env) => {
    const doomed = env.client.createWithData(new Uint32Array(4));
    const binding = doomed.ref();
    env.client.flush();
    doomed.dispose();
    bad(env, { buffers: [binding] });
  }, "INVALID_HANDLE"],
  ["one buffer too many", buffers((env) => [env.data, env.small]), "KERNEL_ARGUMENT"],
  ["misaligned buffer offset", (env) => {
    using tail = env.data.withOffsetStart(4);
    bad(env, { buffers: [tail] });
  }, RangeError],
  ["kernel null", (env) => bad(env, {}, null), TypeError],
  ["kernel a string", (env) => bad(env, {}, "increment"), TypeError],
  ["kernel without source", kernel({ source: undefined }), TypeError],
  ["workgroup size 0", kernel({ workgroupSize: [0, 1, 1] }), TypeError],
  ["workgroupSize other than the WGSL's", kernel({ workgroupSize: [32, 1, 1] }), "KERNEL_ARGUMENT"],
  [
    "WGSL workgroup size over the device limit",
    kernel({
      workgroupSize: undefined,
      source: increment.source.replace("@workgroup_size(64)", "@workgroup_size(4096)"),
    }),
    "COMPILATION",
  ],
  ["WGSL syntax error (reported by sync)", async (env) => {
    env.client.execute(wgsl("syntax_error", increment.source.replace("+= 1u", "+= ;")), {
      count: CubeCount.newSingle(),
      buffers: [env.data],
    });
    await env.client.sync();
  }, "COMPILATION"],
  [
    "@group past maxBindGroups",
    kernel({ source: increment.source.replace("@group(0)", "@group(9)") }),
    "COMPILATION",
  ],
  ["type error (reported by sync)", async (env) => {
    env.client.execute(typeMismatch, { count: CubeCount.newSingle(), buffers: [env.data] });
    await env.client.sync();
  }, "COMPILATION"],
  ["missing entry point", kernel({ entryPoint: "nope" }), "KERNEL_ARGUMENT"],
  [
    "binding smaller than the WGSL needs",
    (env) => env.client.execute(vec4Store, { count: CubeCount.newSingle(), buffers: [env.small] }),
    "KERNEL_ARGUMENT",
  ],
  [
    "info buffer smaller than the WGSL needs",
    (env) =>
      env.server.execute({
        kernel: bigInfo,
        count: CubeCount.newSingle(),
        args: new KernelArguments().withBuffer(env.data.ref()).withScalar("u32", [1]),
      }, 0),
    "KERNEL_ARGUMENT",
  ],
  [
    "server execute mode bogus",
    (env) =>
      env.server.execute(
        any({
          kernel: increment,
          count: CubeCount.newSingle(),
          args: new KernelArguments().withBuffer(env.data.ref()),
          mode: "fast",
        }),
        0,
      ),
    RangeError,
  ],
  ["execute options null", (env) => env.client.execute(increment, any(null)), TypeError],
  [
    "metadata not a Uint32Array",
    (env) => bad(env, { metadata: { data: [1, 2], staticLength: 1 } }),
    TypeError,
  ],
  [
    "metadata staticLength too long",
    (env) => bad(env, { metadata: { data: new Uint32Array(1), staticLength: 2 } }),
    RangeError,
  ],
  ["tensor maps", (env) =>
    env.server.execute({
      kernel: increment,
      count: CubeCount.newSingle(),
      args: new KernelArguments().withBuffer(env.data.ref()).withTensorMaps([{
        ref: env.data.ref(),
        shape: [64],
        strides: [1],
        storageType: "u32",
      }]),
    }, 0), "UNSUPPORTED"],
  // Memory and copies.
  ["create -1 bytes", (env) => env.client.createBytes(-1), RangeError],
  ["create 1.5 bytes", (env) => env.client.createBytes(1.5), RangeError],
  ["create '4' bytes", (env) => env.client.createBytes(any("4")), TypeError],
  [
    "create over the device limit",
    (env) => env.client.createBytes(env.server.properties.maxAllocationSize + 4),
    "BUFFER_TOO_BIG",
  ],
  ["createTensor negative dim", (env) => env.client.createTensor([2, -1], "f32"), RangeError],
  ["createTensor dtype 0", (env) => env.client.createTensor([2], any(0)), TypeError],
  [
    "createTensor kind bogus",
    (env) => env.client.createTensor([2], "f32", any({ kind: "bogus" })),
    RangeError,
  ],
  ["createWithData string", (env) => env.client.createWithData(any("abc")), TypeError],
  ["create with options null", (env) => env.client.createBytes(4, any(null)), TypeError],
  ["write past the end", (env) => env.client.write(env.data, new Uint32Array(65)), RangeError],
  [
    "write offset -4",
    (env) => env.client.write(env.data, new Uint32Array(1), { offset: -4 }),
    RangeError,
  ],
  [
    "write offset 64 elements (one past the end)",
    (env) => env.client.write(env.data, new Uint32Array(1), { offset: 64 }),
    RangeError,
  ],
  [
    "write to a disposed handle",
    (env) => env.client.write(disposed(env), new Uint32Array(1)),
    "INVALID_HANDLE",
  ],
  ["write to null", (env) => env.client.write(any(null), new Uint32Array(1)), TypeError],
  ["read a disposed handle", (env) => env.client.read(disposed(env)), "INVALID_HANDLE"],
  ["read null", (env) => env.client.read(any(null)), TypeError],
  ["read a u32 handle as Float64Array", (env) => env.client.read(env.odd, Float64Array), TypeError],
  [
    "read 12 untyped bytes as Float64Array",
    (env) => env.client.read(env.odd.as("bytes"), Float64Array),
    RangeError,
  ],
  ["read as a string type", (env) => env.client.read(env.data, any("Float32Array")), TypeError],
  ["readMany of a string", (env) => env.client.readMany(any("x")), TypeError],
  ["stream -1", (env) => env.client.flush({ stream: -1 }), RangeError],
  ["stream 1.5", (env) => env.client.sync({ stream: 1.5 }), RangeError],
  ["stream '0'", (env) => env.client.read(env.data, { stream: any("0") }), TypeError],
  ["withStream -1", (env) => env.client.withStream(-1, () => 0), RangeError],
  // Server calls (the backend-author API).
  [
    "server read out of range",
    (env) => env.server.read([env.data.copyDescriptor([65], [1], 4)], 0),
    RangeError,
  ],
  [
    "server strided read",
    (env) => env.server.read([env.data.copyDescriptor([8, 4], [8, 2], 4)], 0),
    "UNSUPPORTED_STRIDES",
  ],
  ["server read [null]", (env) => env.server.read([any(null)], 0), TypeError],
  ["server read of a non-array", (env) => env.server.read(any("x"), 0), TypeError],
  [
    "server create bad descriptor",
    (env) => env.server.create([any({ kind: "contiguous", shape: "x", elemSize: 4 })], 0),
    TypeError,
  ],
  ["server create null descriptor", (env) => env.server.create([any(null)], 0), TypeError],
  [
    "server write string data",
    (env) =>
      env.server.write(
        [{ descriptor: env.small.copyDescriptor([1], [1], 4), data: any("abcd") }],
        0,
      ),
    TypeError,
  ],
  [
    "server write wrong size",
    (env) =>
      env.server.write([{
        descriptor: env.small.copyDescriptor([1], [1], 4),
        data: new Uint8Array(8),
      }], 0),
    RangeError,
  ],
  ["server staging", (env) => env.server.staging([8], 0), "UNSUPPORTED"],
  [
    "endProfile of an unknown token",
    (env) => env.server.endProfile(0, { id: 1e9 }),
    "PROFILE_NOT_REGISTERED",
  ],
  ["allocationMode bogus", (env) => env.server.allocationMode(any("bogus"), 0), RangeError],
  [
    "copyTo a non-WebGPU server",
    (env) =>
      env.server.copyTo(any({}), env.data.copyDescriptor([1], [1], 4), {
        source: 0,
        destination: 0,
      }),
    TypeError,
  ],
  [
    "server execute bindings not KernelArguments",
    (env) =>
      env.server.execute(any({ kernel: increment, count: CubeCount.newSingle(), args: {} }), 0),
    TypeError,
  ],
  [
    "server execute with a Handle as a HandleRef",
    (env) =>
      env.server.execute({
        kernel: increment,
        count: CubeCount.newSingle(),
        args: new KernelArguments().withBuffer(any(env.data)),
      }, 0),
    TypeError,
  ],
];

/** Not a server call, but the same family: descriptors are checked before any server sees them. */
LAUNCH_CASES.push([
  "AllocationDescriptor with a bad shape",
  () => AllocationDescriptor.contiguous(any("x"), 4),
  TypeError,
]);
