/**
 * Cost of {@linkcode currentStreamId}, called once per launch, read and write: outside any
 * `withStream` scope (the common case, answered without touching the async context) and inside
 * one, against `AsyncLocalStorage.getStore()` itself, the floor of a lookup in the async context.
 *
 * @module
 */

import "./_bench_guard.ts"; // deno bench awaits only async fns: a promise from another one throws
import { AsyncLocalStorage } from "node:async_hooks";
import { currentStreamId, withStream } from "../runtime/core/stream_id.ts";

const CALLS = 1000;
const raw = new AsyncLocalStorage<number>();

function sum(read: () => number | undefined): number {
  let total = 0;
  for (let i = 0; i < CALLS; i++) total += read() ?? 0;
  return total;
}

Deno.bench({
  name: "AsyncLocalStorage.getStore() x1000 inside run (raw)",
  group: "current stream",
  baseline: true,
  fn: () => void raw.run(2, () => sum(() => raw.getStore())),
});

Deno.bench({
  name: "currentStreamId() x1000 outside withStream",
  group: "current stream",
  fn: () => void sum(currentStreamId),
});

Deno.bench({
  name: "currentStreamId() x1000 inside withStream",
  group: "current stream",
  fn: () => void withStream(2, () => sum(currentStreamId)),
});
