// The candidates a tuner runs outside the benchmark, the fallback (what a background tuner runs
// while it tunes) and the reference of output checks, obey the priorities as every pick does: one
// with a negative (or NaN) priority for the key never runs for it.
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

Deno.test("with checks, a reference that must not run for the key is not run: the first that may is", async () => {
  const client = new FakeTuneClient();
  // "vec4" (the first candidate, the default reference) is wrong where n % 4 != 0 and says so.
  const checked = (reference?: string) =>
    new TunableSet("ref", {
      key: (n: number) => ({ n }),
      candidates: [
        {
          name: "vec4",
          run: () => (client.spend("vec4", 1), n % 4 === 0 ? [n] : [-1]),
          priority: (key: { n: number }) => key.n % 4 === 0 ? 1 : -1,
        },
        { name: "plain", run: () => (client.spend("plain", 3), [n]) },
        { name: "wrong", run: () => (client.spend("wrong", 2), [n + 1]) },
      ],
      ...(reference === undefined ? {} : { reference }),
    });
  let n = 0;
  for (const reference of [undefined, "vec4"]) {
    const tuner = new Tuner(client, { ...options, background: false, checks: true });
    n = 6;
    const outcome = await tuner.tune(checked(reference), n);
    assert.equal(outcome.fastest, "plain", `reference ${reference}`);
    assert.match(String(outcome.errors.get("wrong")), /TuneMismatchError/);
    assert.equal(client.count("vec4"), 0, "never run for n = 6");
    n = 8; // where it runs, it is the reference (and the fastest)
    assert.equal((await tuner.tune(checked(reference), n)).fastest, "vec4");
    client.calls.length = 0;
  }
});
