import assert from "node:assert/strict";
import {
  type Contender,
  fastestOf,
  sampleGroup,
  type SampleResult,
  Tuner,
} from "../runtime/tune/mod.ts";
import { FakeTuneClient } from "./fixtures/fake_tune_client.ts";
import { pairedRatios } from "../runtime/tune/_stats.ts";

/** A contender whose samples come from a list (the last value repeats); counts its calls. */
function scripted(name: string, times: number[], fail?: "warmup" | "sample") {
  const calls = { warmup: 0, sample: 0 };
  const contender: Contender = {
    name,
    warmup() {
      calls.warmup++;
      return fail === "warmup" ? Promise.reject(new Error(`${name} broke`)) : Promise.resolve();
    },
    sample() {
      if (fail === "sample") return Promise.reject(new Error(`${name} broke`));
      return Promise.resolve(times[Math.min(calls.sample++, times.length - 1)]);
    },
  };
  return { contender, calls };
}

Deno.test("adaptive sampling stops a steady candidate after minSamples, a noisy one later", async () => {
  const steady = scripted("steady", [10]);
  const noisy = scripted("noisy", [10, 14, 10.5, 13, 11, 12, 11.5]);
  const { results } = await sampleGroup([steady.contender, noisy.contender], {
    minSamples: 3,
    maxSamples: 10,
    eliminate: Infinity,
    margin: 0,
  });
  assert.equal(steady.calls.warmup, 1);
  assert.equal(steady.calls.sample, 3);
  assert.ok(noisy.calls.sample > 3 && noisy.calls.sample <= 10, `${noisy.calls.sample}`);
  assert.deepEqual(results.map((r) => r.status), ["ok", "ok"]);
  assert.equal(results[0].median, 10);
});

Deno.test("close candidates keep sampling up to maxSamples, clearly separated ones stop", async () => {
  const a = scripted("a", [10]);
  const b = scripted("b", [10.3]); // within the 5% margin of a
  const c = scripted("c", [13]); // stable and clearly slower: stops at minSamples
  await sampleGroup([a.contender, b.contender, c.contender], {
    minSamples: 3,
    maxSamples: 8,
    eliminate: Infinity,
  });
  assert.deepEqual([a.calls.sample, b.calls.sample, c.calls.sample], [8, 8, 3]);
});

Deno.test("a candidate that stopped on its first rounds is reopened when medians say otherwise", async () => {
  // "a" runs slow in the first rounds, "b" fast; "c" stays close to "a", so both keep sampling.
  // By then "b" (stable, 11% ahead on the rounds it shared with "a") had stopped: judged on its
  // first three rounds alone it would win. Once "a"'s median is within the margin of "b"'s, "b"
  // samples again, and the later rounds show it 15% slower.
  const a = scripted("a", [11, 11, 11, 10]);
  const b = scripted("b", [9.8, 9.8, 9.8, 11.5]);
  const c = scripted("c", [11.2, 11.2, 11.2, 10.2]);
  const { results } = await sampleGroup([a.contender, b.contender, c.contender], {
    minSamples: 3,
    maxSamples: 10,
    eliminate: Infinity,
    tolerance: 0.5, // every candidate is stable at once: only contests keep them sampling
  });
  assert.ok(b.calls.sample > 3, `b sampled ${b.calls.sample} times`);
  assert.equal(fastestOf(results), "a");
});

Deno.test("fixed sampling takes exactly maxSamples of every candidate and never eliminates", async () => {
  const fast = scripted("fast", [1]);
  const slow = scripted("slow", [10]);
  const { results } = await sampleGroup([fast.contender, slow.contender], {
    adaptive: false,
    maxSamples: 5,
  });
  assert.deepEqual([fast.calls.sample, slow.calls.sample], [5, 5]);
  assert.deepEqual(results.map((r) => r.status), ["ok", "ok"]);
});

Deno.test("elimination drops clearly slower candidates, is never sampled again, keeps survivors", async () => {
  const fast = scripted("fast", [10, 10.1, 10]);
  const close = scripted("close", [12, 12.1, 12]);
  const slow = scripted("slow", [20]);
  const slower = scripted("slower", [40]);
  const { results } = await sampleGroup(
    [slow.contender, fast.contender, slower.contender, close.contender],
    { minSamples: 3, maxSamples: 10, minSurvivors: 2, minSamplesToEliminate: 2 },
  );
  const status = Object.fromEntries(results.map((r) => [r.name, r.status]));
  assert.deepEqual(status, { slow: "eliminated", fast: "ok", slower: "eliminated", close: "ok" });
  // Eliminated after their second sample (the first one spares them): never sampled again.
  assert.equal(slow.calls.sample, 2);
  assert.equal(slower.calls.sample, 2);
});

Deno.test("elimination keeps minSurvivors even when they are clearly slower", async () => {
  const fast = scripted("fast", [1]);
  const slow = scripted("slow", [10]);
  const { results } = await sampleGroup([fast.contender, slow.contender], { minSurvivors: 2 });
  assert.deepEqual(results.map((r) => r.status), ["ok", "ok"]);
  const alone = await sampleGroup([scripted("a", [1]).contender, scripted("b", [10]).contender], {
    minSurvivors: 1,
  });
  assert.deepEqual(alone.results.map((r) => r.status), ["ok", "eliminated"]);
});

Deno.test("a candidate that throws in warm-up or sampling is failed, the others go on", async () => {
  const good = scripted("good", [5]);
  const early = scripted("early", [1], "warmup");
  const late = scripted("late", [1], "sample");
  const { results } = await sampleGroup([early.contender, late.contender, good.contender]);
  assert.deepEqual(results.map((r) => r.status), ["failed", "failed", "ok"]);
  assert.equal(early.calls.sample, 0);
  assert.match(String(results[0].error), /early broke/);
});

Deno.test("accept short-circuits on the first candidate under the bound", async () => {
  const first = scripted("first", [8]);
  const second = scripted("second", [2]);
  const { accepted } = await sampleGroup([first.contender, second.contender], {
    minSamples: 2,
    accept: (ms) => ms <= 9,
  });
  assert.equal(accepted, "first");
  assert.ok(second.calls.sample <= 1, "sampling stopped once first was accepted");
});

Deno.test("samples carry their rounds; the pick compares candidates on the rounds both ran", async () => {
  const steady = scripted("steady", [2]);
  const noisy = scripted("noisy", [3, 1, 5, 1, 5, 1]);
  const { results } = await sampleGroup([steady.contender, noisy.contender], {
    minSamples: 3,
    maxSamples: 6,
    eliminate: Infinity,
    margin: 0,
  });
  assert.deepEqual(results[0].rounds, [0, 1, 2], "steady stops after minSamples");
  assert.deepEqual(results[1].rounds, results[1].samples.map((_, i) => i));
  assert.deepEqual(pairedRatios(results[1], results[0]), [1.5, 0.5, 2.5]);

  // "slow" was measured only while the device was slow (rounds 0-1, twice the time), "fast"
  // also afterwards: by medians "slow" would win; on the shared rounds "fast" is 10% faster.
  const ok = (name: string, samples: number[], rounds: number[]): SampleResult => ({
    name,
    status: "ok",
    samples,
    rounds,
  });
  const slowPhase = [
    ok("slow", [2.0, 2.0], [0, 1]),
    ok("fast", [1.8, 1.8, 2.1, 2.1, 2.1], [0, 1, 2, 3, 4]),
  ];
  assert.equal(fastestOf(slowPhase), "fast");
  assert.equal(fastestOf(slowPhase, "median", 3), "slow", "too few shared rounds: by medians");
  assert.equal(fastestOf(slowPhase, "min"), "fast");
  assert.equal(fastestOf([{ ...slowPhase[0], status: "eliminated" }, slowPhase[1]]), "fast");
  assert.equal(fastestOf([ok("none", [], [])]), undefined);
});

Deno.test("sample counts that are not integers are refused: maxSamples Infinity never ended", async () => {
  const bad = [
    { maxSamples: Infinity },
    { maxSamples: 2.5 },
    { minSamples: 1.5 },
    { minSamples: 0 },
    { minSamples: 4, maxSamples: 3 },
    { minSampleMs: -1 },
    { minSampleMs: Infinity },
    { minSampleMs: NaN },
  ];
  for (const sampling of bad) {
    const name = Object.keys(sampling).join();
    assert.throws(() => new Tuner(new FakeTuneClient(), { sampling }), RangeError, name);
  }
  // Two equal candidates stay contested: with maxSamples Infinity the group sampled forever.
  const tie = [scripted("a", [1]).contender, scripted("b", [1]).contender];
  await assert.rejects(sampleGroup(tie, { maxSamples: Infinity }), RangeError);
  const { results } = await sampleGroup(tie, { maxSamples: 6 });
  assert.deepEqual(results.map((r) => r.samples.length), [6, 6]);
});

Deno.test("Tuner options of the wrong type are a TypeError naming the option, at construction", () => {
  const client = new FakeTuneClient();
  const bad: [Record<string, unknown>, RegExp][] = [
    [{ name: 3 }, /^name must be a string/],
    [{ cacheDir: {} }, /^cacheDir must be a string/],
    [{ onProgress: "log" }, /^onProgress must be a function/],
  ];
  for (const [options, message] of bad) {
    assert.throws(
      () => new Tuner(client, options),
      (e: Error) => e instanceof TypeError && message.test(e.message),
    );
  }
});

Deno.test("a contender whose sample is no duration (NaN, Infinity, negative) fails, never wins", async () => {
  for (const bad of [Number.NaN, Infinity, -2]) {
    const odd = scripted("odd", [bad]);
    const fine = scripted("fine", [5]);
    const { results } = await sampleGroup([odd.contender, fine.contender], { maxSamples: 3 });
    assert.deepEqual(results.map((r) => r.status), ["failed", "ok"], `sampled ${bad}`);
    assert.ok(results[0].error instanceof RangeError, String(results[0].error));
    assert.equal(fastestOf(results), "fine");
  }
});
