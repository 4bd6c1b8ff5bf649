/**
 * QA wave 8, the mistakes table of graphs (capture, replay), of element types beyond the 4-byte
 * ones, of kernels that do not compile, and of timeline waits: see tests/_qa8_mistake_cases.ts.
 *
 * @module
 */
import { CpuTimelineSignal, reduce } from "../mod.ts";
import type { Mistake } from "./_qa8_mistake_cases.ts";
import type { MistakeEnv } from "./_qa8_mistake_run.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

const launch = (e: MistakeEnv, params: Record<string, unknown> = { c: 1, n: 4 }) =>
  e.client.execute(e.add as Any, { threads: 4, buffers: [e.u, e.v], params: params as Any });

/** A replay of the captured add launch with `options` (the graph captured first). */
const replay = (options: unknown): Pick<Mistake, "prepare" | "run"> => ({
  prepare: (e) => e.client.capture(() => launch(e)),
  run: (_, graph) => graph.replay(options),
});

/** A kernel each backend refuses to compile: a WGSL and a CUDA C syntax error. */
const broken = (e: MistakeEnv) =>
  e.client.server.properties.backend === "cuda"
    ? { source: `extern "C" __global__ void k(unsigned* y) { y[0] = ; }` }
    : {
      source: `@group(0) @binding(0) var<storage, read_write> y: array<u32>;
@compute @workgroup_size(1) fn main() { y[0] = ; }`,
    };

/** A kernel that reads a name it never declared. */
const undeclared = (e: MistakeEnv) =>
  e.client.server.properties.backend === "cuda"
    ? { source: `extern "C" __global__ void k(unsigned* y) { y[0] = zz; }` }
    : {
      source: `@group(0) @binding(0) var<storage, read_write> y: array<u32>;
@compute @workgroup_size(1) fn main() { y[0] = zz; }`,
    };

/** A kernel of 2,048 threads per workgroup (block): beyond either device's 1,024. */
const tooWide = (e: MistakeEnv) =>
  e.client.server.properties.backend === "cuda"
    ? {
      source:
        `extern "C" __global__ void k(unsigned* y) { if (threadIdx.x < 4) y[threadIdx.x] = 1u; }`,
      blockSize: [2048, 1, 1],
    }
    : {
      source: `@group(0) @binding(0) var<storage, read_write> y: array<u32>;
@compute @workgroup_size(2048) fn main(@builtin(local_invocation_index) i: u32) {
  if (i < 4u) { y[i] = 1u; }
}`,
    };

/** A texture of a WebGPU client other than `e.client` (the CUDA backend has none of its own). */
const alienTexture = (e: MistakeEnv) =>
  Promise.resolve(
    (e.client.server.properties.backend === "cuda" ? e.other : e.sibling)
      .createTexture({ width: 2, height: 2, format: "r32uint" }),
  );

/** A kernel with no scalar params: `y[i] = 7` for the 4 elements of `y`. */
const fill = (e: MistakeEnv) =>
  e.client.server.properties.backend === "cuda"
    ? {
      source:
        `extern "C" __global__ void k(unsigned* y) { if (threadIdx.x < 4) y[threadIdx.x] = 7u; }`,
    }
    : {
      source: `@group(0) @binding(0) var<storage, read_write> y: array<u32>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3u) {
  if (id.x < 4u) { y[id.x] = 7u; }
}`,
    };

/** `execute(fill)` into `v` with `params`. */
const fillWith = (params: unknown) => (e: MistakeEnv) =>
  e.client.execute(fill(e) as Any, { threads: 4, buffers: [e.v], params: params as Any });

/** Mistakes of graphs, element types, compiles and waits. */
export const MORE_MISTAKES: readonly Mistake[] = [
  { name: "replay correct", ...replay({ params: { c: 2 } }) },
  {
    name: "capture a bad launch",
    names: "n",
    run: (e) => e.client.capture(() => launch(e, { c: 1 })),
  },
  {
    name: "capture throwing",
    names: "boom",
    run: (e) =>
      e.client.capture(() => {
        throw new Error("boom");
      }),
  },
  {
    name: "capture a read",
    names: "read",
    run: (e) =>
      e.client.capture(async () => {
        await e.client.read(e.u);
      }),
  },
  {
    name: "capture option typo",
    names: "lable",
    run: (e) => e.client.capture(() => launch(e), { lable: "g" } as Any),
  },
  { name: "replay unknown param", names: "z", ...replay({ params: { z: 1 } }) },
  { name: "replay u32 negative", names: "c", ...replay({ params: { c: -1 } }) },
  { name: "replay u32 string", names: "c", ...replay({ params: { c: "1" } }) },
  { name: "replay params null", names: "params", ...replay({ params: null }) },
  { name: "replay options a number", names: "options", ...replay(3) },
  { name: "replay option typo", names: "param", ...replay({ param: { c: 2 } }) },
  {
    name: "replay disposed",
    names: "dispose",
    prepare: (e) => e.client.capture(() => launch(e)),
    run: (_, graph) => {
      graph.dispose();
      graph.replay();
    },
  },
  {
    name: "another client's texture as a buffer",
    prepare: alienTexture,
    run: (e, texture) =>
      e.client.execute(e.add as Any, {
        threads: 4,
        buffers: [texture, e.v],
        params: { c: 1, n: 4 },
      }),
  },
  {
    name: "read another client's texture",
    prepare: alienTexture,
    run: (e, texture) => e.client.read(texture),
  },
  {
    name: "write another client's texture",
    prepare: alienTexture,
    run: (e, texture) => e.client.write(texture, new Uint32Array(4)),
  },
  { name: "no scalars, params {}", run: fillWith({}) },
  { name: "no scalars, params []", run: fillWith([]) },
  { name: "no scalars, params { a }", names: "params.a", run: fillWith({ a: 1 }) },
  { name: "no scalars, params [1]", names: "params.0", run: fillWith([1]) },
  { name: "no scalars, params null", names: "params", run: fillWith(null) },
  {
    name: "compile a block past the device",
    names: "2048",
    run: (e) => e.client.compile(tooWide(e) as Any),
  },
  {
    name: "execute a block past the device",
    names: "2048",
    run: (e) => e.client.execute(tooWide(e) as Any, { threads: 4, buffers: [e.v] }),
  },
  { name: "compile a syntax error", run: (e) => e.client.compile(broken(e) as Any) },
  {
    name: "execute a syntax error",
    run: (e) => e.client.execute(broken(e) as Any, { threads: 1, buffers: [e.v] }),
  },
  { name: "compile an undeclared name", run: (e) => e.client.compile(undeclared(e) as Any) },
  {
    name: "execute an undeclared name",
    run: (e) => e.client.execute(undeclared(e) as Any, { threads: 1, buffers: [e.v] }),
  },
  {
    name: "zeros u8 3, write at 1",
    run: (e) => {
      const h = e.client.zeros(3, "u8");
      e.client.write(h, new Uint8Array([7, 9]), { offset: 1 });
      return h;
    },
  },
  {
    name: "u16 write past end",
    names: /offset|element|bytes/,
    run: (e) => {
      using h = e.client.zeros(3, "u16");
      e.client.write(h, new Uint16Array([7, 9]), { offset: 2 });
    },
  },
  { name: "i8 full -3", run: (e) => e.client.full(5, -3, { dtype: "i8" }) },
  { name: "i8 full 200", names: "value", run: (e) => e.client.full(5, 200, { dtype: "i8" }) },
  { name: "f16 full 1.5", run: (e) => e.client.full(3, 1.5, { dtype: "f16" }) },
  { name: "f16 full 1e6", names: "value", run: (e) => e.client.full(3, 1e6, { dtype: "f16" }) },
  { name: "f64 createWithData", run: (e) => e.client.createWithData(new Float64Array([1.5, -2])) },
  { name: "i64 full", run: (e) => e.client.full(2, -5, { dtype: "i64" }) },
  { name: "u64 full bigint", run: (e) => e.client.full(2, 2n ** 40n as Any, { dtype: "u64" }) },
  {
    name: "u64 full -1n",
    names: "value",
    run: (e) => e.client.full(2, -1n as Any, { dtype: "u64" }),
  },
  {
    name: "u8 handle for u32 x",
    names: "x",
    run: (e) => {
      using h = e.client.zeros(16, "u8");
      launch({ ...e, u: h as Any });
    },
  },
  {
    name: "bytes handle for u32 x",
    run: (e) => {
      using h = e.client.createBytes(16);
      e.client.write(h, new Uint8Array(16).fill(1));
      e.client.execute(e.add as Any, { threads: 4, buffers: [h, e.v], params: { c: 1, n: 4 } });
    },
  },
  {
    name: "reduce of f64",
    names: /f64|type/,
    run: (e) => reduce(e.client, e.client.createWithData(new Float64Array(2)) as Any),
  },
  {
    name: "reduce of u8",
    names: /u8|type/,
    run: (e) => reduce(e.client, e.client.zeros(4, "u8") as Any),
  },
  { name: "waitFor a reached value", run: (e) => e.client.waitFor(new CpuTimelineSignal(), 0) },
  {
    name: "waitFor NaN",
    names: "value",
    run: (e) => e.client.waitFor(new CpuTimelineSignal(), NaN),
  },
  {
    name: "waitFor 1.5",
    names: "value",
    run: (e) => e.client.waitFor(new CpuTimelineSignal(), 1.5),
  },
  {
    name: "waitFor timeoutMs -1",
    names: "timeoutMs",
    run: (e) => e.client.waitFor(new CpuTimelineSignal(), 1, { timeoutMs: -1 }),
  },
  {
    name: "waitFor a timeout",
    run: (e) => {
      e.client.waitFor(new CpuTimelineSignal(), 1, { timeoutMs: 20, stream: 5 });
      return e.client.sync({ stream: 5 });
    },
  },
  {
    name: "waitFor the other's timeline",
    run: (e) => {
      e.client.waitFor(e.other.timeline, e.other.signal());
      return e.client.sync();
    },
  },
];
