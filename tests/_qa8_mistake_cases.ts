/**
 * QA wave 8, the mistakes table: mistaken calls through the public API, each a pure description
 * that runs the same on any client (tests/cuda_qa8_mistakes_test.ts runs each on a WebGPU and a
 * CUDA client and compares), with the word its error's message must contain (the argument).
 *
 * @module
 */
import type { MistakeEnv } from "./_qa8_mistake_run.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

/** One mistaken call. */
export interface Mistake {
  readonly name: string;
  /** What the error's message must contain on both backends (the argument's name). */
  readonly names?: string | RegExp;
  /** What the call needs made first (a captured graph): made, given to `run`, then disposed. */
  readonly prepare?: (env: MistakeEnv) => Promise<Disposable>;
  readonly run: (env: MistakeEnv, prepared?: Any) => unknown;
  /** The outcomes where the backends differ by design, and why. */
  readonly documented?: { readonly webgpu: string; readonly cuda: string; readonly why: string };
}

/** `execute(add, ...)` with `more` over a correct launch of `u` into `v`. */
const add = (more: Record<string, unknown>) => (e: MistakeEnv) =>
  e.client.execute(e.add as Any, {
    threads: 4,
    buffers: [e.u, e.v],
    params: { c: 1, n: 4 },
    ...more,
  });
/** `execute(mix, ...)` with `params` over a correct launch of `f` into `g`. */
const mix =
  (params: Record<string, unknown>, more: Record<string, unknown> = {}) => (e: MistakeEnv) =>
    e.client.execute(e.mix as Any, {
      threads: 4,
      buffers: [e.f, e.g],
      params: { a: 1, s: 2, n: 4, ...params },
      ...more,
    });

/** Mistakes of `execute`. */
export const EXECUTE_MISTAKES: readonly Mistake[] = [
  { name: "correct add", run: add({}) },
  { name: "correct mix", run: mix({}) },
  { name: "f32 handle for u32 x", names: "x", run: (e) => add({ buffers: [e.f, e.v] })(e) },
  { name: "i32 handle for u32 y", names: "y", run: (e) => add({ buffers: [e.u, e.i] })(e) },
  { name: "u32 handle for f32 x", names: "x", run: (e) => mix({}, { buffers: [e.u, e.g] })(e) },
  {
    name: "f32 handle for u32 by name",
    names: "y",
    run: (e) => add({ buffers: { x: e.u, y: e.g } })(e),
  },
  { name: "param missing", names: "n", run: add({ params: { c: 1 } }) },
  { name: "params missing", names: "params", run: add({ params: undefined }) },
  { name: "params null", names: "params", run: add({ params: null }) },
  { name: "params a number", names: "params", run: add({ params: 3 }) },
  { name: "params an array", names: "params", run: add({ params: [1, 4] }) },
  { name: "unknown param", names: "z", run: add({ params: { c: 1, n: 4, z: 1 } }) },
  { name: "u32 negative", names: "c", run: add({ params: { c: -1, n: 4 } }) },
  { name: "u32 NaN", names: "c", run: add({ params: { c: NaN, n: 4 } }) },
  { name: "u32 fraction", names: "c", run: add({ params: { c: 1.5, n: 4 } }) },
  { name: "u32 2^32", names: "c", run: add({ params: { c: 2 ** 32, n: 4 } }) },
  { name: "u32 Infinity", names: "c", run: add({ params: { c: Infinity, n: 4 } }) },
  { name: "u32 bigint", run: add({ params: { c: 1n, n: 4 } }) },
  { name: "u32 bigint too big", names: "c", run: add({ params: { c: 2n ** 40n, n: 4 } }) },
  { name: "u32 bigint negative", names: "c", run: add({ params: { c: -1n, n: 4 } }) },
  { name: "u32 string", names: "c", run: add({ params: { c: "1", n: 4 } }) },
  { name: "u32 boolean", names: "c", run: add({ params: { c: true, n: 4 } }) },
  { name: "u32 null", names: "c", run: add({ params: { c: null, n: 4 } }) },
  { name: "u32 array", names: "c", run: add({ params: { c: [1], n: 4 } }) },
  { name: "u32 -0", run: add({ params: { c: -0, n: 4 } }) },
  { name: "i32 fraction", names: "a", run: mix({ a: 1.5 }) },
  { name: "i32 2^31", names: "a", run: mix({ a: 2 ** 31 }) },
  { name: "i32 -2^31", run: mix({ a: -(2 ** 31) }) },
  { name: "i32 -2^31-1", names: "a", run: mix({ a: -(2 ** 31) - 1 }) },
  { name: "i32 NaN", names: "a", run: mix({ a: NaN }) },
  { name: "i32 bigint", run: mix({ a: -3n }) },
  { name: "f32 string", names: "s", run: mix({ s: "2" }) },
  { name: "f32 bigint", names: "s", run: mix({ s: 2n }) },
  { name: "f32 NaN", run: mix({ s: NaN, n: 0 }) },
  { name: "f32 Infinity", run: mix({ s: Infinity, n: 0 }) },
  { name: "f32 1e40", names: "s", run: mix({ s: 1e40 }) },
  { name: "f32 fraction", run: mix({ s: 0.5 }) },
  { name: "too few buffers", names: "buffers", run: (e) => add({ buffers: [e.u] })(e) },
  { name: "too many buffers", names: "buffers", run: (e) => add({ buffers: [e.u, e.v, e.v] })(e) },
  { name: "no buffers", names: "buffers", run: add({ buffers: [] }) },
  { name: "buffers undefined", names: "buffers", run: add({ buffers: undefined }) },
  { name: "buffers a handle", names: "buffers", run: (e) => add({ buffers: e.u })(e) },
  { name: "buffers a number", names: "buffers", run: add({ buffers: 3 }) },
  {
    name: "buffer a typed array",
    names: "buffers",
    run: (e) => add({ buffers: [new Uint32Array(4), e.v] })(e),
  },
  { name: "buffer null", names: "buffers", run: (e) => add({ buffers: [null, e.v] })(e) },
  { name: "buffers by name", run: (e) => add({ buffers: { x: e.u, y: e.v } })(e) },
  {
    name: "buffers by wrong name",
    names: "z",
    run: (e) => add({ buffers: { x: e.u, z: e.v } })(e),
  },
  { name: "buffers by name, one missing", names: "y", run: (e) => add({ buffers: { x: e.u } })(e) },
  {
    name: "buffers by name, one extra",
    names: "w",
    run: (e) => add({ buffers: { x: e.u, y: e.v, w: e.v } })(e),
  },
  { name: "disposed handle", names: "dispose", run: (e) => add({ buffers: [e.gone, e.v] })(e) },
  { name: "disposed ref", names: "dispose", run: (e) => add({ buffers: [e.gone.ref(), e.v] })(e) },
  { name: "handle of another client", run: (e) => add({ buffers: [e.foreign, e.v] })(e) },
  { name: "handle of a sibling client", run: (e) => add({ buffers: [e.kin, e.v] })(e) },
  { name: "scalars on a user kernel", run: add({ scalars: { u32: [1] } }) },
  { name: "metadata on a user kernel", run: add({ metadata: { data: [1] } }) },
  { name: "ref", run: (e) => add({ buffers: [e.u.ref(), e.v.ref()] })(e) },
  {
    name: "view",
    run: (e) => add({ buffers: [e.u.withOffsetEnd(8), e.v], params: { c: 1, n: 2 } })(e),
  },
  {
    name: "view out of bounds",
    names: /offset|bytes/,
    run: (e) => add({ buffers: [e.u.withOffsetStart(20), e.v] })(e),
  },
  {
    name: "view negative",
    names: /offset|bytes/,
    run: (e) => add({ buffers: [e.u.withOffsetStart(-4), e.v] })(e),
  },
  {
    name: "view fraction",
    names: /offset|bytes/,
    run: (e) => add({ buffers: [e.u.withOffsetStart(1.5), e.v] })(e),
  },
  { name: "same handle read and written", run: (e) => add({ buffers: [e.v, e.v] })(e) },
  { name: "threads 0", run: add({ threads: 0 }) },
  { name: "threads -1", names: "threads", run: add({ threads: -1 }) },
  { name: "threads 1.5", names: "threads", run: add({ threads: 1.5 }) },
  { name: "threads NaN", names: "threads", run: add({ threads: NaN }) },
  { name: "threads 2^32", names: "threads", run: add({ threads: 2 ** 32 }) },
  { name: "threads 2^40", names: "threads", run: add({ threads: 2 ** 40 }) },
  { name: "threads string", names: "threads", run: add({ threads: "4" }) },
  { name: "threads bigint", names: "threads", run: add({ threads: 4n }) },
  { name: "threads [4]", run: add({ threads: [4] }) },
  { name: "threads [4, 1, 1]", run: add({ threads: [4, 1, 1] }) },
  { name: "threads [4, 0]", run: add({ threads: [4, 0] }) },
  { name: "threads [4, -1]", names: "threads", run: add({ threads: [4, -1] }) },
  {
    name: "threads [1, 70000]: past the device's y limit",
    names: "threads",
    run: add({ threads: [1, 70000] }),
  },
  {
    name: "count y 70000: past the device's y limit",
    names: "count",
    run: add({ threads: undefined, count: { kind: "static", x: 1, y: 70000, z: 1 } }),
  },
  {
    name: "count z 70000: past the device's z limit",
    names: "count",
    run: add({ threads: undefined, count: { kind: "static", x: 1, y: 1, z: 70000 } }),
  },
  { name: "threads []", names: "threads", run: add({ threads: [] }) },
  { name: "threads [1, 1, 1, 1]", names: "threads", run: add({ threads: [1, 1, 1, 1] }) },
  {
    name: "threads and count",
    names: /threads|count/,
    run: add({ count: { kind: "static", x: 1, y: 1, z: 1 } }),
  },
  { name: "neither threads nor count", names: /threads|count/, run: add({ threads: undefined }) },
  {
    name: "count static",
    run: add({ threads: undefined, count: { kind: "static", x: 1, y: 1, z: 1 } }),
  },
  {
    name: "count 0",
    run: add({ threads: undefined, count: { kind: "static", x: 0, y: 1, z: 1 } }),
  },
  {
    name: "count -1",
    names: "count",
    run: add({ threads: undefined, count: { kind: "static", x: -1, y: 1, z: 1 } }),
  },
  {
    name: "count 1.5",
    names: "count",
    run: add({ threads: undefined, count: { kind: "static", x: 1.5, y: 1, z: 1 } }),
  },
  // `count: n` and `count: [x, y, z]` are workgroup counts (client_count_forms_test)
  { name: "count a string", names: "count", run: add({ threads: undefined, count: "1" }) },
  { name: "count a negative number", names: "count", run: add({ threads: undefined, count: -1 }) },
  {
    name: "count an array of four",
    names: "count",
    run: add({ threads: undefined, count: [1, 1, 1, 1] }),
  },
  {
    name: "count unknown kind",
    names: "count",
    run: add({ threads: undefined, count: { kind: "x", x: 1, y: 1, z: 1 } }),
  },
  {
    name: "count too large",
    names: "count",
    run: add({ threads: undefined, count: { kind: "static", x: 2 ** 32, y: 1, z: 1 } }),
  },
  {
    name: "count dynamic, ref too small",
    names: /count|bytes/,
    run: (e) =>
      add({ threads: undefined, count: { kind: "dynamic", ref: e.u.withOffsetEnd(8).ref() } })(e),
  },
  {
    name: "count dynamic, disposed",
    names: "dispose",
    run: (e) => add({ threads: undefined, count: { kind: "dynamic", ref: e.gone.ref() } })(e),
  },
  {
    name: "count dynamic, foreign",
    run: (e) => add({ threads: undefined, count: { kind: "dynamic", ref: e.foreign.ref() } })(e),
  },
  { name: "stream 1", run: add({ stream: 1 }) },
  { name: "stream -1", names: /stream/i, run: add({ stream: -1 }) },
  { name: "stream 1.5", names: /stream/i, run: add({ stream: 1.5 }) },
  { name: "stream NaN", names: /stream/i, run: add({ stream: NaN }) },
  { name: "stream string", names: /stream/i, run: add({ stream: "1" }) },
  { name: "stream null", names: /stream/i, run: add({ stream: null }) },
  { name: "stream 2^53", names: /stream/i, run: add({ stream: 2 ** 53 }) },
  { name: "stream bigint", names: /stream/i, run: add({ stream: 1n }) },
  { name: "option typo", names: "thread", run: add({ thread: 4 }) },
  { name: "option typo param", names: "param", run: add({ param: { c: 1, n: 4 } }) },
  {
    name: "overrides unknown",
    names: /W|override/,
    run: add({ overrides: { W: 1 } }),
    documented: {
      webgpu: "throws at the call: KernelArgumentError KERNEL_ARGUMENT (overrides.W)",
      cuda: "throws at the call: UnsupportedError UNSUPPORTED",
      why: "override constants are WGSL's: the CUDA backend has none (README, Overrides)",
    },
  },
  { name: "overrides not an object", names: "overrides", run: add({ overrides: 3 }) },
  {
    name: "samplers on a kernel with none",
    names: "samplers",
    run: add({ samplers: [{}] }),
    documented: {
      webgpu: "throws at the call: KernelArgumentError KERNEL_ARGUMENT (samplers)",
      cuda: "throws at the call: UnsupportedError UNSUPPORTED",
      why: "samplers are WGSL's: the CUDA backend has none (README, textures and samplers)",
    },
  },
  { name: "samplers []", run: add({ samplers: [] }) },
  { name: "overrides {}", run: add({ overrides: {} }) },
  {
    name: "kernel null",
    names: "kernel",
    run: (e) => e.client.execute(null as Any, { threads: 1 }),
  },
  { name: "kernel {}", names: "kernel", run: (e) => e.client.execute({} as Any, { threads: 1 }) },
  {
    name: "options missing",
    names: "options",
    run: (e) => e.client.execute(e.add as Any, undefined as Any),
  },
  {
    name: "options a number",
    names: "options",
    run: (e) => e.client.execute(e.add as Any, 3 as Any),
  },
];
