/**
 * README.md read as a contract (QA wave 6): its behavioural claims that no other test checked on
 * both backends, each run on WebGPU (the fallback adapter) and on the simulated CUDA driver.
 */
import assert from "node:assert/strict";
import {
  argmax,
  argmin,
  type ComputeClient,
  CpuTimelineSignal,
  createClient,
  DestroyedError,
  elementwise,
  histogram,
  InvalidHandleError,
  KernelArgumentError,
  listDevices,
  matmul,
  random,
  reduce,
  scan,
  segmentReduce,
  sort,
  TimeoutError,
  topk,
} from "../mod.ts";
import { cudaSignatures } from "../runtime/server/cuda/compile/signature.ts";
import { nvrtcSkip } from "./_cuda_nvrtc.ts";
import { within } from "./_device_programs.ts";
import { SIM_LIBRARY } from "./fixtures/cuda_sim.ts";

const [adapter] = await listDevices({ backend: "webgpu" });
const backends = [
  { name: "webgpu", ignore: adapter === undefined, open: () => createClient({ device: adapter! }) },
  {
    name: "cuda",
    ignore: nvrtcSkip !== undefined,
    open: () => createClient({ backend: "cuda", library: SIM_LIBRARY }),
  },
] as const;

function both(
  name: string,
  fn: (client: ComputeClient) => Promise<void>,
  sanitizeOps = true,
): void {
  for (const b of backends) {
    Deno.test({
      name: `${b.name}: ${name}`,
      ignore: b.ignore,
      sanitizeOps,
      async fn() {
        using client = (await b.open()) as ComputeClient;
        await fn(client);
      },
    });
  }
}

both("a held write takes its data when it runs (README, Timeline signals)", async (c) => {
  const gate = new CpuTimelineSignal();
  using h = c.zeros(4, "u32");
  c.waitFor(gate, 1);
  const data = new Uint32Array([1, 2, 3, 4]);
  c.write(h, data);
  data.fill(9); // after the call, before it runs
  gate.set(1);
  assert.deepEqual([...await within(c.read(h), 5_000)], [9, 9, 9, 9]);
});

both("write offset counts elements; read of another array type is a TypeError", async (c) => {
  using h = c.zeros(6, "f32");
  c.write(h, new Float32Array([5, 6]), { offset: 3 });
  assert.deepEqual([...await c.read(h)], [0, 0, 0, 5, 6, 0]);
  // deno-lint-ignore no-explicit-any
  await assert.rejects(() => (c as any).read(h, Int32Array), TypeError);
});

both("argument errors reject at the call while the stream is held by waitFor", async (c) => {
  const gate = new CpuTimelineSignal();
  const gone = c.zeros(4, "f32");
  gone.dispose();
  c.waitFor(gate, 1);
  await within(assert.rejects(c.read(gone), InvalidHandleError), 2_000);
  assert.throws(() => c.write(gone, new Float32Array(4)), InvalidHandleError);
  gate.set(1);
  await c.sync();
});

both("destroy() settles held calls with DESTROYED at once", async (c) => {
  const gate = new CpuTimelineSignal();
  const h = c.zeros(4, "f32");
  c.waitFor(gate, 1);
  const read = c.read(h);
  const sync = c.sync();
  c.destroy();
  await within(assert.rejects(read, DestroyedError), 2_000);
  await within(assert.rejects(sync, DestroyedError), 2_000);
}, false);

both("argmax/argmin/topk: ties and NaN give the first index", async (c) => {
  using x = c.createWithData(new Float32Array([1, 7, NaN, 7, NaN, -3, -3]));
  using y = c.createWithData(new Float32Array([1, 7, 2, 7, 0, -3, -3]));
  using a = argmax(c, x);
  using b = argmin(c, x);
  using d = argmax(c, y);
  using e = argmin(c, y);
  using t = topk(c, y, 3);
  const [ra, rb, rd, re, ti] = await c.readMany([a, b, d, e, t.indices]);
  assert.deepEqual([ra[0], rb[0], rd[0], re[0]], [2, 2, 1, 5]);
  assert.deepEqual([...ti], [1, 3, 2]);
});

both("sort is stable and puts NaN last", async (c) => {
  using k = c.createWithData(new Float32Array([2, NaN, 1, 2, -Infinity, 1, NaN]));
  using v = c.createWithData(new Uint32Array([0, 1, 2, 3, 4, 5, 6]));
  using s = sort(c, k, { values: v });
  assert.deepEqual([...await c.read(s.values)], [4, 2, 5, 0, 3, 1, 6]);
});

both("histogram: bins of equal width, the range's end in the last bin", async (c) => {
  using x = c.createWithData(new Float32Array([0, 0.25, 0.5, 1, 1.5, -0.1, 0.99, NaN]));
  using h = histogram(c, x, { bins: 4, range: [0, 1] });
  assert.deepEqual([...await c.read(h)], [1, 1, 1, 2]);
});

both("elementwise: out may be an input, not a raw one", async (c) => {
  const k = elementwise({ inputs: { v: "f32", r: "raw f32" }, expression: "v + r[0]" });
  using v = c.createWithData(new Float32Array([1, 2, 3]));
  using r = c.createWithData(new Float32Array([10, 0, 0]));
  k.run(c, { v, r }, { out: v });
  assert.deepEqual([...await c.read(v)], [11, 12, 13]);
  assert.throws(() => k.run(c, { v, r }, { out: r }));
});

// README (Primitives): u32 and uniform numbers are bit-identical on every device; normal ones
// agree to the device's log, sqrt and cos (it claimed bit-identical for all: they differ in the
// last bits between WebGPU and CUDA).
const draws: Float32Array[][] = [];
both("random: uniform bits equal on both backends, normal ones to rounding", async (c) => {
  using u = random(c, 1000, { seed: 7, offset: 5 });
  using z = random(c, 1000, { seed: 7, distribution: "normal" });
  const [ru, rz] = await c.readMany([u, z]);
  if (draws.length > 0) {
    assert.deepEqual(new Uint32Array(ru.buffer), new Uint32Array(draws[0][0].buffer));
    const worst = Math.max(...rz.map((v, i) => Math.abs(v - draws[0][1][i])));
    assert.ok(worst < 1e-5, `normal numbers differ by ${worst}`);
  }
  draws.push([ru, rz]);
});

both("elementwise converts to the output type as WGSL's u32(e)/i32(e) do", async (c) => {
  using v = c.createWithData(new Float32Array([-1.5, 3.7, 5e9, -3.7, 3e9, -3e9]));
  using u = elementwise({ inputs: { v: "f32" }, expression: "v", output: "u32" }).run(c, { v });
  using s = elementwise({ inputs: { v: "f32" }, expression: "v", output: "i32" }).run(c, { v });
  const [ru, rs] = await c.readMany([u, s]);
  assert.deepEqual([...ru], [0, 3, 4294967040, 0, 3e9, 0]);
  assert.deepEqual([...rs], [-1, 3, 2147483520, -3, 2147483520, -2147483648]);
});

both("reduce mean over rows and columns; exclusive scan", async (c) => {
  using x = c.createWithData(new Float32Array([1, 2, 3, 4, 5, 6]));
  using rows = reduce(c, x, { op: "mean", shape: [2, 3], axis: 1 });
  using cols = reduce(c, x, { op: "max", shape: [2, 3], axis: 0 });
  using ex = scan(c, x, { exclusive: true });
  const [r, k, e] = await c.readMany([rows, cols, ex]);
  assert.deepEqual([...r], [2, 5]);
  assert.deepEqual([...k], [4, 5, 6]);
  assert.deepEqual([...e], [0, 1, 3, 6, 10, 15]);
});

both("inside a capture, allocation, reads and sync throw CAPTURE_UNSUPPORTED", async (c) => {
  using h = c.zeros(4, "f32");
  for (const call of [() => c.zeros(4, "f32"), () => c.read(h), () => c.sync()]) {
    await assert.rejects(
      c.capture(async () => {
        await call();
      }),
      (e: Error & { code?: string }) => e.code === "CAPTURE_UNSUPPORTED",
    );
  }
  assert.deepEqual([...await c.read(h)], [0, 0, 0, 0]); // usable after
});

both("a replay that sets a helper's own param is refused; nothing replayed", async (c) => {
  const add = elementwise({ inputs: { v: "f32" }, params: { a: "f32" }, expression: "v + a" });
  using v = c.createWithData(new Float32Array([1, 2]));
  using g = await c.capture(() => {
    add.run(c, { v }, { out: v, params: { a: 1 } });
  });
  g.replay();
  assert.throws(() => g.replay({ params: { n: 1 } }), KernelArgumentError);
  g.replay({ params: { a: 10 } });
  assert.deepEqual([...await c.read(v)], [12, 13]);
});

Deno.test({
  name:
    "webgpu <-> cuda: copyTo through the host, waitFor(a.timeline, a.signal()) orders b after a",
  ignore: adapter === undefined || nvrtcSkip !== undefined,
  async fn() {
    using w = await createClient({ device: adapter! });
    using k = await createClient({ backend: "cuda", library: SIM_LIBRARY });
    using src = w.createWithData(new Int32Array([1, -2, 3]));
    using there = w.copyTo(src, k);
    assert.equal(there.dtype, "i32");
    using back = k.copyTo(there, w);
    assert.deepEqual([...await w.read(back)], [1, -2, 3]);
    const gate = new CpuTimelineSignal();
    using h = k.zeros(3, "i32");
    w.waitFor(gate, 1);
    w.write(src, new Int32Array([7, 8, 9]));
    k.waitFor(w.timeline, w.signal());
    k.write(h, new Int32Array([0, 0, 5])); // held behind w's write
    using moved = w.copyTo(src, k);
    gate.set(1);
    assert.deepEqual([...await within(k.read(moved), 5_000)], [7, 8, 9]);
    assert.deepEqual([...await k.read(h)], [0, 0, 5]);
    await assert.rejects(w.read(h as never), InvalidHandleError); // another client's handle
    assert.deepEqual([...await w.read(src)], [7, 8, 9]); // both usable
  },
});

// (`sync` waits for all work, held calls of every stream included: it is not asserted here.)
both("profile and read on one stream do not wait for a held one", async (c) => {
  const gate = new CpuTimelineSignal();
  using held = c.zeros(4, "f32", { stream: 2 });
  using x = c.zeros(4, "f32", { stream: 1 });
  const add = elementwise({ inputs: { v: "f32" }, expression: "v + 1.0" });
  c.waitFor(gate, 1, { stream: 2 });
  add.run(c, { v: held }, { out: held, stream: 2 });
  const p = await within(
    c.profile(() => add.run(c, { v: x }, { out: x }), { stream: 1 }),
    5_000,
  );
  assert.ok(p.duration !== undefined);
  assert.deepEqual([...await within(c.read(x, { stream: 1 }), 5_000)], [1, 1, 1, 1]);
  gate.set(1);
  assert.deepEqual([...await within(c.read(held, { stream: 2 }), 5_000)], [1, 1, 1, 1]);
});

both(
  "a handle disposed right after the launch that uses it; a graph keeps its handles",
  async (c) => {
    const add = elementwise({ inputs: { v: "f32", w: "f32" }, expression: "v + w" });
    using y = c.zeros(3, "f32");
    const x = c.createWithData(new Float32Array([1, 2, 3]));
    add.run(c, { v: y, w: x }, { out: y });
    x.dispose();
    using x2 = c.createWithData(new Float32Array([9, 9, 9])); // may reuse x's memory
    const z = c.createWithData(new Float32Array([10, 20, 30]));
    using g = await c.capture(() => {
      add.run(c, { v: y, w: z }, { out: y });
    });
    z.dispose();
    using x3 = c.createWithData(new Float32Array([5, 5, 5])); // must not take z's memory
    g.replay();
    assert.deepEqual([...await c.read(y)], [11, 22, 33]);
    assert.equal(x2.length + x3.length, 6);
  },
);

both("reduce, scan and segmentReduce max propagate NaN, as NumPy", async (c) => {
  using x = c.createWithData(new Float32Array([1, NaN, 3, -1, 0, 2]));
  using m = reduce(c, x, { op: "max" });
  using r = reduce(c, x, { op: "min", shape: [2, 3], axis: 1 });
  using s = scan(c, x, { op: "max" });
  const [rm, rr, rs] = await c.readMany([m, r, s]);
  assert.ok(Number.isNaN(rm[0]));
  assert.ok(Number.isNaN(rr[0]) && rr[1] === -1);
  assert.deepEqual([...rs].map(Number.isNaN), [false, true, true, true, true, true]);
});

// README (CUDA): "`const T*` parameters are read-only for the stream ordering". A `T**` holds
// pointers: it took T handles (refusing the u64 ones that hold pointers), and `const T**`, whose
// pointers the kernel may write, was read-only for the ordering (unordered writes).
Deno.test("cuda: const T* is read-only; T** points to u64 words, writable unless const at each level", () => {
  const source = `extern "C" __global__ void f(const float* a, float* const b, const float** c,
    const float* const* d, float** e, const float* __restrict__ g) {}`;
  const params = cudaSignatures(source)[0].params.map((p) =>
    p.kind === "pointer" ? `${p.name}:${p.element}:${p.readOnly}` : p.name
  );
  assert.deepEqual(params, [
    "a:f32:true",
    "b:f32:false",
    "c:u64:false",
    "d:u64:true",
    "e:u64:false",
    "g:f32:true",
  ]);
});

both("bytes handles, byte views, as() reinterprets, write of raw bytes", async (c) => {
  using f = c.createWithData(new Float32Array([1, -2]));
  const bytes = await c.read(f, Uint8Array);
  assert.deepEqual([...new Float32Array(bytes.slice().buffer)], [1, -2]);
  const asU32 = f.as("u32");
  assert.deepEqual([...await c.read(asU32)], [0x3f800000, 0xc0000000]);
  c.write(f, new Float32Array([3, 4]).buffer); // raw bytes
  using raw = c.createBytes(8);
  c.write(raw, new Uint32Array([7, 8]).buffer);
  const [rf, rr] = await c.readMany([f, raw]);
  assert.deepEqual([...rf], [3, 4]);
  assert.ok(rr instanceof Uint8Array && rr.length === 8);
  assert.deepEqual([...await c.read(raw, Uint32Array)], [7, 8]); // any type for untyped handles
  await assert.rejects(c.read(asU32, Float32Array), TypeError);
});

both(
  "capture: another stream is CAPTURE_UNSUPPORTED, a kernel's bad argument rejects it",
  async (c) => {
    const add = elementwise({ inputs: { v: "f32" }, params: { a: "f32" }, expression: "v + a" });
    using v = c.createWithData(new Float32Array([1, 2]));
    await assert.rejects(
      c.capture(() => {
        add.run(c, { v }, { out: v, params: { a: 1 }, stream: 5 });
      }),
      (e: Error & { code?: string }) => e.code === "CAPTURE_UNSUPPORTED",
    );
    await assert.rejects(
      c.capture(() => {
        add.run(c, { v }, { out: v, params: { a: 1e40 } });
      }),
      (e: Error) => e instanceof KernelArgumentError || e instanceof RangeError,
    );
    assert.deepEqual([...await c.read(v)], [1, 2]); // nothing ran
  },
);

both(
  "signal() marks the stream's work; the timeline reaches it once that work completed",
  async (c) => {
    const gate = new CpuTimelineSignal();
    using h = c.zeros(2, "u32", { stream: 1 });
    c.waitFor(gate, 1, { stream: 1 });
    c.write(h, new Uint32Array([4, 5]), { stream: 1 });
    const mark = c.signal({ stream: 1 });
    await assert.rejects(c.timeline.wait(mark, { timeoutMs: 50 }), TimeoutError); // still held
    gate.set(1);
    await within(c.timeline.wait(mark), 5_000);
    assert.ok(c.timeline.value >= mark);
    assert.deepEqual([...await c.read(h, { stream: 1 })], [4, 5]);
  },
);

// The README's Primitives example prints these values (its doc test runs on WebGPU only).
both("the README's primitives example prints what it says", async (c) => {
  using x = c.createWithData(new Float32Array([0.5, 0.25, 0.75, 0.1, 0.9, 0.3]));
  using scores = c.createWithData(new Float32Array([3, 1, 2]));
  using ids = c.createWithData(new Uint32Array([10, 11, 12]));
  using labels = c.createWithData(new Uint32Array([0, 1, 0, 1, 0, 1]));
  using a = c.arange(6, "f32");
  using b = c.full(3 * 2, 1);
  using sorted = sort(c, scores, { values: ids });
  using best = topk(c, x, 2);
  using counts = histogram(c, x, { bins: 4, range: [0, 1] });
  using perCluster = segmentReduce(c, x, labels, { segments: 2 });
  using m = await matmul(c, a, b, { m: 2, n: 2, k: 3, tune: false });
  const [s, i, h, p, r] = await c.readMany([sorted.values, best.indices, counts, perCluster, m]);
  assert.deepEqual([[...s], [...i], [...h]], [[11, 12, 10], [4, 2], [1, 2, 1, 2]]);
  assert.deepEqual([...p].map((v) => +v.toFixed(5)), [2.15, 0.65]);
  assert.deepEqual([...r], [3, 3, 12, 12]);
});
