/**
 * The primitives of issue #30 against jax-js (`@jax-js/jax`, its WebGPU device) on the same
 * adapter in the same process, at 1M elements (matmul at 512 and 1024): cumsum, argmax, topk
 * (k = 8), sort of u32 keys, argsort, gather (`np.take`), transpose and matmul; random (uniform
 * f32) as throughput only, the two generators differing (jax-js Threefry, ours Philox).
 *
 * Every iteration launches the operation once and reads the whole result back, for both. The
 * jax-js side runs under `jit` (one compiled program per operation), as jax-js advises on a GPU.
 * On llvmpipe jax-js's reductions past 65,535 elements (so its argmax, eager or not) and its eager
 * cumsum give wrong results, and its scatter-add does not compile: probed and printed first.
 * Before timing, each pair's results are checked equal (exactly, or within float tolerance for
 * cumsum and matmul, or for range and mean for random), so the timings are of correct work; a pair
 * that differs is reported and not timed. Then {@linkcode ROUNDS} interleaved rounds (jax-js, then
 * gpucompute) print each side's median time and the median of the rounds' ratios; the
 * `Deno.bench` groups follow (jax-js the baseline).
 *
 * Run: `DENO_WEBGPU_BACKEND=vulkan deno bench --unstable-webgpu --allow-read=bench,sync,runtime/core bench/primitives_jax_bench.ts`
 *
 * @module
 */

import "./_bench_guard.ts"; // deno bench awaits only async fns: a promise from another one throws
import { defaultDevice, init, jit, lax, numpy as np, random as jaxRandom, vjp } from "@jax-js/jax";
import {
  argmax,
  argsort,
  createClient,
  cumsum,
  gather,
  type Handle,
  matmul,
  random,
  sort,
  topk,
  transpose,
} from "../mod.ts";
import { Tuner } from "../runtime/tune/mod.ts";

const N = 1 << 20;
const ROUNDS = 5;
const BENCH_N = 5;
type Out = ArrayLike<number>[];

/** One shared operation: each side launches once and returns its whole result, read back. */
interface Pair {
  name: string;
  jax: () => Promise<Out>;
  ours: () => Promise<Out>;
  /** Why the results differ, or `null` when they agree. */
  check: (jax: Out, ours: Out) => string | null;
}

const adapter = await navigator.gpu?.requestAdapter();
const devices = adapter ? await init("webgpu") : [];

function floats(n: number): Float32Array<ArrayBuffer> {
  return Float32Array.from({ length: n }, () => Math.random() * 2 - 1);
}

/** `null` when `a` and `b` agree within `tol * (1 + |b|)` element by element. */
function close(a: ArrayLike<number>, b: ArrayLike<number>, tol: number): string | null {
  if (a.length !== b.length) return `lengths ${a.length} and ${b.length}`;
  for (let i = 0; i < a.length; i++) {
    if (!(Math.abs(a[i] - b[i]) <= tol * (1 + Math.abs(b[i])))) {
      return `element ${i}: ${a[i]} against ${b[i]}`;
    }
  }
  return null;
}

const equal = (jax: Out, ours: Out) =>
  jax.map((a, i) => close(a, ours[i], 0)).find((e) => e !== null) ?? null;

const median = (values: number[]) => values.slice().sort((a, b) => a - b)[values.length >> 1];

if (adapter && devices.includes("webgpu")) {
  defaultDevice("webgpu");
  const client = await createClient({ adapter });
  const read = async (...handles: Handle[]): Promise<Out> => {
    const out = [];
    for (const h of handles) {
      out.push(await client.read(h) as ArrayLike<number>);
      h.dispose();
    }
    return out;
  };
  const data = floats(N);
  // The largest value past the first 65,536 elements, where a loop cut off at 65,535 iterations
  // (llvmpipe) would miss it: a random position is there with probability 15/16 only.
  const best = N - 3 - Math.floor(Math.random() * 1000);
  data[best] = 1.5;
  const x = client.createWithData(data);
  const jx = np.array(data);

  const reference = new Float64Array(N); // the prefix sums, in f64
  for (let i = 0, s = 0; i < N; i++) reference[i] = s += data[i];
  // Probes of what does not work on this adapter, printed and not timed.
  {
    const sums = await np.cumsum(jx.ref).data();
    console.log(`jax-js eager cumsum of 1M: ${close(sums, reference, 1e-2) ?? "right"}`);
    console.log(`jax-js eager sum of 1M ones: ${(await np.sum(np.ones([N])).data())[0]}`);
    const eager = (await np.argmax(jx.ref).data())[0];
    console.log(`jax-js eager argmax of 1M: ${eager} (CPU: ${best}; jit: see the checks below)`);
    const ids = np.array(Int32Array.from({ length: N }, (_, i) => i % 1000));
    try {
      const [y, pull] = vjp((t: np.Array) => np.take(t, ids), [np.zeros([1000])]);
      y.dispose();
      const [sums] = pull(jx.ref) as unknown as [np.Array];
      await sums.data();
      console.log("jax-js scatter-add (vjp of take): ran");
    } catch (e) {
      console.log(`jax-js scatter-add (vjp of take) fails: ${String(e).split("\n")[0]}`);
    }
  }

  const pairs: Pair[] = [];
  {
    const f = jit((v: np.Array) => np.cumsum(v));
    pairs.push({
      name: "cumsum 1M f32",
      jax: async () => [await f(jx.ref).data()],
      ours: () => read(cumsum(client, x)),
      check: ([a], [b]) => close(a, reference, 1e-2) ?? close(b, reference, 1e-2),
    });
  }
  {
    const f = jit((v: np.Array) => np.argmax(v));
    pairs.push({
      name: "argmax 1M f32",
      jax: async () => [await f(jx.ref).data()],
      ours: () => read(argmax(client, x)),
      check: (a, b) => close(a[0], [best], 0) ?? close(b[0], [best], 0),
    });
  }
  {
    const f = jit((v: np.Array) => lax.topK(v, 8));
    pairs.push({
      name: "topk 1M f32, k = 8",
      jax: async () => {
        const [values, indices] = f(jx.ref);
        return [await values.data(), await indices.data()];
      },
      ours: () => {
        const { values, indices } = topk(client, x, 8);
        return read(values, indices);
      },
      check: equal,
    });
  }
  {
    const keys = Uint32Array.from({ length: N }, () => (Math.random() * 2 ** 32) >>> 0);
    const hk = client.createWithData(keys);
    const jk = np.array(keys);
    const f = jit((v: np.Array) => np.sort(v));
    const g = jit((v: np.Array) => np.argsort(v));
    const cpu = keys.slice().sort();
    pairs.push({
      name: "sort 1M u32",
      jax: async () => [await f(jk.ref).data()],
      ours: () => read(sort(client, hk)),
      check: (a, b) => close(a[0], cpu, 0) ?? close(b[0], cpu, 0),
    });
    pairs.push({
      name: "argsort 1M f32",
      jax: async () => [await g(jx.ref).data()],
      ours: () => read(argsort(client, x)),
      check: equal,
    });
  }
  {
    const idx = Int32Array.from({ length: N }, () => Math.floor(Math.random() * N));
    const hi = client.createWithData(Uint32Array.from(idx));
    const ji = np.array(idx);
    const f = jit((a: np.Array, i: np.Array) => np.take(a, i));
    pairs.push({
      name: "gather (take) 1M of 1M f32",
      jax: async () => [await f(jx.ref, ji.ref).data()],
      ours: () => read(gather(client, x, hi)),
      check: (a, b) => close(a[0], Float32Array.from(idx, (i) => data[i]), 0) ?? equal(a, b),
    });
  }
  {
    const side = 1024;
    const jm = jx.ref.reshape([side, side]);
    const f = jit((m: np.Array) => np.transpose(m));
    pairs.push({
      name: `transpose ${side}x${side} f32`,
      jax: async () => [await f(jm.ref).data()],
      ours: () => read(transpose(client, x, { shape: [side, side] })),
      check: (a, b) => (a[0][1] === data[side] ? equal(a, b) : "not a transpose"),
    });
  }
  const tuner = new Tuner(client, { persistent: false, progressBar: false });
  for (const n of [512, 1024]) {
    const ja = jx.ref.slice([0, n * n]).reshape([n, n]);
    const a = client.createWithData(data.subarray(0, n * n));
    (await matmul(client, a, a, { m: n, n, k: n, tune: tuner })).dispose(); // tune once
    const f = jit((p: np.Array, q: np.Array) => np.matmul(p, q));
    pairs.push({
      name: `matmul ${n}^3 f32 (ours tuned)`,
      jax: async () => [await f(ja.ref, ja.ref).data()],
      ours: async () => read(await matmul(client, a, a, { m: n, n, k: n, tune: tuner })),
      check: ([p], [q]) => close(p, q, 1e-3),
    });
  }
  {
    const f = jit((k: np.Array) => jaxRandom.uniform(k, [N]));
    const uniform = (u: ArrayLike<number>) => {
      let sum = 0;
      for (let i = 0; i < u.length; i++) {
        if (!(u[i] >= 0 && u[i] < 1)) return `element ${i} = ${u[i]} outside [0, 1)`;
        sum += u[i];
      }
      return Math.abs(sum / u.length - 0.5) < 0.01 ? null : `mean ${sum / u.length}`;
    };
    let seed = 0;
    pairs.push({
      name: "random uniform 1M f32 (different generators)",
      jax: async () => [await f(jaxRandom.key(++seed)).data()],
      ours: () => read(random(client, N, { seed: ++seed })),
      check: ([a], [b]) => (a.length === N && b.length === N ? uniform(a) ?? uniform(b) : "length"),
    });
  }

  const timed: Pair[] = [];
  for (const pair of pairs) {
    const wrong = pair.check(await pair.jax(), await pair.ours());
    if (wrong === null) timed.push(pair);
    else console.log(`${pair.name}: results differ (${wrong}); not timed`);
  }
  const rounds = new Map<Pair, [number, number][]>(timed.map((p) => [p, []]));
  const time = async (fn: () => Promise<Out>) => {
    const start = performance.now();
    await fn();
    return performance.now() - start;
  };
  for (let r = 0; r < ROUNDS; r++) {
    for (const pair of timed) rounds.get(pair)!.push([await time(pair.jax), await time(pair.ours)]);
  }
  for (const pair of timed) {
    const times = rounds.get(pair)!;
    const [j, o] = [0, 1].map((k) => median(times.map((t) => t[k])));
    const ratio = median(times.map(([a, b]) => a / b));
    console.log(
      `${pair.name}: jax-js ${j.toFixed(1)} ms, gpucompute ${o.toFixed(1)} ms; jax-js time over ` +
        `ours, median of ${ROUNDS} interleaved rounds: ${ratio.toFixed(2)}`,
    );
    // A fixed count: some jax-js iterations take seconds on llvmpipe.
    const bench = { group: pair.name, n: BENCH_N, warmup: 1 };
    Deno.bench({
      ...bench,
      name: `jax-js ${pair.name}`,
      baseline: true,
      fn: async () => void await pair.jax(),
    });
    Deno.bench({
      ...bench,
      name: `gpucompute ${pair.name}`,
      fn: async () => void await pair.ours(),
    });
  }
}
