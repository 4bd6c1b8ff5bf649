// QA wave 11: with `checks` on and no `reference` named, a default reference (the first candidate
// that may run) that fails does not fail the tuning: the other candidates decide by majority, a
// lone one that runs is picked, and disputed outputs are never picked. A named reference that
// fails still leaves every other candidate unchecked.
import assert from "node:assert/strict";
import { TunableSet, TuneFailedError, TuneMismatchError, Tuner } from "../runtime/tune/mod.ts";
import { FakeTuneClient } from "./fixtures/fake_tune_client.ts";

const quiet = {
  progressBar: false,
  persistent: false,
  checks: true,
  sampling: { minSampleMs: 0, maxSamples: 3 },
} as const;

type In = { n: number };

/**
 * Candidates with costs and outputs (`undefined`: it throws) for the key n, in order: the first
 * is the default reference.
 */
function outputSet(
  client: FakeTuneClient,
  specs: [name: string, ms: number, output: (n: number) => number[] | undefined][],
  reference?: string,
) {
  return new TunableSet("qa11_reference", {
    key: ({ n }: In) => ({ n }),
    ...(reference === undefined ? {} : { reference }),
    candidates: specs.map(([name, ms, output]) => ({
      name,
      run: ({ n }: In) => {
        client.spend(name, ms);
        const out = output(n);
        if (out === undefined) throw new Error(`${name} cannot run for ${n}`);
        return out;
      },
    })),
  });
}

Deno.test("qa11 tune: a default reference that fails on a key leaves a lone other candidate to be picked; a pick that breaks is re-tuned to the one that works", async () => {
  const client = new FakeTuneClient();
  let broken = false;
  const set = outputSet(client, [
    ["fast", 1, (n) => broken ? undefined : [n]],
    ["slow", 5, (n) => [n]],
  ]);
  const tuner = new Tuner(client, quiet);
  assert.equal((await tuner.tune(set, { n: 2 })).fastest, "fast");
  broken = true;
  assert.deepEqual(await tuner.execute(set, { n: 2 }), [2], "the fallback's result");
  // the re-tune: the default reference (fast) fails; it used to fail the whole tuning
  const retuned = await tuner.tune(set, { n: 2 });
  assert.deepEqual([retuned.fromCache, retuned.fastest], [false, "slow"]);
  const fast = retuned.results.find((r) => r.name === "fast")!;
  assert.equal(fast.status, "failed");
  assert.match(fast.error!, /fast cannot run for 2/, "the reference's own failure is its result");
  const runs = client.count("fast");
  assert.deepEqual(await tuner.execute(set, { n: 2 }), [2]);
  assert.equal(client.count("fast"), runs, "the failed reference is not run again");
});

Deno.test("qa11 tune: when the default reference fails, the output most others agree on is the reference; the fastest candidate that disagrees fails with TuneMismatchError", async () => {
  const client = new FakeTuneClient();
  const set = outputSet(client, [
    ["ref", 9, () => undefined],
    ["wrong", 1, (n) => [n + 1]], // the fastest, and wrong
    ["right", 5, (n) => [n]],
    ["also_right", 3, (n) => [n]],
  ]);
  const tuner = new Tuner(client, quiet);
  const outcome = await tuner.tune(set, { n: 7 });
  assert.equal(outcome.fastest, "also_right");
  const wrong = outcome.results.find((r) => r.name === "wrong")!;
  assert.equal(wrong.status, "failed");
  assert.match(
    wrong.error!,
    /TuneMismatchError: Candidate 'wrong' disagrees with reference 'right'/,
  );
  assert.deepEqual(await tuner.execute(set, { n: 7 }), [7]);
});

Deno.test("qa11 tune: when the default reference fails and the others disagree with no majority, none is picked", async () => {
  for (
    const specs of [
      // two that disagree
      [["ref", 9, () => undefined], ["wrong", 1, (n: number) => [n + 1]], [
        "right",
        5,
        (n: number) => [n],
      ]],
      // a tie: two against two
      [
        ["ref", 9, () => undefined],
        ["w1", 1, (n: number) => [n + 1]],
        ["w2", 2, (n: number) => [n + 1]],
        ["r1", 5, (n: number) => [n]],
        ["r2", 6, (n: number) => [n]],
      ],
      // none runs
      [["ref", 9, () => undefined], ["other", 1, () => undefined]],
    ] as [string, number, (n: number) => number[] | undefined][][]
  ) {
    const client = new FakeTuneClient();
    const set = outputSet(client, specs);
    const tuner = new Tuner(client, quiet);
    const error = await tuner.tune(set, { n: 3 }).catch((e) => e);
    assert.ok(error instanceof TuneFailedError, String(error));
    assert.match(error.message, /ref cannot run for 3/);
    assert.equal(tuner.fastest(set, { n: 3 }), undefined);
  }
});

Deno.test("qa11 tune: a named reference that fails leaves every other candidate unchecked (none picked); one that runs is the truth", async () => {
  const client = new FakeTuneClient();
  const specs: [string, number, (n: number) => number[] | undefined][] = [
    ["a", 1, (n) => [n]],
    ["b", 2, (n) => [n]],
    ["truth", 9, (n) => n === 1 ? undefined : [n + 1]],
  ];
  const tuner = new Tuner(client, quiet);
  const set = outputSet(client, specs, "truth");
  const error = await tuner.tune(set, { n: 1 }).catch((e) => e);
  assert.ok(error instanceof TuneFailedError, String(error));
  assert.match(error.message, /a: .*Not checked: the reference truth failed/);
  // where it runs, it decides, whatever the others agree on
  const outcome = await tuner.tune(set, { n: 2 });
  assert.equal(outcome.fastest, "truth");
  const a = outcome.results.find((r) => r.name === "a")!;
  assert.match(a.error!, new RegExp(TuneMismatchError.name));
});
