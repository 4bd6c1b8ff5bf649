// QA wave 10: a cached pick that throws runs the set's fallback; what counts as the pick's fault
// (not memory running out, not a destroyed client) and what a late call may write over.
import assert from "node:assert/strict";
import { TunableSet, Tuner } from "../runtime/tune/mod.ts";
import { DestroyedError, DeviceLostError, OutOfMemoryError } from "../runtime/core/errors.ts";
import { FakeTuneClient } from "./fixtures/fake_tune_client.ts";

const quiet = {
  progressBar: false,
  persistent: false,
  sampling: { minSampleMs: 0, maxSamples: 3 },
} as const;

type In = { n: number; gate?: Promise<void> };

/** "fast" wins the tuning, then throws `failure()` while it is set; "slow" is the fallback. */
function brokenPick(client: FakeTuneClient, reference?: string) {
  const state: { failure?: () => Error } = {};
  const candidate = (name: string, ms: number) => ({
    name,
    run: async ({ n, gate }: In) => {
      client.spend(name, ms);
      if (name === "fast" && state.failure !== undefined) throw state.failure();
      if (name === "slow" && gate !== undefined) await gate;
      return [n];
    },
  });
  const set = new TunableSet("qa10_broken", {
    key: ({ n }: In) => ({ n }),
    fallback: "slow",
    ...(reference === undefined ? {} : { reference }),
    candidates: [candidate("fast", 1), candidate("slow", 5)],
  });
  return { set, state };
}

Deno.test("qa10 tune: a pick out of memory runs the fallback but is not marked failed (memory is not the pick's fault)", async () => {
  const client = new FakeTuneClient();
  const { set, state } = brokenPick(client);
  const tuner = new Tuner(client, quiet);
  assert.equal((await tuner.tune(set, { n: 2 })).fastest, "fast");
  state.failure = () => new OutOfMemoryError("out of memory now");
  assert.deepEqual(await tuner.execute(set, { n: 2 }), [2], "the fallback's result");
  state.failure = undefined; // memory freed: the pick is served again, no tuning
  const tunings = tuner.stats.tunings;
  const again = await tuner.tune(set, { n: 2 });
  assert.deepEqual([again.fromCache, again.fastest], [true, "fast"]);
  assert.equal(tuner.stats.tunings, tunings);
  // an OutOfMemoryError as the cause counts too
  state.failure = () => new Error("launch", { cause: new OutOfMemoryError("oom") });
  assert.deepEqual(await tuner.execute(set, { n: 2 }), [2]);
  assert.equal((await tuner.tune(set, { n: 2 })).fromCache, true);
});

Deno.test("qa10 tune: a pick that finds the client destroyed or its device lost rejects with that error; no fallback result, the entry kept", async () => {
  for (
    const failure of [() => new DestroyedError("destroyed"), () => new DeviceLostError("lost")]
  ) {
    const client = new FakeTuneClient();
    const { set, state } = brokenPick(client);
    const tuner = new Tuner(client, quiet);
    assert.equal((await tuner.tune(set, { n: 2 })).fastest, "fast");
    state.failure = failure;
    const slow = client.count("slow");
    await assert.rejects(tuner.execute(set, { n: 2 }), (e) => e instanceof failure().constructor);
    assert.equal(client.count("slow"), slow, "the fallback did not run");
    state.failure = undefined;
    assert.equal((await tuner.tune(set, { n: 2 })).fromCache, true, "the entry kept");
  }
});

Deno.test("qa10 tune: a late fallback of a failed pick does not write over the entry a tuning made meanwhile", async () => {
  const client = new FakeTuneClient();
  const { set, state } = brokenPick(client);
  const tuner = new Tuner(client, quiet);
  assert.equal((await tuner.tune(set, { n: 2 })).fastest, "fast");
  state.failure = () => new Error("fast no longer launches here");
  let open!: () => void;
  const gate = new Promise<void>((resolve) => open = resolve);
  const late = tuner.execute(set, { n: 2, gate }); // its fallback waits for the gate
  assert.deepEqual(await tuner.execute(set, { n: 2 }), [2]); // marks the pick failed
  const retuned = await tuner.tune(set, { n: 2 });
  assert.deepEqual([retuned.fromCache, retuned.fastest], [false, "slow"]);
  open();
  assert.deepEqual(await late, [2]);
  const tunings = tuner.stats.tunings;
  const after = await tuner.tune(set, { n: 2 });
  assert.deepEqual([after.fromCache, after.fastest], [true, "slow"], "the new entry kept");
  assert.equal(tuner.stats.tunings, tunings);
});

Deno.test("qa10 tune: with a cache file, background tuning and checks, a failed pick is marked in the file, served by no later tuner, and tuned again behind the fallback", async () => {
  await Deno.mkdir(".tmp", { recursive: true });
  const dir = await Deno.makeTempDir({ dir: ".tmp", prefix: "qa10_tune_" });
  try {
    const client = new FakeTuneClient();
    // with checks, the reference must run: the fallback, not the pick that breaks
    const { set, state } = brokenPick(client, "slow");
    const options = { ...quiet, persistent: true, cacheDir: dir, name: "qa10", checks: true };
    const first = new Tuner(client, { ...options, background: true });
    assert.equal((await first.tune(set, { n: 3 })).fastest, "fast");
    state.failure = () => new Error("fast no longer launches here");
    assert.deepEqual(await first.execute(set, { n: 3 }), [3]);
    const text = await Deno.readTextFile(first.cacheFile!);
    assert.match(text, /"status":\s*"failed"/, "the mark persisted");
    // another tuner on the file does not serve it
    const second = new Tuner(client, options);
    assert.equal(second.fastest(set, { n: 3 }), undefined);
    // the background tuner answers with the fallback and tunes behind it
    const slow = client.count("slow");
    assert.deepEqual(await first.execute(set, { n: 3 }), [3]);
    assert.ok(client.count("slow") > slow);
    await first.settled();
    assert.equal(first.fastest(set, { n: 3 }), "slow");
    const third = new Tuner(client, options);
    const outcome = await third.tune(set, { n: 3 });
    assert.deepEqual([outcome.fromCache, outcome.fastest], [true, "slow"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("qa10 tune: several calls at once on a failing pick all get the fallback's result, and one tuning follows", async () => {
  const client = new FakeTuneClient();
  const { set, state } = brokenPick(client);
  const tuner = new Tuner(client, quiet);
  await tuner.tune(set, { n: 4 });
  state.failure = () => new Error("fast no longer launches here");
  const results = await Promise.all([1, 2, 3, 4].map(() => tuner.execute(set, { n: 4 })));
  assert.deepEqual(results, [[4], [4], [4], [4]]);
  const tunings = tuner.stats.tunings;
  const again = await Promise.all([1, 2, 3].map(() => tuner.execute(set, { n: 4 })));
  assert.deepEqual(again, [[4], [4], [4]]);
  assert.equal(tuner.stats.tunings, tunings + 1);
  assert.equal(tuner.fastest(set, { n: 4 }), "slow");
});

Deno.test("qa10 tune: where the fallback is the failing pick itself (no fallback option: the first planned candidate), the next planned candidate runs instead, and a lone candidate's error comes back", async () => {
  const client = new FakeTuneClient();
  let broken = false;
  const candidate = (name: string, ms: number, priority = 0) => ({
    name,
    priority,
    run: (n: number) => {
      client.spend(name, ms);
      if (name === "first" && broken) throw new Error("first no longer launches here");
      return [n];
    },
  });
  const set = new TunableSet("qa10_no_fallback", {
    key: (n: number) => ({ n }),
    candidates: [candidate("never", 0, -1), candidate("first", 1), candidate("second", 5)],
  });
  const tuner = new Tuner(client, quiet);
  assert.equal((await tuner.tune(set, 2)).fastest, "first");
  assert.equal(set.fallback({ n: 2 }).name, "first", "the pick is the default fallback");
  broken = true;
  assert.deepEqual(await tuner.execute(set, 2), [2], "the next planned candidate's result");
  assert.equal(client.count("never"), 0, "never one of negative priority");
  const outcome = await tuner.tune(set, 2);
  assert.deepEqual([outcome.fromCache, outcome.fastest], [false, "second"]);
  // a set of one candidate has nothing else to run: the pick's error
  const lone = new TunableSet("qa10_lone", {
    key: (n: number) => ({ n }),
    candidates: [candidate("first", 1)],
  });
  broken = false;
  await tuner.tune(lone, 3);
  broken = true;
  await assert.rejects(tuner.execute(lone, 3), /first no longer launches here/);
});

Deno.test("qa10 tune: a call whose cached pick failed is not counted as served from the cache", async () => {
  const client = new FakeTuneClient();
  const { set, state } = brokenPick(client);
  const tuner = new Tuner(client, quiet);
  await tuner.tune(set, { n: 5 });
  assert.deepEqual(await tuner.execute(set, { n: 5 }), [5]);
  const hits = tuner.stats.cacheHits;
  state.failure = () => new Error("fast no longer launches here");
  assert.deepEqual(await tuner.execute(set, { n: 5 }), [5]); // the fallback's
  assert.equal(tuner.stats.cacheHits, hits);
});
