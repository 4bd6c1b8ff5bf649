import assert from "node:assert/strict";
import { configure, type LogRecord, reset } from "@logtape/logtape";
import { TunableSet, TuneFailedError, Tuner } from "../runtime/tune/mod.ts";
import { FakeTuneClient } from "./fixtures/fake_tune_client.ts";

type Inputs = { n: number };
const options = { persistent: false, progressBar: false } as const;

/** A set of candidates with fixed costs (ms), priorities and optional failures. */
function costSet(
  client: FakeTuneClient,
  specs: {
    name: string;
    ms: number;
    priority?: number | ((key: { n: number }) => number);
    fail?: boolean;
  }[],
  name = "costs",
) {
  return new TunableSet(name, {
    key: (inputs: Inputs) => ({ n: inputs.n }),
    candidates: specs.map((spec) => ({
      name: spec.name,
      priority: spec.priority,
      run: () => {
        client.spend(spec.name, spec.ms);
        if (spec.fail) throw new Error(`${spec.name} cannot run`);
        return [spec.ms];
      },
    })),
  });
}

Deno.test("the fastest candidate wins and later calls hit the cache", async () => {
  const client = new FakeTuneClient();
  const set = costSet(client, [{ name: "slow", ms: 10 }, { name: "fast", ms: 1 }]);
  const tuner = new Tuner(client, options);
  assert.deepEqual(await tuner.execute(set, { n: 8 }), [1]);
  assert.equal(tuner.fastest(set, { n: 8 }), "fast");
  const runs = tuner.stats.runs;
  assert.deepEqual(await tuner.execute(set, { n: 8 }), [1]);
  assert.equal(tuner.stats.runs, runs, "a cache hit runs no benchmark");
  assert.equal(tuner.stats.cacheHits, 1);
});

Deno.test("a single candidate (or a single planned one) is chosen without benchmarking", async () => {
  const client = new FakeTuneClient();
  const tuner = new Tuner(client, options);
  const one = costSet(client, [{ name: "only", ms: 3 }]);
  assert.deepEqual(await tuner.execute(one, { n: 1 }), [3]);
  const planned = costSet(client, [{ name: "a", ms: 1, priority: -1 }, { name: "b", ms: 2 }], "p");
  assert.deepEqual(await tuner.execute(planned, { n: 1 }), [2]);
  assert.equal(tuner.stats.runs, 0);
  assert.deepEqual(client.calls, ["only", "b"]);
});

Deno.test("the plan: higher groups first, negative never run, next group only without a decision", async () => {
  const client = new FakeTuneClient();
  const set = costSet(client, [
    { name: "low", ms: 0.1, priority: 0 }, // fastest, but its group is never needed
    { name: "high-a", ms: 5, priority: 2 },
    { name: "high-b", ms: 4, priority: 2 },
    { name: "never", ms: 0.01, priority: () => -1 },
  ]);
  assert.deepEqual(set.plan({ n: 1 }).map((g) => g.map((c) => c.name)), [["high-a", "high-b"], [
    "low",
  ]]);
  const tuner = new Tuner(client, options);
  const outcome = await tuner.tune(set, { n: 1 });
  assert.equal(outcome.fastest, "high-b");
  assert.equal(client.count("low") + client.count("never"), 0);
  assert.deepEqual(
    outcome.results.map((r) => [r.name, r.status]),
    [["low", "skipped"], ["high-a", "ok"], ["high-b", "ok"]],
  );

  // When every candidate of the first group fails, the next group decides.
  const client2 = new FakeTuneClient();
  const failing = costSet(client2, [
    { name: "broken", ms: 1, priority: 1, fail: true },
    { name: "backup-a", ms: 3, priority: 0 },
    { name: "backup-b", ms: 2, priority: 0 },
  ]);
  const second = await new Tuner(client2, options).tune(failing, { n: 1 });
  assert.equal(second.fastest, "backup-b");
  assert.match(String(second.errors.get("broken")), /broken cannot run/);
});

Deno.test("when every candidate fails the error lists each one's reason", async () => {
  const client = new FakeTuneClient();
  const set = costSet(client, [
    { name: "x", ms: 1, fail: true },
    { name: "y", ms: 1, fail: true },
  ]);
  const tuner = new Tuner(client, options);
  const error = await tuner.execute(set, { n: 2 }).catch((e) => e);
  assert.ok(error instanceof TuneFailedError);
  assert.equal(error.code, "TUNE_FAILED");
  assert.deepEqual(error.failures.map((f: { name: string }) => f.name), ["x", "y"]);
  assert.match(error.message, /x: Error: x cannot run; y: Error: y cannot run/);
  // The failure is remembered: the key is not benchmarked again.
  const runs = tuner.stats.runs;
  await assert.rejects(tuner.execute(set, { n: 2 }), TuneFailedError);
  assert.equal(tuner.stats.runs, runs);
});

Deno.test("background mode runs the fallback at once and never tunes a key twice", async () => {
  const client = new FakeTuneClient();
  const set = costSet(client, [{ name: "slow", ms: 10 }, { name: "fast", ms: 1 }]);
  const tuner = new Tuner(client, { ...options, background: true });
  const first = await Promise.all([1, 2, 3, 4].map(() => tuner.execute(set, { n: 64 })));
  assert.deepEqual(first, [[10], [10], [10], [10]], "the fallback (first candidate) ran");
  assert.equal(tuner.isTuning(set, { n: 64 }), true);
  await tuner.settled();
  assert.equal(tuner.stats.tunings, 1);
  assert.deepEqual(await tuner.execute(set, { n: 64 }), [1], "the result was taken in");
  assert.equal(tuner.stats.tunings, 1);
});

Deno.test("concurrent blocking calls for one key share one tuning run", async () => {
  const client = new FakeTuneClient();
  const set = costSet(client, [{ name: "a", ms: 2 }, { name: "b", ms: 3 }]);
  const tuner = new Tuner(client, options);
  const outputs = await Promise.all([1, 2, 3].map(() => tuner.execute(set, { n: 5 })));
  assert.deepEqual(outputs, [[2], [2], [2]]);
  assert.equal(tuner.stats.tunings, 1);
});

Deno.test("the short-circuit accepts the first candidate under work / throughput", async () => {
  const client = new FakeTuneClient();
  const set = new TunableSet("work", {
    key: (inputs: Inputs) => ({ n: inputs.n }),
    work: (key) => key.n, // 100 units of work
    candidates: [
      { name: "good-enough", run: () => client.spend("good-enough", 9) },
      { name: "best", run: () => client.spend("best", 1) },
    ],
  });
  // 100 units at 10 units per ms: accept anything within 10 ms.
  const tuner = new Tuner(client, {
    ...options,
    shortCircuit: { throughput: 10 },
    sampling: { minSampleMs: 0 }, // one run per sample: counts compare runs
  });
  const outcome = await tuner.tune(set, { n: 100 });
  assert.equal(outcome.fastest, "good-enough");
  assert.ok(client.count("best") < client.count("good-enough"));
});

Deno.test("a throughput of 0 turns the short-circuit off (it used to accept the first)", async () => {
  const client = new FakeTuneClient();
  const set = new TunableSet("work0", {
    key: (inputs: Inputs) => ({ n: inputs.n }),
    work: (key) => key.n,
    candidates: [
      { name: "slow", run: () => client.spend("slow", 9) },
      { name: "fast", run: () => client.spend("fast", 1) },
    ],
  });
  const tuner = new Tuner(client, { ...options, shortCircuit: { throughput: 0 } });
  assert.equal((await tuner.tune(set, { n: 100 })).fastest, "fast");
  for (const throughput of [-1, NaN, Infinity]) {
    assert.throws(() => new Tuner(client, { shortCircuit: { throughput } }), RangeError);
  }
});

Deno.test("with minSamples 1, a candidate the short-circuit never reached is skipped, not ok", async () => {
  const client = new FakeTuneClient();
  const set = new TunableSet("reached", {
    key: (inputs: Inputs) => ({ n: inputs.n }),
    work: (key) => key.n,
    candidates: [
      { name: "first", run: () => client.spend("first", 1) },
      { name: "second", run: () => client.spend("second", 1) },
    ],
  });
  const tuner = new Tuner(client, {
    ...options,
    shortCircuit: { throughput: 1 },
    sampling: { minSamples: 1, minSampleMs: 0 },
  });
  const outcome = await tuner.tune(set, { n: 100 });
  assert.equal(outcome.fastest, "first");
  assert.deepEqual(
    outcome.results.map((r) => [r.name, r.status, r.samples]),
    [["first", "ok", 1], ["second", "skipped", 0]],
  );
});

Deno.test("the top three are logged under the tune category and progress is reported", async () => {
  const records: LogRecord[] = [];
  await configure({
    sinks: { memory: (record) => records.push(record) },
    loggers: [
      { category: ["gpucompute", "tune"], sinks: ["memory"], lowestLevel: "info" },
      { category: ["logtape", "meta"], sinks: [], lowestLevel: "warning" },
    ],
  });
  try {
    const client = new FakeTuneClient();
    const set = costSet(client, [
      { name: "a", ms: 4 },
      { name: "b", ms: 3 },
      { name: "c", ms: 2 },
      { name: "d", ms: 1 },
    ]);
    const progress: number[] = [];
    let runs = 0;
    const tuner = new Tuner(client, {
      ...options,
      sampling: { eliminate: Infinity },
      onProgress: (p) => {
        progress.push(p.done);
        runs += p.runs;
      },
    });
    await tuner.tune(set, { n: 1 });
    const top = records.find((r) => String(r.rawMessage).startsWith("Fastest"));
    assert.equal(top?.properties.top, "d 1.000 ms, c 2.000 ms, b 3.000 ms");
    assert.deepEqual(progress, progress.map((_, i) => i + 1));
    assert.equal(runs, client.calls.length, "every candidate run is counted in some step");
    assert.equal(tuner.stats.runs, client.calls.length);
  } finally {
    await reset();
  }
});

Deno.test("score: the median ignores one lucky sample, the minimum takes it", async () => {
  const pick = async (score: "median" | "min") => {
    const client = new FakeTuneClient();
    let lucky = 0;
    const set = new TunableSet("score", {
      key: (inputs: Inputs) => ({ n: inputs.n }),
      candidates: [
        // Its second timed run (after the warm-up) is far faster than the rest.
        { name: "jittery", run: () => client.spend("jittery", lucky++ === 2 ? 1 : 10) },
        { name: "steady", run: () => client.spend("steady", 5) },
      ],
    });
    const sampling = { adaptive: false, maxSamples: 5, score };
    return (await new Tuner(client, { ...options, sampling }).tune(set, { n: 1 })).fastest;
  };
  assert.equal(await pick("median"), "steady");
  assert.equal(await pick("min"), "jittery");
});

Deno.test("the progress bar stays silent for the first second, then redraws one line", async () => {
  const { ProgressBar } = await import("../runtime/tune/_progress.ts");
  const written: string[] = [];
  const bar = new ProgressBar((text) => written.push(text));
  const report = { set: "matmul", key: "m=64", candidate: "a", done: 3, total: 12, runs: 1 };
  bar.update({ ...report, elapsedMs: 999 });
  bar.finish();
  assert.deepEqual(written, [], "short runs print nothing");
  bar.update({ ...report, elapsedMs: 1500 });
  assert.equal(written.length, 1);
  const CLEAR = "\r\x1b[2K"; // carriage return, erase the line
  assert.equal(
    written[0],
    `${CLEAR}tuning matmul m=64 [${"#".repeat(6)}${".".repeat(18)}] a 1.5 s`,
  );
  bar.finish();
  assert.equal(written.at(-1), CLEAR);
});

Deno.test("with a stream option every candidate run (warm-ups, samples, inputs) is on it", async () => {
  const client = new FakeTuneClient();
  let inputsOn: number | undefined;
  const set = new TunableSet("streams", {
    key: (inputs: Inputs) => ({ n: inputs.n }),
    inputs: async (key) => {
      const { currentStreamId } = await import("../runtime/core/stream_id.ts");
      inputsOn = currentStreamId();
      return { n: key.n };
    },
    candidates: [
      { name: "a", run: () => client.spend("a", 2) },
      { name: "b", run: () => client.spend("b", 1) },
    ],
  });
  await new Tuner(client, { ...options, stream: 5 }).tune(set, { n: 1 });
  assert.ok(client.streams.length > 4);
  assert.deepEqual(new Set(client.streams), new Set([5]));
  assert.equal(inputsOn, 5);
});

Deno.test("short candidates are batched per sample up to minSampleMs, timed per run", async () => {
  const client = new FakeTuneClient();
  const set = costSet(client, [{ name: "short", ms: 0.5 }, { name: "long", ms: 8 }]);
  const tuner = new Tuner(client, {
    ...options,
    sampling: { adaptive: false, maxSamples: 4, minSampleMs: 5 },
  });
  const outcome = await tuner.tune(set, { n: 1 });
  assert.equal(outcome.fastest, "short");
  // Warm-up, a timed calibration run, then 4 samples: of 10 runs (5 ms) and of 1 run (8 ms).
  assert.equal(client.count("short"), 2 + 4 * 10);
  assert.equal(client.count("long"), 2 + 4);
  const short = outcome.results.find((r) => r.name === "short");
  assert.equal(short?.medianMs, 0.5, "a batched sample is divided by its runs");
  // Refused by the constructor (it used to be found by the first tune, then remembered).
  assert.throws(() => new Tuner(client, { ...options, sampling: { minSampleMs: -1 } }), RangeError);
});

Deno.test("with checks, a reference that fails leaves no candidate unchecked to be picked", async () => {
  const client = new FakeTuneClient();
  const outputs: Record<string, number[]> = { reference: [1], wrong: [2], right: [1] };
  const set = new TunableSet("checked", {
    key: (inputs: Inputs) => ({ n: inputs.n }),
    candidates: ["reference", "wrong", "right"].map((name) => ({
      name,
      run: () => {
        client.spend(name, name === "wrong" ? 1 : 5); // the wrong one is the fastest
        if (name === "reference") throw new Error("the reference cannot run");
        return outputs[name];
      },
    })),
  });
  const tuner = new Tuner(client, { ...options, checks: true, sampling: { minSampleMs: 0 } });
  const error = await tuner.tune(set, { n: 1 }).catch((e) => e);
  assert.ok(error instanceof TuneFailedError, String(error));
  assert.match(error.message, /wrong: .*the reference cannot run/);
  assert.equal(tuner.fastest(set, { n: 1 }), undefined);
});
