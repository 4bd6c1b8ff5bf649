/**
 * The GC of a backend with a non-blocking event query (`isEventComplete`): per-stream FIFOs
 * polled on a timer up to the first event that is not ready, no host wait parked per task.
 */
import assert from "node:assert/strict";
import { type ComputeError, DriverError } from "../runtime/core/errors.ts";
import { type EventStreamBackend, MultiStream } from "../runtime/stream/event.ts";

/** An event the test completes or fails by hand. */
interface Ev {
  readonly name: string;
  state: "pending" | "done" | "failed";
  queries: number;
}

/** A backend whose host waits must never be used: the GC only polls or blocks. */
function pollingBackend(log: { waited: number[] } = { waited: [] }) {
  const backend: EventStreamBackend<object, Ev> & { syncWaits: string[] } = {
    syncWaits: [],
    createStream: () => ({}),
    handleCursor: (_stream, binding) => binding.cursor,
    isHealthy: () => true,
    flush: () => ({ name: "flush", state: "done", queries: 0 }),
    waitEvent: () => {},
    waitEventHost: () => Promise.reject(new Error("a host wait was parked for a GC task")),
    waitEventHostSync(event) {
      backend.syncWaits.push(event.name);
      event.state = "done";
    },
    isEventComplete(event, waitedMs) {
      event.queries++;
      log.waited.push(waitedMs);
      if (event.state === "failed") {
        throw new DriverError(`event ${event.name} failed`);
      }
      return event.state === "done";
    },
  };
  return backend;
}

function ev(name: string, state: Ev["state"] = "pending"): Ev {
  return { name, state, queries: 0 };
}

/** Registers `event` on `stream` with a payload that records its release in `released`. */
function task(ms: MultiStream<object, Ev>, stream: number, event: Ev, released: string[]) {
  ms.gc(stream, event, [{ [Symbol.dispose]: () => released.push(event.name) }]);
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

Deno.test("one poll settles each stream's GC tasks in order up to its first event not ready", async () => {
  const log = { waited: [] as number[] };
  const ms = new MultiStream(pollingBackend(log), { maxStreams: 4 });
  const released: string[] = [];
  const a1 = ev("a1", "done"), a2 = ev("a2"), a3 = ev("a3", "done");
  const b1 = ev("b1", "done"), b2 = ev("b2", "done");
  task(ms, 1, a1, released);
  task(ms, 1, a2, released);
  task(ms, 1, a3, released);
  task(ms, 2, b1, released);
  task(ms, 2, b2, released);
  assert.deepEqual(released, [], "nothing is released before the event loop turns");
  await tick(); // the GC's timer was set first, so it has polled once
  assert.deepEqual(released, ["a1", "b1", "b2"]);
  assert.equal(ms.pendingGc, 2);
  assert.equal(a3.queries, 0, "a3 is behind a2, which is not ready: not queried");
  assert.ok(a2.queries >= 1);
  a2.state = "done";
  await ms.drain();
  assert.deepEqual(released, ["a1", "b1", "b2", "a2", "a3"]);
  assert.equal(a3.queries, 1);
  assert.equal(ms.pendingGc, 0);
  assert.ok(log.waited.every((waited) => waited >= 0));
});

Deno.test("a failed polled event keeps its payloads and leaves only its stream unhealthy", async () => {
  const ms = new MultiStream(pollingBackend(), { maxStreams: 4 });
  const released: string[] = [];
  task(ms, 1, ev("a1", "failed"), released);
  task(ms, 1, ev("a2", "done"), released);
  task(ms, 3, ev("c1", "done"), released);
  await assert.rejects(ms.drain(), /event a1 failed/);
  assert.deepEqual(released, ["a2", "c1"]);
  assert.equal(ms.keptAfterFailure, 1);
  assert.deepEqual([0, 1, 2, 3].filter((s) => ms.errors.has(s)), [1]);
  assert.equal(ms.failure(1)?.code, "DRIVER");
  assert.equal(ms.failure(3), undefined);
  assert.throws(() => ms.order(1, []), (e) => (e as ComputeError).code === "STREAM_UNHEALTHY");
  ms.order(3, []).finish();
});

Deno.test("back-pressure blocks on the oldest task; the poll skips what it settled", async () => {
  const backend = pollingBackend();
  const ms = new MultiStream(backend, { maxStreams: 4, maxPendingGc: 2 });
  const released: string[] = [];
  const events = ["a1", "b1", "a2", "b2", "a3"].map((name) => ev(name));
  events.forEach((event, i) => task(ms, 1 + (i % 2), event, released));
  assert.deepEqual(backend.syncWaits, ["a1", "b1", "a2"]);
  assert.deepEqual(released, ["a1", "b1", "a2"]);
  assert.equal(ms.pendingGc, 2);
  for (const event of events) event.state = "done";
  await ms.drain();
  assert.deepEqual(released.slice(3).sort(), ["a3", "b2"]);
  for (const event of events.slice(0, 3)) assert.equal(event.queries, 0, event.name);
});

Deno.test("pollGc settles what is complete now; nothing left, no timer is left", () => {
  const ms = new MultiStream(pollingBackend(), { maxStreams: 4 });
  const released: string[] = [];
  task(ms, 1, ev("a1", "done"), released);
  const b1 = ev("b1");
  task(ms, 2, b1, released);
  ms.pollGc();
  assert.deepEqual(released, ["a1"]);
  assert.equal(ms.pendingGc, 1);
  b1.state = "done";
  ms.pollGc(); // the test ends synchronously: a timer still scheduled would be reported
  assert.deepEqual(released, ["a1", "b1"]);
  assert.equal(ms.pendingGc, 0);
});

Deno.test("where host waits sleep, one is parked per FIFO head and its settling runs the pass", async () => {
  const parks: { event: Ev; settle: (error?: Error) => void }[] = [];
  const backend = Object.assign(pollingBackend(), {
    hostWaitsSleep: true,
    waitEventHost: (event: Ev) =>
      new Promise<void>((resolve, reject) => {
        parks.push({ event, settle: (error) => error ? reject(error) : resolve() });
      }),
  });
  const ms = new MultiStream(backend, { maxStreams: 4 });
  const released: string[] = [];
  const [a1, a2, b1] = [ev("a1"), ev("a2"), ev("b1")];
  task(ms, 1, a1, released);
  task(ms, 1, a2, released);
  task(ms, 2, b1, released);
  assert.deepEqual(parks.map((park) => park.event.name), ["a1", "b1"], "one per FIFO head");
  for (let i = 0; i < 20; i++) await tick();
  assert.equal(a1.queries + a2.queries + b1.queries, 0, "no timer polls meanwhile");
  a1.state = a2.state = "done";
  parks[0].settle();
  await tick();
  assert.deepEqual(released, ["a1", "a2"], "the pass settled the whole FIFO");
  assert.equal(parks.length, 2, "nothing left to park on stream 1; b1's wait still parked");
  // A wait that fails while its event still reads not ready: that FIFO falls back to the timer.
  parks[1].settle(new Error("refused"));
  await tick();
  assert.equal(parks.length, 2, "b1 is not parked again");
  b1.state = "done";
  await ms.drain();
  assert.deepEqual(released, ["a1", "a2", "b1"]);
  assert.ok(b1.queries >= 2, "polled on the timer after its wait failed");
});

Deno.test("pollGc(blockMs) blocks on the pending tasks with the synchronous wait; pollGc() never", () => {
  const backend = pollingBackend();
  const ms = new MultiStream(backend, { maxStreams: 4 });
  const released: string[] = [];
  task(ms, 1, ev("a1"), released);
  task(ms, 2, ev("b1"), released);
  ms.pollGc();
  assert.deepEqual(released, [], "a plain poll does not wait");
  assert.deepEqual(backend.syncWaits, []);
  ms.pollGc(1_000);
  assert.deepEqual(backend.syncWaits, ["a1", "b1"], "oldest first");
  assert.deepEqual(released, ["a1", "b1"]);
  assert.equal(ms.pendingGc, 0);
});
