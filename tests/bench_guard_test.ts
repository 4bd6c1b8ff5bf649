/**
 * `bench/_bench_guard.ts`: `deno bench` awaits only an `async function`'s promise, so a plain
 * function or arrow returning one is timed without what it waits for (the raw baselines of
 * `webgpu_bench` and `dispatch_bench` were, which made the client look 3-11x slower). The guard
 * leaves async and synchronous benchmarks alone and makes a promise-returning plain one throw.
 */
import assert from "node:assert/strict";
import { guarded } from "../bench/_bench_guard.ts";

const b = {} as Deno.BenchContext;

Deno.test("the bench guard refuses a plain function returning a promise, and only that", async () => {
  const later = () => new Promise<void>((resolve) => setTimeout(resolve, 1));
  assert.throws(
    () => guarded("raw", () => later())(b),
    (e: unknown) => e instanceof TypeError && /bench "raw": fn returned a promise/.test(e.message),
  );
  const awaited = async () => await later();
  assert.equal(guarded("async", awaited), awaited, "an async fn is registered as it is");
  let ran = 0;
  assert.equal(guarded("sync", () => void ran++)(b), undefined);
  assert.equal(ran, 1, "a synchronous fn still runs");
  await later(); // the refused promise above settles before the test ends
});
