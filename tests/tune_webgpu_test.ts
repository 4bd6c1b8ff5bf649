import assert from "node:assert/strict";
import {
  CompilationError,
  createClient,
  CubeCount,
  type Handle,
  InvalidHandleError,
} from "../mod.ts";
import type { WgslKernel } from "../runtime/server/webgpu/mod.ts";
import { matmulSet, reduceSet, TunableSet, TuneMismatchError, Tuner } from "../runtime/tune/mod.ts";

const adapter = await navigator.gpu?.requestAdapter();
const ignore = adapter === null || adapter === undefined; // no WebGPU adapter on this machine
const N = 4096;
const quiet = { persistent: false, progressBar: false } as const;

/** `v[i] = (v[i] * a + b)` repeated `reps` times: work proportional to reps. */
const repeat: WgslKernel = {
  id: "test.tune.repeat",
  source: `
struct Reps { reps: u32 }
@group(0) @binding(0) var<storage, read_write> v: array<f32>;
@group(0) @binding(1) var<uniform> r: Reps;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3u) {
  if (gid.x >= arrayLength(&v)) { return; }
  var x = v[gid.x];
  for (var i = 0u; i < r.reps; i = i + 1u) { x = fma(x, 0.999, 0.001); }
  v[gid.x] = x;
}`,
};

Deno.test({
  name: "tune on WebGPU: of two candidates, the one doing a tenth of the work wins",
  ignore,
  async fn() {
    using client = await createClient({ adapter: adapter! });
    const launch = (reps: number) => (input: Handle) => {
      const out = client.createBytes(N * 4);
      client.execute(repeat, {
        count: CubeCount.new1d(N / 64),
        buffers: [out],
        params: { reps },
      });
      void input;
      return out;
    };
    const set = new TunableSet("repeat", {
      key: () => ({ n: N }),
      candidates: [
        { name: "heavy", run: launch(2000) },
        { name: "light", run: launch(200) },
      ],
    });
    using input = client.createBytes(4);
    const tuner = new Tuner(client, quiet);
    const outcome = await tuner.tune(set, input);
    assert.equal(outcome.fastest, "light");
    const [heavy, light] = outcome.results;
    assert.ok(heavy.medianMs! > light.medianMs!);
  },
});

Deno.test({
  name: "tune on WebGPU: with checks, a wrong candidate and one that fails to compile are rejected",
  ignore,
  async fn() {
    using client = await createClient({ adapter: adapter! });
    const scaleBy = (factor: number, source = SCALE): WgslKernel => ({
      id: `test.tune.scale_${factor}_${source.length}`,
      source,
    });
    const run = (kernel: WgslKernel, factor: number) => (x: Handle) => {
      const out = client.createBytes(N * 4);
      client.execute(kernel, {
        count: CubeCount.new1d(N / 64),
        buffers: [x, out],
        params: { factor },
      });
      return out;
    };
    const set = new TunableSet("double", {
      key: () => ({ n: N }),
      reference: "reference",
      candidates: [
        { name: "reference", run: run(scaleBy(2), 2) },
        { name: "wrong", run: run(scaleBy(3), 3) },
        { name: "broken", run: run(scaleBy(2, SCALE.replace("x[i]", "x[i] +")), 2) },
        { name: "right", run: run(scaleBy(2), 2) },
      ],
    });
    using x = client.createWithData(Float32Array.from({ length: N }, (_, i) => i % 17));
    const tuner = new Tuner(client, { ...quiet, checks: true });
    const outcome = await tuner.tune(set, x);
    assert.ok(["reference", "right"].includes(outcome.fastest));
    const status = Object.fromEntries(outcome.results.map((r) => [r.name, r.status]));
    assert.deepEqual(status, { reference: "ok", wrong: "failed", broken: "failed", right: "ok" });
    const mismatch = outcome.errors.get("wrong");
    assert.ok(mismatch instanceof TuneMismatchError);
    assert.equal(mismatch.candidate, "wrong");
    assert.ok(outcome.errors.get("broken") instanceof CompilationError);
    // The device keeps serving after the failed compilation.
    using y = await tuner.execute(set, x);
    assert.deepEqual(
      (await client.read(y, Float32Array)).slice(0, 4),
      new Float32Array([0, 2, 4, 6]),
    );
  },
});

Deno.test({
  name: "tune on WebGPU: every matmul variant is right; the tuned winner passes the checks",
  ignore,
  async fn() {
    using client = await createClient({ adapter: adapter! });
    const set = matmulSet(client);
    for (const [m, n, k] of [[24, 20, 12], [9, 21, 7]]) { // not multiples of any tile
      const a = Float32Array.from({ length: m * k }, (_, i) => ((i * 7) % 13) * 0.25 - 1);
      const b = Float32Array.from({ length: k * n }, (_, i) => ((i * 5) % 11) * 0.5 - 2);
      const expected = new Float32Array(m * n);
      for (let i = 0; i < m; i++) {
        for (let j = 0; j < n; j++) {
          for (let t = 0; t < k; t++) expected[i * n + j] += a[i * k + t] * b[t * n + j];
        }
      }
      using ha = client.createWithData(a);
      using hb = client.createWithData(b);
      const inputs = { a: ha, b: hb, m, n, k };
      const runnable = set.candidates.filter((c) => set.priority(c, set.key(inputs)) >= 0);
      assert.equal(runnable.length, n % 4 === 0 ? set.candidates.length : 5);
      const outputs = runnable.map((c) => c.run(inputs) as Handle);
      const results = await client.readMany(outputs, Float32Array);
      outputs.forEach((h) => h.dispose());
      results.forEach((got, i) => assert.deepEqual(got, expected, runnable[i].name));

      // Benchmark inputs: fresh data of the caller's shape, not of the anchored key.
      const bench = await set.options.inputs!(set.key(inputs), inputs);
      assert.deepEqual(
        [bench.m, bench.n, bench.k, bench.a.size(), bench.b.size()],
        [m, n, k, m * k * 4, k * n * 4],
      );
      assert.notEqual(bench.a, ha);
      bench.a.dispose();
      bench.b.dispose();

      const tuner = new Tuner(client, {
        ...quiet,
        checks: true,
        sampling: { maxSamples: 3, minSamples: 2 },
      });
      const outcome = await tuner.tune(set, inputs);
      assert.deepEqual([...outcome.errors.keys()], []);
      using c = await tuner.execute(set, inputs);
      assert.deepEqual(await client.read(c, Float32Array), expected);
    }
    // Above the largest anchor (4096) a dimension is benchmarked at the anchor.
    using a = client.createBytes(5000 * 4 * 4);
    using b = client.createBytes(4 * 4 * 4);
    const tall = { a, b, m: 5000, n: 4, k: 4 };
    const capped = await set.options.inputs!(set.key(tall), tall);
    assert.deepEqual([capped.m, capped.n, capped.k, capped.a.size()], [4096, 4, 4, 4096 * 4 * 4]);
    capped.a.dispose();
    capped.b.dispose();
  },
});

Deno.test({
  name: "tune on WebGPU: every reduction variant (sum, max, dot) is right around the widths",
  ignore,
  async fn() {
    using client = await createClient({ adapter: adapter! });
    const sum = reduceSet(client, "sum");
    const max = reduceSet(client, "max");
    // 2.2M: one 32-wide workgroup would loop 68,750 times, past llvmpipe's silent 65,535.
    for (const n of [1, 31, 33, 257, 5000, 2_200_000]) {
      const values = Float32Array.from({ length: n }, (_, i) => (i % 7) * 0.5);
      const ones = new Float32Array(n).fill(2);
      using x = client.createWithData(values);
      using y = client.createWithData(ones);
      const expected = values.reduce((a, b) => a + b, 0);
      const outputs = [
        ...sum.candidates.map((c) => c.run({ x }) as Handle),
        ...sum.candidates.map((c) => c.run({ x, y }) as Handle),
        ...max.candidates.map((c) => c.run({ x }) as Handle),
      ];
      const got = (await client.readMany(outputs, Float32Array)).map((r) => r[0]);
      outputs.forEach((h) => h.dispose());
      const k = sum.candidates.length;
      assert.deepEqual(got.slice(0, k), sum.names.map(() => expected), `sum, n = ${n}`);
      assert.deepEqual(got.slice(k, 2 * k), sum.names.map(() => 2 * expected), `dot, n = ${n}`);
      const top = values.reduce((a, b) => Math.max(a, b), -Infinity);
      assert.deepEqual(got.slice(2 * k), max.names.map(() => top), `max, n = ${n}`);
    }
    // Benchmark inputs have the caller's length (anchored keys round it up) and its dot-ness.
    using x = client.createWithData(new Float32Array(5000));
    using y = client.createWithData(new Float32Array(5000));
    const bench = await sum.options.inputs!(sum.key({ x, y }), { x, y });
    assert.equal(sum.key({ x, y }).n, 8192);
    assert.deepEqual([bench.x.size(), bench.y?.size()], [5000 * 4, 5000 * 4]);
    bench.x.dispose();
    bench.y?.dispose();
    using empty = client.createBytes(0);
    assert.throws(() => sum.candidates[0].run({ x: empty }), RangeError);
  },
});

Deno.test({
  name: "tune on WebGPU: a matmul whose k loop llvmpipe would cut short is refused there",
  ignore: ignore || !/llvmpipe/i.test(adapter?.info.description ?? ""),
  async fn() {
    using client = await createClient({ adapter: adapter! });
    const matmul = matmulSet(client);
    using a = client.zeros(70_000);
    using b = client.zeros(70_000);
    for (const candidate of matmul.candidates) {
      assert.throws(
        () => candidate.run({ a, b, m: 1, n: 1, k: 70_000 }),
        (e) => e instanceof RangeError && /65,535 iterations/.test(e.message),
      );
    }
    using a2 = client.zeros(65_535);
    using c = matmul.candidates[0].run({ a: a2, b: a2, m: 1, n: 1, k: 65_535 }) as Handle;
    assert.deepEqual([...await client.read(c)], [0]);
  },
});

Deno.test({
  name: "tune on WebGPU: a set candidate refused at its launch leaves no memory behind",
  ignore,
  async fn() {
    using client = await createClient({ adapter: adapter! });
    using other = await createClient({ adapter: adapter! });
    using foreign = other.createWithData(new Float32Array(5000).fill(1));
    await client.sync();
    const before = client.memoryUsage().numberAllocs;
    // Every candidate's output leaked when the launch refused another client's handle.
    for (const candidate of reduceSet(client, "sum").candidates) {
      assert.throws(() => candidate.run({ x: foreign }), InvalidHandleError);
    }
    for (const candidate of matmulSet(client).candidates) {
      assert.throws(
        () => candidate.run({ a: foreign, b: foreign, m: 50, n: 50, k: 100 }),
        InvalidHandleError,
      );
    }
    await client.sync();
    assert.equal(client.memoryUsage().numberAllocs, before);
  },
});

const SCALE = `
struct Scale { factor: f32 }
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@group(0) @binding(2) var<uniform> s: Scale;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3u) {
  let i = gid.x;
  if (i >= arrayLength(&y)) { return; }
  y[i] = x[i] * s.factor;
}`;

Deno.test({
  name: "tune on WebGPU: with checks, outputs of every element type are compared as that type",
  ignore,
  async fn() {
    using client = await createClient({ adapter: adapter! });
    const dtypes = ["u32", "i32", "f16", "u64", "i8"] as const;
    for (const dtype of dtypes) {
      // `wrong` is off by one (a sixth of 1000 in relative terms: integers compare exactly).
      const set = new TunableSet(`typed_${dtype}`, {
        key: () => ({ n: 8 }),
        candidates: [
          { name: "reference", run: () => client.arange(8, dtype, { start: 100 }) },
          { name: "wrong", run: () => client.arange(8, dtype, { start: 101 }) },
          { name: "right", run: () => client.arange(8, dtype, { start: 100 }) },
        ],
      });
      const tuner = new Tuner(client, { ...quiet, checks: true, sampling: { minSampleMs: 0 } });
      const outcome = await tuner.tune(set, {});
      const status = Object.fromEntries(outcome.results.map((r) => [r.name, r.status]));
      assert.deepEqual(status, { reference: "ok", wrong: "failed", right: "ok" }, dtype);
      assert.ok(outcome.errors.get("wrong") instanceof TuneMismatchError, dtype);
      assert.notEqual(outcome.fastest, "wrong");
    }
  },
});

Deno.test({
  name: "tune on WebGPU: matmulSet refuses handles that do not hold m x k / k x n f32 (no product)",
  ignore,
  async fn() {
    using client = await createClient({ adapter: adapter! });
    const set = matmulSet(client);
    const tuner = new Tuner(client, { ...quiet, sampling: { minSampleMs: 0, maxSamples: 3 } });
    using f32 = client.createWithData(new Float32Array(16).fill(1)); // 4 x 4
    using i32 = client.createWithData(new Int32Array(16).fill(1));
    const cases: [Record<string, unknown>, ErrorConstructor, RegExp][] = [
      [{ a: f32, b: f32, m: 4, n: 4, k: 5 }, RangeError, /matmulSet: a has 16 elements, 4 x 5/],
      [{ a: f32, b: f32, m: 2, n: 4, k: 4 }, RangeError, /matmulSet: a has 16 elements, 2 x 4/],
      [{ a: f32, b: f32, m: 4, n: 2, k: 4 }, RangeError, /matmulSet: b has 16 elements/],
      [{ a: f32, b: i32, m: 4, n: 4, k: 4 }, TypeError, /matmulSet: b must hold f32/],
      [{ a: f32, b: f32, m: 4.5, n: 4, k: 4 }, RangeError, /matmulSet: m must be an integer/],
    ];
    for (const [inputs, type, message] of cases) {
      const bad = inputs as unknown as Parameters<typeof set.key>[0];
      await assert.rejects(
        tuner.execute(set, bad),
        (e: Error) => e instanceof type && message.test(e.message),
      );
      assert.throws(() => set.candidates[3].run(bad), type);
    }
    assert.equal(tuner.stats.tunings, 0, "refused before tuning");
    using c = await tuner.execute(set, { a: f32, b: f32, m: 4, n: 4, k: 4 });
    assert.deepEqual([...await client.read(c, Float32Array)], new Array(16).fill(4));
  },
});

Deno.test({
  name: "tune on WebGPU: background mode lets the caller dispose its inputs as execute returns",
  ignore,
  async fn() {
    using client = await createClient({ adapter: adapter! });
    const sums = reduceSet(client, "sum");
    // No `inputs` option: the background run benchmarks on the caller's own handles.
    const set = new TunableSet("sum_own_inputs", {
      key: ({ x }) => ({ n: x.size() / 4, op: "sum" as const, dot: false }),
      candidates: sums.candidates.slice(0, 3),
    });
    const sampling = { minSampleMs: 0, maxSamples: 3 };
    const tuner = new Tuner(client, { ...quiet, background: true, sampling });
    const before = client.memoryUsage().numberAllocs;
    {
      using x = client.createWithData(new Float32Array(4096).fill(1));
      using total = await tuner.execute(set, { x });
      assert.deepEqual([...await client.read(total, Float32Array)], [4096]);
    } // x disposed while the key is tuned
    await tuner.settled();
    using y = client.createWithData(new Float32Array(4096).fill(2));
    using total = await tuner.execute(set, { x: y }); // used to throw TuneFailedError
    assert.deepEqual([...await client.read(total, Float32Array)], [8192]);
    assert.equal(tuner.stats.tunings, 1);
    assert.ok(tuner.fastest(set, { x: y }) !== undefined);
    await client.sync();
    assert.equal(client.memoryUsage().numberAllocs, before + 2, "y and the total: clones freed");
  },
});
