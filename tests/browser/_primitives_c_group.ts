/**
 * The browser suite's group for what the other primitive groups leave out: custom reductions,
 * matmul tuned by default (its pick kept in IndexedDB under the tuner "default"), and the typed
 * errors a web page catches (unknown option keys, overlapping outputs, wrong arguments, a
 * disposed handle): the same classes and codes as on Deno.
 *
 * @module
 */

import assert from "node:assert/strict";
import {
  argmax,
  argmin,
  argsort,
  bincount,
  BufferTooBigError,
  CompilationError,
  ComputeError,
  createClient,
  cumsum,
  DestroyedError,
  dot,
  elementwise,
  gather,
  histogram,
  InvalidHandleError,
  KernelArgumentError,
  matmul,
  random,
  reduce,
  reduction,
  scan,
  scatterAdd,
  segmentReduce,
  sort,
  topk,
  transpose,
} from "../../mod.ts";
import { unit, words } from "../_philox.ts";
import { TuneCache } from "../../runtime/tune/mod.ts";
import { VERSION } from "../../runtime/tune/_version.ts";
import type { PageTestContext } from "./_page_harness.ts";

/** The group, by name, for `runGroups`. */
export const primitivesCGroup = {
  "primitives: reduction, tuned matmul, typed errors": async (t: PageTestContext) => {
    using client = await createClient();
    await t.step("reduction: a norm and row maxima", async () => {
      const norm = reduction({
        inputs: ["x"],
        map: "x * x",
        combine: "a + b",
        identity: "0.0",
        finish: "sqrt(r)",
      });
      const rowMax = reduction({ inputs: ["x"], combine: "max(a, b)", identity: "-3.4e38" });
      using x = client.createWithData(new Float32Array([3, 4, 0, 0, -1, 7]));
      using n = norm.run(client, { x });
      using r = rowMax.run(client, { x }, { shape: [2, 3], axis: 1 });
      const [nn, rr] = await client.readMany([n, r], Float32Array);
      assert.equal(nn[0], Math.fround(Math.sqrt(75)));
      assert.deepEqual([...rr], [4, 7]);
    });
    await t.step(
      "matmul tuned by default: the untuned product, the pick in IndexedDB",
      async () => {
        const [m, n, k] = [8, 12, 16];
        const av = Float32Array.from({ length: m * k }, (_, i) => (i % 7) - 3);
        const bv = Float32Array.from({ length: k * n }, (_, i) => (i % 5) * 0.5);
        using a = client.createWithData(av);
        using b = client.createWithData(bv);
        using tuned = await matmul(client, a, b, { m, n, k });
        using plain = await matmul(client, a, b, { m, n, k, tune: false });
        const [tc, pc] = await client.readMany([tuned, plain], Float32Array);
        const cpu = new Float32Array(m * n);
        for (let i = 0; i < m; i++) {
          for (let j = 0; j < n; j++) {
            let s = 0;
            for (let p = 0; p < k; p++) s += av[i * k + p] * bv[p * n + j];
            cpu[i * n + j] = s;
          }
        }
        assert.deepEqual(tc, cpu);
        assert.deepEqual(pc, cpu);
        // Every variant sums with fma in k order: the same bits for inexact products too.
        const [m2, n2, k2] = [5, 36, 33];
        using c = client.createWithData(
          Float32Array.from({ length: m2 * k2 }, (_, i) => 1 / (i + 3)),
        );
        using d = client.createWithData(
          Float32Array.from({ length: k2 * n2 }, (_, i) => Math.sin(i)),
        );
        using tuned2 = await matmul(client, c, d, { m: m2, n: n2, k: k2 });
        using plain2 = await matmul(client, c, d, { m: m2, n: n2, k: k2, tune: false });
        const [t2, p2] = await client.readMany([tuned2, plain2], Float32Array);
        assert.deepEqual(t2, p2);
        const { backend, deviceName } = client.server.properties;
        const device = `${backend}-${deviceName}`.toLowerCase().replace(/[^a-z0-9._-]+/g, "-");
        if (!("indexedDB" in globalThis)) return; // Deno: the file cache's tests cover it
        const body = await storedBody(`v${VERSION}/${device}/default`);
        const keys = Object.keys(body?.entries ?? {});
        assert.ok(keys.some((key) => key.startsWith("matmul/")), keys.join());
      },
    );
    await t.step(
      "random: words past 2^32 blocks and uniform numbers bit-exact, normal close",
      async () => {
        const seed = 2 ** 40 + 12345;
        const offset = 2 ** 34 + 3; // the counter's high word is 1
        using w = random(client, 9, { seed, offset, dtype: "u32" });
        using u = random(client, 1001, { seed: 5, offset: 6, low: -3, high: 5.5 });
        using g = random(client, 257, {
          seed: 11,
          offset: 1,
          distribution: "normal",
          mean: 2,
          std: 3,
        });
        const [ww, uu, gg] = await client.readMany([w, u, g]);
        assert.deepEqual(ww, words(BigInt(seed), offset, 9));
        const span = Math.fround(5.5 + 3);
        const uniform = (x: number) => Math.fround(Math.fround(unit(x) * span) + Math.fround(-3));
        assert.deepEqual(uu, Float32Array.from(words(5n, 6, 1001), uniform));
        const v = words(11n, 0, 259);
        for (let j = 0; j < gg.length; j++) {
          const i = j + 1;
          const p = i - (i % 2);
          const r = Math.sqrt(-2 * Math.log(1 - unit(v[p])));
          const angle = 2 * Math.PI * unit(v[p + 1]);
          const z = (i % 2 === 0 ? Math.cos(angle) : Math.sin(angle)) * r;
          // WGSL lets cos and sin be 2^-11 off (SwiftShader is, by ~2e-4; llvmpipe by ~5e-7).
          const tolerance = 3 * r * 2 ** -11 + 1e-4 * (1 + Math.abs(z));
          assert.ok(Math.abs(gg[j] - (2 + 3 * z)) < tolerance, `${j}: ${gg[j]}`);
        }
      },
    );
    await t.step("histogram: values on NumPy's f32 edges and just below them", async () => {
      const [bins, low, high] = [10, 0.1, 0.7];
      const f = Math.fround;
      const width = f((f(high) - f(low)) / bins);
      const edge = (k: number) => k === bins ? f(high) : f(f(low) + f(k * width));
      const below = (v: number) => { // the f32 before v (v > 0)
        const word = new Uint32Array(new Float32Array([v]).buffer);
        word[0]--;
        return new Float32Array(word.buffer)[0];
      };
      const values = [f(low), f(high)];
      const expected = new Uint32Array(bins);
      expected[0]++, expected[bins - 1]++;
      for (let k = 1; k < bins; k++) {
        values.push(edge(k), below(edge(k)));
        expected[k]++, expected[k - 1]++;
      }
      using x = client.createWithData(new Float32Array(values));
      using counts = histogram(client, x, { bins, range: [low, high] });
      assert.deepEqual(await client.read(counts), expected);
    });
    await t.step("sort, argsort, argmax, topk order subnormal values exactly", async () => {
      const tiny = new Float32Array([1e-40, -1e-45, 0, 1e-45, -1e-40, 2e-40, -0]);
      using x = client.createWithData(tiny);
      using sorted = sort(client, x);
      using order = argsort(client, x);
      using hi = argmax(client, x);
      using lo = argmin(client, x);
      const top = topk(client, x, 2);
      using _v = top.values;
      using _i = top.indices;
      const [s, o, h, l, ti] = await client.readMany([sorted, order, hi, lo, top.indices]);
      const cpu = [...tiny.keys()].sort((a, b) => tiny[a] - tiny[b] || a - b);
      assert.deepEqual([...o], cpu);
      assert.deepEqual([...s], cpu.map((i) => tiny[i]));
      assert.deepEqual([...h, ...l, ...ti], [5, 4, 5, 0]);
    });
    await t.step("a launch past 65,535 workgroups is folded, its builtins as asked", async () => {
      const census = {
        id: "census",
        source: `
@group(0) @binding(0) var<storage, read_write> c: array<atomic<u32>>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) li: u32, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(workgroup_id) wid: vec3u) {
  atomicAdd(&c[0], 1u);
  if (li == 0u) {
    atomicMax(&c[1], wid.x); atomicMax(&c[2], wid.y + wid.z);
    atomicMax(&c[3], nwg.x); atomicMax(&c[4], nwg.y + nwg.z);
  }
}`,
      };
      using c = client.zeros(5, "u32");
      client.execute(census, { threads: 64 * 65_536 + 1, buffers: [c] });
      const groups = 65_537;
      assert.deepEqual([...await client.read(c)], [groups * 64, groups - 1, 0, groups, 2]);
    });
    await t.step("two caches of one IndexedDB key writing at once keep both entries", async () => {
      if (!("indexedDB" in globalThis)) return; // Deno: tests/tune_cache_entries_test.ts
      const key = `qa-concurrent-${Date.now()}`;
      const [one, two] = await Promise.all([
        TuneCache.open(key, { store: "indexeddb" }),
        TuneCache.open(key, { store: "indexeddb" }),
      ]);
      await Promise.all([
        one.set("s/n=1", { checksum: "c", fastest: "a", results: [] }),
        two.set("s/n=2", { checksum: "c", fastest: "b", results: [] }),
      ]);
      const three = await TuneCache.open(key, { store: "indexeddb" });
      assert.deepEqual([three.get("s/n=1", "c")?.fastest, three.get("s/n=2", "c")?.fastest], [
        "a",
        "b",
      ]);
      assert.deepEqual([...one.warnings, ...two.warnings, ...three.warnings], []);
    });
    await t.step(
      "scatterAdd and segmentReduce under contention: 8,192 values on 2 slots",
      async () => {
        const n = 8192;
        using target = client.zeros(2, "f32");
        using idx = client.createWithData(Uint32Array.from({ length: n }, (_, i) => i % 2));
        using ones = client.createWithData(Float32Array.from({ length: n }, (_, i) => (i % 5) - 1));
        scatterAdd(client, target, idx, ones);
        using mx = segmentReduce(client, ones, idx, { segments: 2, op: "max" });
        using sm = segmentReduce(client, ones, idx, { segments: 2 });
        const [sum, max, seg] = await client.readMany([target, mx, sm]);
        const cpu = [0, 0];
        for (let i = 0; i < n; i++) cpu[i % 2] += (i % 5) - 1;
        assert.deepEqual([...sum], cpu);
        assert.deepEqual([...seg], cpu);
        assert.deepEqual([...max], [3, 3]);
      },
    );
    await t.step("elementwise i32: WGSL's division by zero and overflow, as on Deno", async () => {
      const div = elementwise({ inputs: { a: "i32", b: "i32" }, expression: "a / b + a % b" });
      const min = -(2 ** 31);
      using a = client.createWithData(new Int32Array([7, -7, min, min, 5]));
      using b = client.createWithData(new Int32Array([0, 2, -1, 0, -3]));
      using q = div.run(client, { a, b });
      // x / 0 and x / -1 at the minimum are x, x % 0 and x % -1 at the minimum are 0.
      assert.deepEqual([...await client.read(q)], [7 + 0, -3 - 1, min + 0, min + 0, -1 + 2]);
    });
    await t.step("an unknown option key is a TypeError naming it, on every helper", async () => {
      using x = client.createWithData(new Float32Array([1, 2, 3, 4]));
      using u = client.createWithData(new Uint32Array([0, 1, 2, 3]));
      const bogus = { bogus: 1 } as Record<string, unknown>;
      const square = elementwise({ inputs: ["x"], expression: "x * x" });
      const sum = reduction({ inputs: ["x"], combine: "a + b", identity: "0.0" });
      const calls: [string, () => unknown][] = [
        ["elementwise", () => square.run(client, { x }, bogus)],
        ["elementwise spec", () => elementwise({ inputs: ["x"], expression: "x", ...bogus })],
        ["reduction", () => sum.run(client, { x }, bogus)],
        ["reduce", () => reduce(client, x, bogus)],
        ["dot", () => dot(client, [x, x], bogus)],
        ["cumsum", () => cumsum(client, x, bogus)],
        ["scan", () => scan(client, x, bogus)],
        ["sort", () => sort(client, x, bogus)],
        ["argmax", () => argmax(client, x, bogus)],
        ["topk", () => topk(client, x, 2, bogus)],
        ["histogram", () => histogram(client, x, { bins: 2, range: [0, 4], ...bogus })],
        ["bincount", () => bincount(client, u, { length: 4, ...bogus })],
        ["random", () => random(client, 4, { seed: 1, ...bogus })],
        ["gather", () => gather(client, x, u, bogus)],
        ["scatterAdd", () => scatterAdd(client, x, u, x, bogus)],
        ["segmentReduce", () => segmentReduce(client, x, u, { segments: 4, ...bogus })],
        ["transpose", () => transpose(client, x, { shape: [2, 2], ...bogus })],
      ];
      for (const [name, call] of calls) {
        assert.throws(
          call,
          (e: unknown) => e instanceof TypeError && /bogus/.test(String(e)),
          name,
        );
      }
      for (
        const call of [
          () => matmul(client, x, x, { m: 2, n: 2, k: 2, ...bogus }),
          () => client.read(x, bogus),
        ]
      ) {
        await assert.rejects(
          call,
          (e: unknown) => e instanceof TypeError && /bogus/.test(String(e)),
        );
      }
    });
    await t.step("typed errors: compilation, buffer too big, destroyed client", async () => {
      const bad = elementwise({ inputs: ["x"], expression: "x * undefined_name" });
      using x = client.createWithData(new Float32Array([1, 2]));
      using out = bad.run(client, { x }); // compiled on the device: the read says
      await assert.rejects(
        () => client.read(out),
        (e: unknown) => e instanceof CompilationError && e.code === "COMPILATION",
      );
      const huge = client.server.properties.maxAllocationSize + 4;
      assert.throws(
        () => client.empty(huge, "u8"),
        (e: unknown) => e instanceof BufferTooBigError && e.code === "BUFFER_TOO_BIG",
      );
      assert.deepEqual([...await client.read(x, Float32Array)], [1, 2]); // still usable
      const other = await createClient();
      using y = other.createWithData(new Float32Array([1]));
      other.destroy();
      await assert.rejects(
        () => other.read(y, Float32Array),
        (e: unknown) => e instanceof DestroyedError && e.code === "DESTROYED",
      );
    });
    await t.step(
      "typed errors: overlap, kernel arguments, disposed handles, with codes",
      async () => {
        using x = client.createWithData(new Float32Array([1, 2, 3, 4]));
        using idx = client.createWithData(new Uint32Array([0, 1, 2, 3]));
        assert.throws(() => scatterAdd(client, x, idx, x), (e: unknown) => e instanceof RangeError);
        const saxpy = elementwise({ inputs: ["x"], params: { a: "f32" }, expression: "a * x" });
        assert.throws(
          () => saxpy.run(client, { x }, { params: { a: "two" } } as never),
          (e: unknown) =>
            e instanceof KernelArgumentError && e.code === "KERNEL_ARGUMENT" &&
            /a/.test(e.argument),
        );
        const y = client.createWithData(new Float32Array([1]));
        y.dispose();
        await assert.rejects(
          () => client.read(y, Float32Array),
          (e: unknown) =>
            e instanceof InvalidHandleError && e instanceof ComputeError &&
            e.code === "INVALID_HANDLE",
        );
      },
    );
  },
};

/** The tune cache body stored in IndexedDB under `key`, read with IndexedDB itself. */
async function storedBody(key: string): Promise<{ entries: Record<string, unknown> } | undefined> {
  // deno-lint-ignore no-explicit-any
  const idb = (globalThis as any).indexedDB;
  const open = idb.open("gpucompute");
  // deno-lint-ignore no-explicit-any
  const db: any = await new Promise((resolve, reject) => {
    open.onsuccess = () => resolve(open.result);
    open.onerror = () => reject(open.error);
  });
  try {
    const request = db.transaction("tune-cache", "readonly").objectStore("tune-cache").get(key);
    return await new Promise((resolve, reject) => {
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
    });
  } finally {
    db.close();
  }
}
