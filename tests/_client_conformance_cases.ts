/**
 * The client conformance table (issue #26): the mistakes a new user makes most, each with the
 * error it must get at the call, whatever the backend and whether the stream is held. The runner
 * is in `client_conformance.ts`.
 */
import {
  type ComputeClient,
  CpuTimelineSignal,
  CubeCount,
  gather,
  type Handle,
  histogram,
  sort,
  topk,
} from "../mod.ts";
import type { KernelMetadata } from "../backend.ts";
import type { WgslKernel } from "../runtime/server/webgpu/mod.ts";

/** What every case works on (made afresh for each case). */
export interface CaseEnv<K extends KernelMetadata = KernelMetadata> {
  readonly client: ComputeClient<K>;
  /** Another client of the same backend (its handles are foreign to `client`). */
  readonly other: ComputeClient<K>;
  /** A destroyed client. */
  readonly destroyed: ComputeClient<K>;
  /** `v[i] *= s` for `i < n`: buffers `[v: f32]`, metadata `[n]`, scalars `{ f32: [s] }`. */
  readonly scale: K;
  /** 4 f32 of `client`. */
  readonly floats: Handle<"f32">;
  /** 4 i32 of `client`. */
  readonly ints: Handle<"i32">;
  /** 4 f32 of `other`. */
  readonly foreign: Handle<"f32">;
  /** A disposed handle of `client`. */
  readonly disposed: Handle<"f32">;
}

/** `v[i] *= s` for `i < n`, with `n` and `s` in CubeCL's info buffer (word 0, then word 4). */
export const scaleWgsl: WgslKernel = {
  id: "conformance.scale",
  source: `
@group(0) @binding(0) var<storage, read_write> v: array<f32>;
@group(0) @binding(1) var<storage, read> info: array<u32>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3u) {
  if (id.x < info[0]) { v[id.x] = v[id.x] * bitcast<f32>(info[4]); }
}`,
};

/** The error class a case expects. */
export type ErrorClass = abstract new (...args: never[]) => Error;

/** One mistake and the error it gets. */
export interface Case {
  readonly name: string;
  /** The call; a promise for the asynchronous APIs (its rejection is the error). */
  readonly act: (env: CaseEnv) => unknown;
  /** The error class (a `ComputeError` subclass, `TypeError`, `RangeError`). */
  readonly error: ErrorClass;
  /** The `code` of a `ComputeError`. */
  readonly code?: string;
  /** The argument the error names: in `error.argument` when present, else in the message. */
  readonly names: RegExp;
  /** Backends whose kernels declare element types and sizes (WGSL reflection). */
  readonly typedKernels?: boolean;
  /** A helper or primitive (`topk`, `histogram`, ...): backends that have their kernel text. */
  readonly helpers?: boolean;
  /** Why the case runs on an idle stream only (it needs the device to answer). */
  readonly idleOnly?: string;
}

/** Passes a bad value where the types would refuse it. */
const any = (value: unknown): never => value as never;
/** A launch of the scale kernel on `v` with `options` replaced. */
const launch = (env: CaseEnv, options: Record<string, unknown>, v: unknown = env.floats) =>
  env.client.execute(env.scale, any({ ...scaleOptions(v as Handle, 4, 2), ...options }));

/** The options of a correct scale launch. */
export function scaleOptions(v: Handle, n: number, s: number): Record<string, unknown> {
  return {
    threads: n,
    buffers: [v],
    metadata: { data: new Uint32Array([n]), staticLength: 1 },
    scalars: { f32: [s] },
  };
}

/** The mistakes: `[name, act, class or ComputeError code, what it names]`, or a whole case. */
const ROWS: readonly (Row | Case)[] = [
  // execute: the buffers
  ["disposed handle", (e) => launch(e, {}, e.disposed), "INVALID_HANDLE", /after dispose/],
  ["another client's handle", (e) => launch(e, {}, e.foreign), "INVALID_HANDLE", /another client/],
  ["buffers not an array", (e) => launch(e, { buffers: e.floats }), TypeError, /buffers/],
  ["a number as buffer", (e) => launch(e, { buffers: [1] }), TypeError, /buffers\[0\]/],
  [
    "a typed array as buffer",
    (e) => launch(e, { buffers: [new Float32Array(4)] }),
    TypeError,
    /buffers\[0\]/,
  ],
  [
    "kernel null",
    (e) => e.client.execute(any(null), any(scaleOptions(e.floats, 4, 2))),
    TypeError,
    /kernel/,
  ],
  ["options null", (e) => e.client.execute(e.scale, any(null)), TypeError, /options/],
  // execute: the count
  [
    "threads and count",
    (e) => launch(e, { count: CubeCount.newSingle() }),
    TypeError,
    /threads or count/,
  ],
  [
    "neither threads nor count",
    (e) => launch(e, { threads: undefined }),
    TypeError,
    /threads or count/,
  ],
  ["threads -1", (e) => launch(e, { threads: -1 }), RangeError, /threads x/],
  ["threads 1.5", (e) => launch(e, { threads: 1.5 }), RangeError, /threads x/],
  ["threads 2**32", (e) => launch(e, { threads: 2 ** 32 }), RangeError, /threads x/],
  ["threads a string", (e) => launch(e, { threads: "4" }), TypeError, /threads/],
  [
    "count a plain object",
    (e) => launch(e, { threads: undefined, count: { x: 1 } }),
    TypeError,
    /count/i,
  ],
  // execute: scalars and metadata
  [
    "u32 scalar -1",
    (e) => launch(e, { scalars: { f32: [2], u32: [-1] } }),
    RangeError,
    /u32 scalar 0/,
  ],
  [
    "f32 scalar overflows",
    (e) => launch(e, { scalars: { f32: [1e40] } }),
    RangeError,
    /f32 scalar 0 1e\+40 overflows/,
  ],
  ["f32 scalar a string", (e) => launch(e, { scalars: { f32: ["2"] } }), TypeError, /f32 scalar 0/],
  [
    "misspelled scalar type",
    (e) => launch(e, { scalars: { f23: [2] } }),
    TypeError,
    /scalars\.f23/,
  ],
  ["scalars not an array", (e) => launch(e, { scalars: { f32: 2 } }), TypeError, /f32/],
  ["metadata not words", (e) => launch(e, { metadata: [4] }), TypeError, /metadata/],
  // execute: what the kernel declares (WGSL reflection)
  {
    name: "i32 handle for an f32 binding",
    act: (e) => launch(e, {}, e.ints),
    error: Error,
    code: "KERNEL_ARGUMENT",
    names: /buffers\[0\]/,
    typedKernels: true,
  },
  {
    name: "one buffer too many",
    act: (e) => launch(e, { buffers: [e.floats, e.floats] }),
    error: Error,
    code: "KERNEL_ARGUMENT",
    names: /buffers/,
    typedKernels: true,
  },
  {
    name: "misspelled param",
    act: (e) => launch(e, { params: { nn: 4 } }),
    error: Error,
    code: "KERNEL_ARGUMENT",
    names: /params/,
    typedKernels: true,
  },
  // creation
  ["createWithData of an array", (e) => e.client.createWithData(any([1, 2])), TypeError, /data/],
  [
    "createWithData of a DataView",
    (e) => e.client.createWithData(any(new DataView(new ArrayBuffer(4)))),
    TypeError,
    /data/,
  ],
  ["empty(-1)", (e) => e.client.empty(-1), RangeError, /length/],
  ["empty(1.5)", (e) => e.client.empty(1.5), RangeError, /length/],
  ["misspelled dtype", (e) => e.client.empty(4, any("f33")), TypeError, /dtype/],
  [
    "zeros past the safe integers",
    (e) => e.client.zeros(2 ** 53, "f64"),
    RangeError,
    /safe|length/,
  ],
  // Past the device's largest allocation: refused before a host array of that size is made.
  ["zeros past the device limit", (e) => e.client.zeros(2 ** 40), "BUFFER_TOO_BIG", /4 TiB/],
  ["full past the device limit", (e) => e.client.full(2 ** 40, 1), "BUFFER_TOO_BIG", /4 TiB/],
  ["arange past the device limit", (e) => e.client.arange(2 ** 40), "BUFFER_TOO_BIG", /4 TiB/],
  ["full f32 overflow", (e) => e.client.full(4, 1e40), RangeError, /value 1e\+40 overflows f32/],
  [
    "full f16 overflow",
    (e) => e.client.full(4, 70000, { dtype: "f16" }),
    RangeError,
    /value 70000 overflows f16/,
  ],
  ["full i32 1.5", (e) => e.client.full(4, 1.5, { dtype: "i32" }), RangeError, /value 1.5/],
  ["full u8 256", (e) => e.client.full(4, 256, { dtype: "u8" }), RangeError, /value 256/],
  ["full of a string", (e) => e.client.full(4, any("1")), TypeError, /value/],
  ["arange u32 from -1", (e) => e.client.arange(3, "u32", { start: -1 }), RangeError, /start/],
  ["arange step NaN", (e) => e.client.arange(3, "f32", { step: NaN }), TypeError, /step/],
  ["stream -1", (e) => e.client.zeros(4, "f32", { stream: -1 }), RangeError, /stream/i],
  // write and read
  [
    "write i32 data into f32",
    (e) => e.client.write(e.floats, any(new Int32Array(4))),
    TypeError,
    /Int32Array/,
  ],
  [
    "write past the end",
    (e) => e.client.write(e.floats, new Float32Array(5)),
    RangeError,
    /Cannot write 20 bytes/,
  ],
  [
    "write at offset 3 of 4",
    (e) => e.client.write(e.floats, new Float32Array(2), { offset: 3 }),
    RangeError,
    /at element 3/,
  ],
  [
    "write a disposed handle",
    (e) => e.client.write(e.disposed, new Float32Array(4)),
    "INVALID_HANDLE",
    /after dispose/,
  ],
  [
    "write another client's handle",
    (e) => e.client.write(e.foreign, new Float32Array(4)),
    "INVALID_HANDLE",
    /another client/,
  ],
  [
    "read as another type",
    (e) => e.client.read(e.floats, any(Int32Array)),
    TypeError,
    /Int32Array/,
  ],
  ["read a disposed handle", (e) => e.client.read(e.disposed), "INVALID_HANDLE", /after dispose/],
  [
    "read another client's handle",
    (e) => e.client.read(e.foreign),
    "INVALID_HANDLE",
    /another client/,
  ],
  ["readMany of a non-array", (e) => e.client.readMany(any(e.floats)), TypeError, /handles/],
  // copyTo, waitFor, destroyed clients
  [
    "copyTo another client's handle",
    (e) => e.client.copyTo(e.foreign, e.other),
    "INVALID_HANDLE",
    /handle: .*another client/,
  ],
  [
    "copyTo a disposed handle",
    (e) => e.client.copyTo(e.disposed, e.other),
    "INVALID_HANDLE",
    /after dispose/,
  ],
  [
    "copyTo chunkBytes 3",
    (e) => e.client.copyTo(e.floats, e.other, { chunkBytes: 3 }),
    RangeError,
    /chunkBytes/,
  ],
  ["copyTo a non-client", (e) => e.client.copyTo(e.floats, any({})), TypeError, /destination/],
  ["waitFor a non-signal", (e) => e.client.waitFor(any({}), 1), TypeError, /signal/],
  [
    "waitFor value -1",
    (e) => e.client.waitFor(new CpuTimelineSignal(), -1),
    RangeError,
    /^value must be/,
  ],
  [
    "waitFor timeoutMs -1",
    (e) => e.client.waitFor(new CpuTimelineSignal(), 1, { timeoutMs: -1 }),
    RangeError,
    /timeoutMs/,
  ],
  [
    "execute on a destroyed client",
    (e) => e.destroyed.execute(e.scale, any(scaleOptions(e.floats, 4, 2))),
    "DESTROYED",
    /destroyed/,
  ],
  ["zeros on a destroyed client", (e) => e.destroyed.zeros(4), "DESTROYED", /destroyed/],
  ["read on a destroyed client", (e) => e.destroyed.read(e.floats), "DESTROYED", /destroyed/],
  // helpers and primitives (issue #30)
  helper("topk with k > n", (e) => topk(e.client, e.floats, 5), RangeError, /\bk\b/),
  helper(
    "histogram with bins 0",
    (e) => histogram(e.client, e.floats, { bins: 0, range: [0, 1] }),
    RangeError,
    /bins/,
  ),
  helper(
    "sort of u8 keys",
    (e) => {
      using bytes = e.client.empty(4, "u8");
      return sort(e.client, bytes as never);
    },
    TypeError,
    /keys/,
  ),
  {
    ...helper(
      "gather of an index out of range, checked",
      async (e) => {
        using indices = e.client.createWithData(new Uint32Array([0, 9, 1]));
        return await gather(e.client, e.floats, indices, { check: true });
      },
      RangeError,
      /indices\[1\] is 9/,
    ),
    idleOnly:
      "the check reads the indices' verdict from the device, which a held stream has not run",
  },
];

/** A case of a helper or primitive. */
function helper(
  name: string,
  act: (env: CaseEnv) => unknown,
  error: ErrorClass,
  names: RegExp,
): Case {
  return { name, act, error, names, helpers: true };
}

/** The table. */
export const CASES: readonly Case[] = ROWS.map((row) =>
  Array.isArray(row) ? toCase(row as Row) : row as Case
);

type Row = [string, (env: CaseEnv) => unknown, ErrorClass | string, RegExp];

function toCase([name, act, expected, names]: Row): Case {
  return typeof expected === "string"
    ? { name, act, error: Error, code: expected, names }
    : { name, act, error: expected, names };
}
