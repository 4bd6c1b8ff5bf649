// The candidate a background tuner runs while it tunes (the set's fallback) obeys the priorities
// as every pick does: one with a negative (or NaN) priority for the key never runs for it.
import assert from "node:assert/strict";
import { TunableSet, TuneFailedError, Tuner } from "../runtime/tune/mod.ts";
import { FakeTuneClient } from "./fixtures/fake_tune_client.ts";

const options = { persistent: false, progressBar: false, background: true } as const;

/** "small" is only right for n <= 100; "any" runs everywhere; "bad" never runs. */
function set(client: FakeTuneClient, fallback?: string) {
  const spend = (name: string) => () => (client.spend(name, 1), [name]);
  return new TunableSet("fb", {
    key: (n: number) => ({ n }),
    candidates: [
      { name: "bad", run: spend("bad"), priority: Number.NaN },
      { name: "small", run: spend("small"), priority: (key) => key.n > 100 ? -1 : 1 },
      { name: "any", run: spend("any") },
    ],
    ...(fallback === undefined ? {} : { fallback }),
  });
}

Deno.test("a fallback that must not run for the key is replaced by the first that may", async () => {
  const client = new FakeTuneClient();
  const named = set(client, "small");
  assert.equal(named.fallback({ n: 50 }).name, "small", "the named one where it runs");
  assert.equal(named.fallback({ n: 500 }).name, "any", "not where its priority is negative");
  assert.equal(set(client).fallback({ n: 50 }).name, "small", "the highest priority first");
  assert.equal(set(client).fallback({ n: 500 }).name, "any", "a NaN priority is never run");
  const tuner = new Tuner(client, options);
  assert.deepEqual(await tuner.execute(named, 500), ["any"]);
  await tuner.settled();
  assert.equal(client.count("small"), 0);
  assert.equal(client.count("bad"), 0);
});

Deno.test("no candidate may run for the key: the background call rejects, nothing runs", async () => {
  const client = new FakeTuneClient();
  const none = new TunableSet("none", {
    key: (n: number) => ({ n }),
    candidates: ["a", "b"].map((name) => ({ name, run: () => [name], priority: -1 })),
    fallback: "a",
  });
  assert.throws(() => none.fallback({ n: 1 }), TuneFailedError);
  const tuner = new Tuner(client, options);
  await assert.rejects(tuner.execute(none, 1), TuneFailedError);
  await tuner.settled();
});
