// new Tuner refuses every bad option at the call, naming it: none is silently ignored (a misspelt
// one, a string where a boolean goes: `persistent: "no"` persisted) or found by every tuning run
// (a bad stream failed each candidate, and so the key, for the tuner's life).
import assert from "node:assert/strict";
import { sampleGroup, TunableSet, Tuner } from "../runtime/tune/mod.ts";
import { FakeTuneClient } from "./fixtures/fake_tune_client.ts";

const client = new FakeTuneClient();

Deno.test("new Tuner: bad options are TypeErrors or RangeErrors naming the option", () => {
  const cases: [unknown, string, RegExp][] = [
    [{ persistent: "no" }, "TypeError", /persistent must be a boolean/],
    [{ background: 1 }, "TypeError", /background must be a boolean/],
    [{ checks: "yes" }, "TypeError", /checks must be a boolean/],
    [{ progressBar: null }, "TypeError", /progressBar must be a boolean/],
    [{ strem: 1 }, "TypeError", /unknown option "strem"/],
    [{ sampling: { maxSample: 3 } }, "TypeError", /maxSample/],
    [{ sampling: null }, "TypeError", /sampling must be an object/],
    [null, "TypeError", /options must be an object/],
    [{ stream: -1 }, "RangeError", /Stream id/],
    [{ stream: "2" }, "TypeError", /Stream id/],
    [{ sampling: { score: "mean" } }, "RangeError", /score/],
    [{ sampling: { adaptive: "no" } }, "TypeError", /adaptive/],
    [{ sampling: { eliminate: 0.5 } }, "RangeError", /eliminate/],
    [{ sampling: { margin: Number.NaN } }, "RangeError", /margin/],
    [{ sampling: { tolerance: -1 } }, "RangeError", /tolerance/],
    [{ sampling: { minSurvivors: 0 } }, "RangeError", /minSurvivors/],
    [{ sampling: { minSamplesToEliminate: 1.5 } }, "RangeError", /minSamplesToEliminate/],
  ];
  for (const [options, name, message] of cases) {
    assert.throws(() => new Tuner(client, options as never), { name, message }, String(message));
  }
  for (const bad of [undefined, {}, { profile: () => {} }]) {
    assert.throws(() => new Tuner(bad as never), { name: "TypeError", message: /client/ });
  }
  // Valid ones still pass: Infinity never eliminates, margin 0 turns closeness off.
  const fine = { persistent: false, stream: 2, sampling: { eliminate: Infinity, margin: 0 } };
  assert.ok(new Tuner(client, fine));
});

Deno.test("sampleGroup refuses the same sampling options", async () => {
  const none = { name: "a", warmup: () => Promise.resolve(), sample: () => Promise.resolve(1) };
  await assert.rejects(sampleGroup([none], { score: "mean" as never }), RangeError);
  await assert.rejects(sampleGroup([none], { eliminate: 0 }), RangeError);
});

Deno.test("a tuner made with valid options tunes (the checks refuse nothing valid)", async () => {
  const set = new TunableSet("ok", {
    key: (n: number) => ({ n }),
    candidates: ["a", "b"].map((name) => ({
      name,
      run: () => client.spend(name, name === "a" ? 2 : 1),
    })),
  });
  const options = {
    persistent: false,
    background: false,
    checks: false,
    progressBar: false,
    stream: 1,
    sampling: { adaptive: true, score: "min", tolerance: 0, minSurvivors: 1 },
  } as const;
  assert.equal((await new Tuner(client, options).tune(set, 1)).fastest, "b");
});

Deno.test("new TunableSet: bad options are TypeErrors or RangeErrors naming the option", () => {
  const run = () => 1;
  const key = () => ({});
  const cases: [unknown, string, RegExp][] = [
    [null, "TypeError", /options must be an object/],
    [{ candidates: [{ name: "a", run }] }, "TypeError", /key must be a function/],
    [{ key, candidates: "a" }, "TypeError", /candidates must be an array/],
    [{ key, candidates: [null] }, "TypeError", /candidates\[0\] must be an object/],
    [{ key, candidates: [{ name: "a" }] }, "TypeError", /candidates\[0\]\.run/],
    [{ key, candidates: [{ name: "", run }] }, "TypeError", /candidates\[0\]\.name/],
    [{ key, candidates: [{ name: "a", run, priority: "high" }] }, "TypeError", /priority/],
    [{ key, candidates: [{ name: "a", run }], read: "x" }, "TypeError", /read must be a function/],
    [{ key, candidates: [{ name: "a", run }], refrence: "a" }, "TypeError", /"refrence"/],
    [
      { key, candidates: [{ name: "a", run }], tolerance: { absolute: Number.NaN, relative: 0 } },
      "RangeError",
      /tolerance/,
    ],
  ];
  for (const [options, name, message] of cases) {
    assert.throws(() => new TunableSet("s", options as never), { name, message }, String(message));
  }
});

Deno.test("maxSamples below the default minSamples alone is valid: minSamples follows it", async () => {
  const steady = { name: "s", warmup: () => Promise.resolve(), sample: () => Promise.resolve(1) };
  for (const maxSamples of [1, 2]) {
    assert.ok(new Tuner(client, { persistent: false, sampling: { maxSamples } }));
    const { results } = await sampleGroup([steady], { maxSamples });
    assert.equal(results[0].samples.length, maxSamples);
  }
  // Both given and contradicting: still refused.
  assert.throws(
    () => new Tuner(client, { sampling: { minSamples: 3, maxSamples: 2 } }),
    RangeError,
  );
});
