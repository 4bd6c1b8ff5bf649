// The tune cache file is data, not trusted: entries a user edited, an older build wrote or
// another set left behind must never pick a candidate that gives a wrong result; they are
// ignored with a log line and the key is tuned again.
import assert from "node:assert/strict";
import { join } from "node:path";
import { configure, type LogRecord, reset } from "@logtape/logtape";
import { createClient, DestroyedError, matmul, OutOfMemoryError } from "../mod.ts";
import { matmulSet, TunableSet, TuneFailedError, Tuner } from "../runtime/tune/mod.ts";
import { FakeTuneClient } from "./fixtures/fake_tune_client.ts";

const adapter = await navigator.gpu?.requestAdapter();
const ignore = adapter === null || adapter === undefined; // no WebGPU adapter on this machine
const TMP = ".tmp";
const quiet = { progressBar: false, sampling: { minSampleMs: 0, maxSamples: 3 } } as const;

async function tempDir(): Promise<string> {
  await Deno.mkdir(TMP, { recursive: true });
  return await Deno.makeTempDir({ dir: TMP, prefix: "tune_entries_" });
}

/** Writes a cache body with these entries where the tuner reads its cache. */
async function plant(tuner: Tuner, entries: Record<string, unknown>): Promise<void> {
  const file = tuner.cacheFile!;
  await Deno.mkdir(join(file, ".."), { recursive: true });
  await Deno.writeTextFile(file, JSON.stringify({ format: 1, entries }));
}

Deno.test({
  name: "a cached matmul pick that must not run for the key (vec4, n % 4 != 0) is re-tuned",
  ignore,
  async fn() {
    const dir = await tempDir();
    try {
      using client = await createClient({ adapter: adapter! });
      const set = matmulSet(client);
      const [m, n, k] = [20, 18, 10]; // n is not a multiple of 4: the vec4 variants read wrong
      const tuner = new Tuner(client, { ...quiet, cacheDir: dir, name: "vec4" });
      const key = set.keyString({ a: undefined!, b: undefined!, m, n, k });
      await plant(tuner, {
        [`matmul/${key}`]: { checksum: set.checksum, fastest: "vec4_8x8_wg8x8", results: [] },
      });
      const a = Float32Array.from({ length: m * k }, (_, i) => (i % 7) - 3);
      const b = Float32Array.from({ length: k * n }, (_, i) => (i % 5) - 2);
      using ha = client.createWithData(a);
      using hb = client.createWithData(b);
      using c = await tuner.execute(set, { a: ha, b: hb, m, n, k });
      const got = await client.read(c, Float32Array);
      for (let i = 0; i < m; i++) {
        for (let j = 0; j < n; j++) {
          let sum = 0;
          for (let p = 0; p < k; p++) sum += a[i * k + p] * b[p * n + j];
          assert.equal(got[i * n + j], sum, `c[${i}, ${j}]`);
        }
      }
      assert.equal(tuner.stats.tunings, 1, "tuned again, not served from the planted entry");
      assert.notEqual(tuner.fastest(set, { a: ha, b: hb, m, n, k }), "vec4_8x8_wg8x8");
      const body = JSON.parse(await Deno.readTextFile(tuner.cacheFile!));
      assert.doesNotMatch(body.entries[`matmul/${key}`].fastest, /^vec4/, "replaced on disk");
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

function threeWay(client: FakeTuneClient) {
  return new TunableSet("three", {
    key: (n: number) => ({ n }),
    candidates: [
      { name: "slow", run: () => client.spend("slow", 10) },
      { name: "fast", run: () => client.spend("fast", 1) },
      // Never runs for n > 100 (say, it is wrong there).
      {
        name: "small",
        run: () => client.spend("small", 0.1),
        priority: (key) => key.n > 100 ? -1 : 0,
      },
    ],
  });
}

Deno.test("cached picks naming no candidate, or one of negative priority for the key, re-tune", async () => {
  const dir = await tempDir();
  try {
    const client = new FakeTuneClient();
    const set = threeWay(client);
    const tuner = new Tuner(client, { ...quiet, cacheDir: dir, name: "three" });
    await plant(tuner, {
      "three/n=1000": { checksum: set.checksum, fastest: "small", results: [] },
      "three/n=2000": { checksum: set.checksum, fastest: "removed", results: [] },
      "three/n=50": { checksum: set.checksum, fastest: "small", results: [] }, // valid
    });
    for (const n of [1000, 2000]) {
      const outcome = await tuner.tune(set, n);
      assert.equal(outcome.fromCache, false, `n=${n}`);
      assert.equal(outcome.fastest, "fast", `n=${n}`);
    }
    assert.equal(client.count("small"), 0, "never run where its priority is negative");
    await tuner.execute(set, 50);
    assert.deepEqual(client.calls.slice(-1), ["small"], "a valid entry is still served");
    assert.equal(tuner.stats.tunings, 2);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("an error thrown by onProgress aborts the run: that error, no candidate blamed, re-tunable", async () => {
  const client = new FakeTuneClient();
  const set = threeWay(client);
  const stop = new Error("enough");
  let abortAt: number | undefined = 2;
  const tuner = new Tuner(client, {
    ...quiet,
    persistent: false,
    onProgress: (p) => {
      if (p.done === abortAt) throw stop;
    },
  });
  await assert.rejects(tuner.tune(set, 7), (error) => error === stop);
  assert.equal(client.calls.length, 2, `no run after the abort: ${client.calls}`);
  assert.equal(tuner.isTuning(set, 7), false);
  abortAt = undefined;
  const outcome = await tuner.tune(set, 7); // not remembered as a failure
  assert.equal(outcome.fastest, "small");
  assert.ok(outcome.results.every((r) => r.status !== "failed"), JSON.stringify(outcome.results));
});

Deno.test({
  name: "destroying the client mid-tune rejects with DestroyedError, promptly",
  ignore,
  async fn() {
    const client = await createClient({ adapter: adapter! });
    const set = matmulSet(client);
    let steps = 0;
    const tuner = new Tuner(client, {
      ...quiet,
      persistent: false,
      onProgress: () => void (++steps === 3 && client.destroy()),
    });
    const [m, n, k] = [32, 32, 32];
    const a = client.createWithData(new Float32Array(m * k).fill(1));
    const b = client.createWithData(new Float32Array(k * n).fill(1));
    await assert.rejects(tuner.tune(set, { a, b, m, n, k }), DestroyedError);
    // The candidate after the destroy finds it (step 4); none runs after that.
    assert.ok(steps <= 4, `${steps} steps`);
  },
});

Deno.test("entries whose results are not candidate outcomes make the body corrupt: warned, re-tuned", async () => {
  const dir = await tempDir();
  try {
    const client = new FakeTuneClient();
    const set = threeWay(client);
    for (const results of [[null], [{ name: "fast" }], [{ name: 3, status: "ok" }], ["ok"]]) {
      const tuner = new Tuner(client, { ...quiet, cacheDir: dir, name: "results" });
      await plant(tuner, {
        "three/n=500": { checksum: set.checksum, fastest: "fast", results },
      });
      const outcome = await tuner.tune(set, 500);
      assert.equal(outcome.fromCache, false, JSON.stringify(results));
      assert.ok(outcome.results.every((r) => typeof r.name === "string"));
      const { warnings } = await tuner.cache();
      assert.match(warnings.join("\n"), /corrupt and was ignored/, JSON.stringify(results));
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("with no cache directory known (no env permission for HOME...) the tuner says so once", async () => {
  const granted = ["HOME", "XDG_CACHE_HOME", "LOCALAPPDATA"].some((variable) =>
    Deno.permissions.querySync({ name: "env", variable }).state === "granted"
  );
  if (granted) return; // run with the test task's permissions: HOME must not be readable
  const before = Deno.env.get("GPUCOMPUTE_CACHE_DIR");
  Deno.env.delete("GPUCOMPUTE_CACHE_DIR");
  try {
    const client = new FakeTuneClient();
    const tuner = new Tuner(client, { ...quiet, name: "nowhere" });
    assert.equal(tuner.cacheFile, undefined);
    const outcome = await tuner.tune(threeWay(client), 9);
    assert.equal(outcome.persisted, false);
    const { warnings } = await tuner.cache();
    assert.equal(warnings.length, 1, warnings.join("\n"));
    assert.match(warnings[0], /No tune cache directory.*GPUCOMPUTE_CACHE_DIR.*stay in memory/);
    const off = new Tuner(client, { ...quiet, persistent: false }); // asked for: no warning
    await off.tune(threeWay(client), 9);
    assert.deepEqual((await off.cache()).warnings, []);
  } finally {
    if (before !== undefined) Deno.env.set("GPUCOMPUTE_CACHE_DIR", before);
  }
});

Deno.test({
  name:
    "matmul refuses a Tuner of another client: its device's picks and profiler are not this one's",
  ignore,
  async fn() {
    using client = await createClient({ adapter: adapter! });
    using other = await createClient({ adapter: adapter! });
    const tuner = new Tuner(other, { ...quiet, persistent: false });
    using a = client.createWithData(new Float32Array(16).fill(1));
    await assert.rejects(
      matmul(client, a, a, { m: 4, n: 4, k: 4, tune: tuner }),
      (e: Error) => e instanceof TypeError && /Tuner of another client/.test(e.message),
    );
    assert.equal(tuner.stats.tunings, 0);
    const own = new Tuner(client, { ...quiet, persistent: false });
    using c = await matmul(client, a, a, { m: 4, n: 4, k: 4, tune: own });
    assert.deepEqual([...await client.read(c, Float32Array)], new Array(16).fill(4));
    assert.equal(own.client, client);
  },
});

Deno.test("entries ignored for another checksum or a pick that must not run are logged, once each", async () => {
  const records: LogRecord[] = [];
  await configure({
    sinks: { memory: (record) => records.push(record) },
    loggers: [
      { category: ["gpucompute", "tune"], sinks: ["memory"], lowestLevel: "info" },
      { category: ["logtape", "meta"], sinks: [], lowestLevel: "warning" },
    ],
  });
  const dir = await tempDir();
  try {
    const client = new FakeTuneClient();
    const set = threeWay(client);
    const tuner = new Tuner(client, { ...quiet, cacheDir: dir, name: "logged" });
    await plant(tuner, {
      "three/n=300": { checksum: "another-backend", fastest: "fast", results: [] },
      "three/n=400": { checksum: set.checksum, fastest: "small", results: [] },
    });
    assert.equal((await tuner.tune(set, 300)).fromCache, false);
    assert.equal((await tuner.tune(set, 400)).fromCache, false);
    const messages = records.map((r) => r.message.join(""));
    const stale = messages.filter((m) =>
      /three\/n=300 ignored: tuned with another candidate/.test(m)
    );
    assert.equal(stale.length, 1, messages.join("\n"));
    const invalid = records.filter((r) =>
      r.level === "warning" &&
      /small.*three\/n=400.*does not run for this key/.test(r.message.join(""))
    );
    assert.equal(invalid.length, 1, messages.join("\n"));
  } finally {
    await reset();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a tuning run out of memory is not remembered: once memory is back the key tunes", async () => {
  const client = new FakeTuneClient();
  let memory = false;
  const spend = (name: string, ms: number) => () => {
    if (!memory) throw new OutOfMemoryError(`Cannot reserve the output of ${name}`);
    client.spend(name, ms);
  };
  const set = new TunableSet("oom", {
    key: (n: number) => ({ n }),
    candidates: [{ name: "a", run: spend("a", 2) }, { name: "b", run: spend("b", 1) }],
  });
  const tuner = new Tuner(client, { ...quiet, persistent: false });
  const error = await tuner.execute(set, 1).catch((e) => e);
  assert.ok(error instanceof TuneFailedError, String(error));
  assert.ok(error.cause instanceof OutOfMemoryError);
  memory = true;
  assert.equal((await tuner.tune(set, 1)).fastest, "b");
  // Other failures are still remembered: the key is not benchmarked on every call.
  const broken = new TunableSet("broken", {
    key: (n: number) => ({ n }),
    candidates: ["x", "y"].map((name) => ({ name, run: () => Promise.reject(new Error(name)) })),
  });
  await assert.rejects(tuner.tune(broken, 1), TuneFailedError);
  const runs = tuner.stats.runs;
  await assert.rejects(tuner.tune(broken, 1), TuneFailedError);
  assert.equal(tuner.stats.runs, runs);
});

Deno.test("two processes tuning the same keys at once both persist; a third finds every key", async () => {
  const dir = await tempDir();
  try {
    const child = () =>
      new Deno.Command("deno", {
        args: [
          "run",
          `--allow-read=${TMP}`,
          `--allow-write=${TMP}`,
          "tests/fixtures/tune_race_tuner.ts",
          dir,
          "6",
        ],
      }).output();
    const outputs = await Promise.all([child(), child()]);
    for (const out of outputs) {
      const text = new TextDecoder().decode(out.stdout);
      assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
      const { outcomes, warnings } = JSON.parse(text);
      assert.deepEqual(warnings, []);
      assert.equal(outcomes.length, 6);
      for (const o of outcomes) assert.deepEqual([o.fastest, o.persisted], ["fast", true], text);
    }
    const client = new FakeTuneClient();
    const set = new TunableSet("race", {
      key: (n: number) => ({ n }),
      candidates: ["slow", "fast"].map((name) => ({ name, run: () => client.spend(name, 1) })),
    });
    const third = new Tuner(client, { ...quiet, cacheDir: dir, name: "race" });
    for (let n = 1; n <= 6; n++) assert.equal((await third.tune(set, n)).fromCache, true, `n=${n}`);
    assert.equal(third.stats.runs, 0);
    const leftovers = [...Deno.readDirSync(join(third.cacheFile!, ".."))].map((e) => e.name);
    assert.deepEqual(leftovers, ["race.json"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
