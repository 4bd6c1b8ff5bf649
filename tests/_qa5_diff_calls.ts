/**
 * QA wave 5, the differential test's calls: random client calls through the public API, with bad
 * arguments mixed in (wrong dtypes, bad sizes, counts, offsets, streams, params and options,
 * disposed handles and handles of the other client), each a pure description that runs the same
 * on any client (tests/_qa5_diff_run.ts runs them on WebGPU and CUDA and compares).
 *
 * @module
 */
import fc from "fast-check";
import {
  argmax,
  bincount,
  type ComputeClient,
  dot,
  elementwise,
  gather,
  type Handle,
  histogram,
  matmul,
  random,
  reduce,
  reduction,
  scan,
  scatterAdd,
  sort,
  topk,
  transpose,
} from "../mod.ts";
import type { KernelMetadata } from "../backend.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

/** Handle slots every program works on. */
export const SLOTS = 4;

/** What a call works on: one client, its slots, and a handle of the other client. */
export interface DiffEnv {
  readonly client: ComputeClient;
  /** `y[i] = x[i] + c` for `i < n` over u32 (`buffers: [x, y]`, `params: { c, n }`). */
  readonly add: KernelMetadata;
  readonly slots: (Handle | undefined)[];
  /** A handle of the other client (4 u32). */
  readonly foreign: Handle;
  /** The other client. */
  readonly other: ComputeClient;
}

/** A call: its description (for the failure message) and what it does. */
export interface DiffCall {
  readonly name: string;
  /** Returns a value, a promise, a handle (read back) or nothing (`read` then names a slot). */
  run(env: DiffEnv): unknown;
  /** A slot read after the call succeeds (execute and write have no result of their own). */
  readonly readSlot?: number;
  /** The slot a returned handle goes to (else it is read and disposed). */
  readonly keep?: number;
}

const DTYPES = ["f32", "i32", "u32", "u8", "i8", "u16", "i16", "f16", "f64", "i64", "u64"];
const BAD_DTYPES = ["bytes", "f33", "", 3];
const dtype = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...DTYPES) },
  fc.constantFrom(...BAD_DTYPES),
);
/** Lengths and counts: mostly good, some negative, fractional, NaN, huge, or not numbers. */
const size = fc.oneof(
  { weight: 12, arbitrary: fc.integer({ min: 0, max: 20 }) },
  fc.constantFrom(-1, 1.5, NaN, Infinity, 2 ** 40, 2 ** 53, "4", undefined, 4n),
);
const stream = fc.oneof(
  { weight: 14, arbitrary: fc.constant(undefined) },
  fc.constantFrom(0, 1, 3, -1, 1.5, NaN, 2 ** 53, 2 ** 32, "1"),
);
const slot = fc.nat(SLOTS - 1);
/** A handle: a slot, or the other client's, or nothing. */
const handleRef = fc.oneof(
  { weight: 8, arbitrary: slot },
  fc.constantFrom("foreign", "none", "plain"),
);
const handleOf = (env: DiffEnv, ref: number | string): Any =>
  typeof ref === "number"
    ? env.slots[ref]
    : ref === "foreign"
    ? env.foreign
    : ref === "plain"
    ? new Uint32Array(4)
    : undefined;
const withStream = (options: Record<string, unknown>, s: unknown) =>
  s === undefined ? options : { ...options, stream: s };

const ARRAYS: Record<string, (n: number) => Any> = {
  f32: (n) => Float32Array.from({ length: n }, (_, i) => (i * 3) % 7 - 2),
  i32: (n) => Int32Array.from({ length: n }, (_, i) => (i * 5) % 9 - 4),
  u32: (n) => Uint32Array.from({ length: n }, (_, i) => (i * 7) % 11),
  u8: (n) => Uint8Array.from({ length: n }, (_, i) => i * 13),
  f64: (n) => new Float64Array(n).fill(1.5),
  u16: (n) => Uint16Array.from({ length: n }, (_, i) => i),
  buffer: (n) => new ArrayBuffer(n),
  plainArray: (n) => Array.from({ length: n }, (_, i) => i),
};
const arrayKind = fc.oneof(
  { weight: 3, arbitrary: fc.constant("own") },
  fc.constantFrom(...Object.keys(ARRAYS)),
);
/** Mostly false: an unknown option hides every other mistake of the call. */
const extraOption = fc.oneof({ weight: 7, arbitrary: fc.constant(false) }, fc.constant(true));
/** An array of kind `kind` ("own": of `handle`'s type) of `n` elements. */
function arrayOf(kind: string, n: number, handle?: Any): Any {
  if (kind !== "own") return ARRAYS[kind](n);
  const make = ARRAYS[handle?.dtype === "bytes" ? "u8" : handle?.dtype] ?? ARRAYS.u32;
  return make(n);
}

/** One random call. */
export const diffCall: fc.Arbitrary<DiffCall> = fc.oneof(
  // Allocation of every kind and dtype.
  {
    weight: 3,
    arbitrary: fc.tuple(
      fc.constantFrom("zeros", "full", "arange", "createWithData", "empty", "createBytes"),
      size,
      dtype,
      fc.constantFrom<Any>(0, 3, -1, 1.5, 2 ** 31, 2 ** 32, NaN, 1e40, 7n, "2"),
      arrayKind,
      slot,
      stream,
      extraOption,
    ).map(([kind, n, t, value, array, to, s, extra]): DiffCall => ({
      name: `${kind}(${String(n)}, ${String(t)}, value ${String(value)}, ${array}, stream ${
        String(s)
      }${extra ? ", unknown option" : ""})`,
      keep: to,
      run: ({ client }) => {
        const o: Any = withStream(extra ? { bogus: 1 } : {}, s);
        switch (kind) {
          case "zeros":
            return client.zeros(n as Any, t as Any, o);
          case "full":
            return client.full(n as Any, value, { ...o, dtype: t });
          case "arange":
            return client.arange(n as Any, t as Any, o);
          case "createBytes": // uninitialised: not read
            client.createBytes(n as Any, o).dispose();
            return "made";
          case "empty":
            client.empty(n as Any, t as Any, o).dispose();
            return "made";
          default:
            return client.createWithData(
              arrayOf(
                array === "own" ? "f32" : array,
                typeof n === "number" && n >= 0 && n < 64 ? n : 4,
              ),
              o,
            );
        }
      },
    })),
  },
  // Writes: of any array type, length and offset.
  {
    weight: 2,
    arbitrary: fc.tuple(handleRef, arrayKind, size, size, stream).map(
      ([h, array, n, at, s]): DiffCall => ({
        name: `write(${h}, ${array}[${String(n)}], offset ${String(at)}, stream ${String(s)})`,
        readSlot: typeof h === "number" ? h : undefined,
        run: (env) => {
          const length = typeof n === "number" && n >= 0 && n < 64 ? n : 3;
          const options: Any = withStream(at === undefined ? {} : { offset: at }, s);
          const handle = handleOf(env, h);
          env.client.write(handle, arrayOf(array, length, handle), options);
        },
      }),
    ),
  },
  // Reads: as own type, as another, with a stream.
  fc.tuple(handleRef, fc.constantFrom(undefined, Uint8Array, Float32Array, Float64Array), stream)
    .map(([h, type, s]): DiffCall => ({
      name: `read(${h}, ${type?.name}, stream ${String(s)})`,
      run: (env) => {
        const options: Any = withStream({}, s);
        return type === undefined
          ? env.client.read(handleOf(env, h), options)
          : env.client.read(handleOf(env, h), type as Any, options);
      },
    })),
  // Views: in and out of range.
  fc.tuple(
    slot,
    fc.boolean(),
    fc.constantFrom<Any>(0, 4, 8, 16, 64, 256, -4, 2, 1.5, NaN, 2 ** 40, "4"),
    slot,
  ).map(([h, start, bytes, to]): DiffCall => ({
    name: `slot ${h}.${start ? "withOffsetStart" : "withOffsetEnd"}(${String(bytes)})`,
    keep: to,
    run: ({ slots }) => {
      const handle: Any = slots[h];
      return start ? handle.withOffsetStart(bytes) : handle.withOffsetEnd(bytes);
    },
  })),
  fc.tuple(slot).map(([h]): DiffCall => ({
    name: `dispose slot ${h}`,
    run: ({ slots }) => {
      (slots[h] as Any)?.dispose();
      return "disposed";
    },
  })),
  // The add kernel, with bad buffers, params, threads and options.
  {
    weight: 3,
    arbitrary: fc.tuple(
      handleRef,
      slot,
      fc.constantFrom("ok", "ok", "ok", "one buffer", "three buffers"),
      fc.constantFrom<Any>(1, 5, 0, -1, 1.5, 2 ** 32, 2 ** 31, NaN, "1", 1n, undefined),
      fc.constantFrom("ok", "ok", "ok", "missing n", "extra", "n as string", "params missing"),
      fc.constantFrom<Any>(undefined, undefined, undefined, 0, 1, 4, -1, 1.5, NaN, 2 ** 40),
      stream,
      extraOption,
    ).map(([x, y, buffers, c, pshape, threads, s, extra]): DiffCall => ({
      name: `execute add(x ${x}, y ${y}, ${buffers}, c ${String(c)}, ${pshape}, threads ${
        String(threads)
      }, stream ${String(s)}${extra ? ", unknown option" : ""})`,
      readSlot: y,
      run: (env) => {
        const hx = handleOf(env, x), hy: Any = env.slots[y];
        const n = Math.min(hx?.length ?? 0, hy?.length ?? 0);
        const list = buffers === "ok" ? [hx, hy] : buffers === "one buffer" ? [hx] : [hx, hy, hy];
        const params: Any = pshape === "missing n"
          ? { c }
          : pshape === "extra"
          ? { c, n, z: 1 }
          : pshape === "n as string"
          ? { c, n: String(n) }
          : { c, n };
        const options: Any = withStream(
          {
            threads: threads ?? n,
            buffers: list,
            ...(pshape === "params missing" ? {} : { params }),
            ...(extra ? { bogus: true } : {}),
          },
          s,
        );
        env.client.execute(env.add as Any, options);
      },
    })),
  },
  // Copies to the other client (and back).
  fc.tuple(handleRef, stream).map(([h, s]): DiffCall => ({
    name: `copyTo(${h}, other, stream ${String(s)})`,
    run: (env) => {
      const copy = env.client.copyTo(handleOf(env, h), env.other, withStream({}, s) as Any);
      return env.other.read(copy).finally(() => copy.dispose());
    },
  })),
  { weight: 5, arbitrary: fc.tuple(fc.nat(), handleRef, handleRef, stream).map(primitive) },
);

const square = elementwise({ inputs: ["x"], expression: "x * x" });
const total = reduction({ inputs: ["x"], combine: "a + b", identity: "0.0" });

/** The primitives and helpers, each with one of its good or bad argument sets. */
function primitive([pick, a, b, s]: [number, number | string, number | string, unknown]): DiffCall {
  // Two programs in three take each option's good values (the first two of each list).
  const good = (pick >> 22) % 3 !== 0;
  const of = <T>(list: T[], bits: number): T => list[(pick >> bits) % (good ? 2 : list.length)];
  const shapes: Any[] = [undefined, [4, 4], [2, 2], [3, 0], [-1, 4], [1.5, 2], [2, 8]];
  const shape = of(shapes, 0);
  const axis = of([undefined, 0, 1, 2, -1, 0.5], 3);
  const k = of([1, 2, 0, -1, 1.5, 100, NaN], 6);
  const bins = of([4, 1, 0, -2, 2.5, 2 ** 31], 9);
  const range: Any = of([[0, 4], [-2, 8], [4, 0], [0, NaN], [1, 1]], 12);
  const op = of(["sum", "max", "min", "prod", "mean", "bogus"], 14);
  const extra = !good && ((pick >> 17) & 3) === 0 ? { bogus: 1 } : {};
  const o = (more: Record<string, unknown>): Any => withStream({ ...more, ...extra }, s);
  const kinds: [string, (env: DiffEnv, x: Any, y: Any) => unknown][] = [
    ["reduce", (e, x) => reduce(e.client, x, o({ op, shape, axis }))],
    ["dot", (e, x, y) => dot(e.client, [x, y], o({ shape, axis }))],
    ["scan", (e, x) => scan(e.client, x, o({ op, shape, axis, exclusive: k === 2 }))],
    ["sort", (e, x) => sort(e.client, x, o({ descending: k === 1 }))],
    ["sort pairs", (e, x, y) => sort(e.client, x, o({ values: y }))],
    ["argmax", (e, x) => argmax(e.client, x, o({ shape, axis }))],
    ["topk", (e, x) => topk(e.client, x, k, o({ shape }))],
    ["histogram", (e, x) => histogram(e.client, x, o({ bins, range }))],
    ["bincount", (e, x) => bincount(e.client, x, o({ length: bins }))],
    ["gather", (e, x, y) => gather(e.client, x, y, o({}))],
    ["gather checked", (e, x, y) => gather(e.client, x, y, o({ check: true }))],
    ["scatterAdd", (e, x, y) => scatterAdd(e.client, x, y, x, o({}))],
    ["transpose", (e, x) => transpose(e.client, x, o({ shape }))],
    ["matmul", (e, x, y) => matmul(e.client, x, y, o({ m: k, n: 2, k: bins }))],
    ["random", (e) => random(e.client, bins, o({ seed: k, dtype: op === "sum" ? "u32" : "f32" }))],
    ["elementwise", (e, x) => square.run(e.client, { x }, o({}))],
    ["reduction", (e, x) => total.run(e.client, { x }, o({}))],
  ];
  const [name, call] = kinds[(pick >> 24) % kinds.length];
  return {
    name: `${name}(${a}, ${b}; op ${op}, shape ${JSON.stringify(shape)}, axis ${axis}, k ${k}, ` +
      `bins ${bins}, range ${JSON.stringify(range)}, stream ${String(s)}${
        "bogus" in extra ? ", unknown option" : ""
      })`,
    run: (env) => call(env, handleOf(env, a), handleOf(env, b)),
  };
}
