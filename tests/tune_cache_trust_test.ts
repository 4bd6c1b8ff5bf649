// What a cached pick must have been to be served: a tuner with output checks on never runs a pick
// that was not checked (tuned without checks, by another tuner sharing the file, or planted), and
// no tuner runs a pick whose own recorded outcome says it failed or was never measured; and the
// cache is never put where the user did not mean (an empty cacheDir).
import assert from "node:assert/strict";
import { join } from "node:path";
import { TunableSet, TuneCache, Tuner } from "../runtime/tune/mod.ts";
import { FakeTuneClient } from "./fixtures/fake_tune_client.ts";

const TMP = ".tmp";
const quiet = { progressBar: false, sampling: { minSampleMs: 0, maxSamples: 3 } } as const;

async function tempDir(): Promise<string> {
  await Deno.mkdir(TMP, { recursive: true });
  return await Deno.makeTempDir({ dir: TMP, prefix: "tune_trust_" });
}

/** "wrong" is the fastest and gives a wrong output; "right" agrees with the reference. */
function wrongIsFastest(client: FakeTuneClient) {
  const outputs: Record<string, number[]> = { reference: [1, 2], wrong: [1, 3], right: [1, 2] };
  const cost: Record<string, number> = { reference: 9, wrong: 1, right: 5 };
  return new TunableSet("trust", {
    key: (n: number) => ({ n }),
    candidates: Object.keys(outputs).map((name) => ({
      name,
      run: () => {
        client.spend(name, cost[name]);
        return outputs[name];
      },
    })),
  });
}

Deno.test("with checks on, a pick cached without checks is tuned again and checked", async () => {
  const dir = await tempDir();
  try {
    const client = new FakeTuneClient();
    const set = wrongIsFastest(client);
    const unchecked = new Tuner(client, { ...quiet, cacheDir: dir, name: "trust" });
    assert.equal((await unchecked.tune(set, 2)).fastest, "wrong", "nothing checks it");
    // The user turns the checks on: the wrong pick in the file must not be served.
    const checked = new Tuner(client, { ...quiet, cacheDir: dir, name: "trust", checks: true });
    const outcome = await checked.tune(set, 2);
    assert.equal(outcome.fromCache, false, "tuned again, with checks");
    assert.equal(outcome.fastest, "right");
    assert.deepEqual(await checked.execute(set, 2), [1, 2]);
    // The checked pick persists, and serves both kinds of tuner afterwards.
    for (const checks of [true, false]) {
      const next = new Tuner(client, { ...quiet, cacheDir: dir, name: "trust", checks });
      const again = await next.tune(set, 2);
      assert.deepEqual([again.fromCache, again.fastest], [true, "right"], `checks ${checks}`);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a cached pick whose recorded outcome is not ok (hand-edited) is tuned again", async () => {
  const dir = await tempDir();
  try {
    const client = new FakeTuneClient();
    const set = wrongIsFastest(client);
    const tuner = new Tuner(client, { ...quiet, cacheDir: dir, name: "edited" });
    const file = tuner.cacheFile!;
    await Deno.mkdir(join(file, ".."), { recursive: true });
    const results = [
      { name: "reference", status: "ok", medianMs: 9, samples: 3 },
      { name: "wrong", status: "failed", samples: 0, error: "TuneMismatchError: element 1" },
      { name: "right", status: "ok", medianMs: 5, samples: 3 },
    ];
    const entry = (fastest: string) => ({ checksum: set.checksum, fastest, results });
    await Deno.writeTextFile(
      file,
      JSON.stringify({
        format: 1,
        entries: { "trust/n=1": entry("wrong"), "trust/n=3": entry("right") },
      }),
    );
    const edited = await tuner.tune(set, 1);
    assert.equal(edited.fromCache, false, "the failed candidate is not served");
    const valid = await tuner.tune(set, 3);
    assert.deepEqual([valid.fromCache, valid.fastest], [true, "right"], "a consistent entry is");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("an empty cacheDir is a RangeError, not the file system's root", () => {
  const client = new FakeTuneClient();
  for (const cacheDir of ["", "  "]) {
    assert.throws(() => new Tuner(client, { cacheDir }), {
      name: "RangeError",
      message: /cacheDir/,
    });
  }
  assert.throws(() => new Tuner(client, { cacheDir: 3 as never }), TypeError);
});

Deno.test("a candidate timed NaN or Infinity is never picked, and the cache file stays readable", async () => {
  const dir = await tempDir();
  try {
    for (const [n, bad] of [[1, Number.NaN], [2, Infinity], [3, -1]]) {
      const client = new FakeTuneClient();
      const set = new TunableSet("odd", {
        key: (n: number) => ({ n }),
        candidates: ["odd", "ok"].map((name) => ({
          name,
          run: () => client.spend(name, name === "odd" ? bad : 1),
        })),
      });
      const tuner = new Tuner(client, { ...quiet, cacheDir: dir, name: "odd" });
      const outcome = await tuner.tune(set, n);
      assert.equal(outcome.fastest, "ok", `timed ${bad}`);
      assert.equal(outcome.results.find((r) => r.name === "odd")?.status, "failed");
      assert.match(String(outcome.errors.get("odd")), /RangeError/);
      // A JSON file holds no NaN or Infinity: the next run must still read every entry.
      const next = new Tuner(client, { ...quiet, cacheDir: dir, name: "odd" });
      assert.equal((await next.tune(set, n)).fromCache, true, `timed ${bad}`);
      assert.deepEqual((await next.cache()).warnings, []);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("TuneCache.set refuses what is not a CacheEntry (it made the whole file corrupt)", async () => {
  const dir = await tempDir();
  try {
    const file = join(dir, "c.json");
    const cache = await TuneCache.open(file);
    await cache.set("good", { checksum: "c", fastest: "a", results: [] });
    const nan = { name: "a", status: "ok" as const, medianMs: Number.NaN };
    for (const bad of [{ checksum: 3 }, { checksum: "c", fastest: "a", results: [nan] }, null]) {
      await assert.rejects(cache.set("bad", bad as never), { name: "TypeError", message: /entry/ });
    }
    await assert.rejects(cache.set(1 as never, { checksum: "c", fastest: "a", results: [] }), {
      name: "TypeError",
      message: /key/,
    });
    assert.equal(cache.size, 1);
    const again = await TuneCache.open(file);
    assert.deepEqual([again.size, again.warnings], [1, []]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("two sets of one name (other candidates) share no tuning run and no failure", async () => {
  const client = new FakeTuneClient();
  const make = (names: string[], fail = false) =>
    new TunableSet("same", {
      key: (n: number) => ({ n }),
      candidates: names.map((name, i) => ({
        name,
        run: () => {
          client.spend(name, i + 1);
          if (fail) throw new Error(`${name} cannot run`);
          return [name];
        },
      })),
    });
  const tuner = new Tuner(client, { ...quiet, persistent: false });
  // Concurrent calls used to share the first set's run: the second ran a candidate it lacks
  // ("Cannot read properties of undefined").
  const [a, b] = await Promise.all([
    tuner.execute(make(["a1", "a2"]), 1),
    tuner.execute(make(["b1", "b2"]), 1),
  ]);
  assert.deepEqual([a, b], [["a1"], ["b1"]]);
  // A failed key of one set is not the other's failure.
  await assert.rejects(tuner.tune(make(["x1", "x2"], true), 2), { name: "TuneFailedError" });
  assert.equal((await tuner.tune(make(["y1", "y2"]), 2)).fastest, "y1");
});

Deno.test("a cached pick that throws where the fallback runs is marked failed and tuned again", async () => {
  const client = new FakeTuneClient();
  let broken = false; // "fast" stops working after tuning (a driver update, a cache from elsewhere)
  type In = { n: number; bad?: boolean };
  const candidate = (name: string, ms: number) => ({
    name,
    run: ({ n, bad }: In) => {
      client.spend(name, ms);
      if (name === "fast" && broken) throw new Error("fast no longer launches here");
      if (bad) throw new RangeError("the inputs are bad");
      return [n];
    },
  });
  const set = new TunableSet("broken", {
    key: ({ n }: In) => ({ n }),
    fallback: "slow",
    candidates: [candidate("fast", 1), candidate("slow", 5)],
  });
  const tuner = new Tuner(client, { ...quiet, persistent: false });
  assert.equal((await tuner.tune(set, { n: 2 })).fastest, "fast");
  // A caller's mistake fails the fallback too: the pick's own error, the entry kept.
  await assert.rejects(tuner.execute(set, { n: 2, bad: true }), /the inputs are bad/);
  assert.equal((await tuner.tune(set, { n: 2 })).fromCache, true);
  broken = true;
  assert.deepEqual(await tuner.execute(set, { n: 2 }), [2], "the fallback ran instead");
  const outcome = await tuner.tune(set, { n: 2 });
  assert.equal(outcome.fromCache, false, "the failed pick is not served again");
  assert.equal(outcome.fastest, "slow");
  assert.deepEqual(await tuner.execute(set, { n: 2 }), [2]);
});
