// QA wave 10: the real matmul set on WebGPU with a planted cache entry whose pick throws for the
// inputs: where the fallback throws too (a caller's mistake) the pick's error comes back and the
// entry stays; the tuner and client stay usable, and a right product follows.
import assert from "node:assert/strict";
import { join } from "node:path";
import { createClient } from "../mod.ts";
import { matmulSet, Tuner } from "../runtime/tune/mod.ts";

const adapter = await navigator.gpu?.requestAdapter();
const ignore = adapter === null || adapter === undefined;
const quiet = { progressBar: false, sampling: { minSampleMs: 0, maxSamples: 3 } } as const;

Deno.test({
  name: "qa10 tune: a planted matmul pick refused for the inputs (k past llvmpipe's loop limit, " +
    "a disposed input) rejects with its error, keeps its entry, and the tuner serves it after",
  ignore,
  async fn() {
    await Deno.mkdir(".tmp", { recursive: true });
    const dir = await Deno.makeTempDir({ dir: ".tmp", prefix: "qa10_matmul_" });
    try {
      using client = await createClient({ adapter: adapter! });
      const set = matmulSet(client);
      const tuner = new Tuner(client, { ...quiet, cacheDir: dir, name: "qa10" });
      const plant = async (m: number, n: number, k: number) => {
        const file = tuner.cacheFile!;
        await Deno.mkdir(join(file, ".."), { recursive: true });
        const key = set.keyString({ a: undefined!, b: undefined!, m, n, k });
        const entry = { checksum: set.checksum, fastest: "shared_8x8", results: [] };
        await Deno.writeTextFile(
          file,
          JSON.stringify({ format: 1, entries: { [`matmul/${key}`]: entry } }),
        );
      };
      const [m, n, k] = [3, 5, 6];
      await plant(m, n, k);
      const a = Float32Array.from({ length: m * k }, (_, i) => (i % 7) - 3);
      const b = Float32Array.from({ length: k * n }, (_, i) => (i % 5) - 2);
      using hb = client.createWithData(b);
      const gone = client.createWithData(a);
      gone.dispose();
      await assert.rejects(tuner.execute(set, { a: gone, b: hb, m, n, k }));
      assert.equal(tuner.fastest(set, { a: undefined!, b: hb, m, n, k }), "shared_8x8", "kept");
      if (/llvmpipe/i.test(client.server.properties.deviceName)) {
        const big = 65_536;
        using ha = client.createWithData(new Float32Array(big));
        using hk = client.createWithData(new Float32Array(big));
        await assert.rejects(tuner.execute(set, { a: ha, b: hk, m: 1, n: 1, k: big }), RangeError);
      }
      using ha = client.createWithData(a);
      const tunings = tuner.stats.tunings; // the k past the limit was a key of its own
      using c = await tuner.execute(set, { a: ha, b: hb, m, n, k });
      const got = await client.read(c, Float32Array);
      for (let i = 0; i < m; i++) {
        for (let j = 0; j < n; j++) {
          let sum = 0;
          for (let p = 0; p < k; p++) sum += a[i * k + p] * b[p * n + j];
          assert.equal(got[i * n + j], sum, `c[${i}, ${j}]`);
        }
      }
      assert.equal(tuner.stats.tunings, tunings, "served from the planted entry");
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
