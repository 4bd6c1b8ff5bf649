import assert from "node:assert/strict";
import { ComputeClient, type ComputeError } from "../mod.ts";
import { CpuTimelineSignal, type TimelineSignal } from "../sync/mod.ts";
import { type SimKernel, SimulatedServer } from "./fixtures/simulated_server.ts";

// The simulated server has no native `signal`: the client marks through `sync`.
function newClient(seed = 3): ComputeClient<SimKernel> {
  return new ComputeClient(new SimulatedServer({ maxStreams: 4, seed }));
}

Deno.test("client.signal without a native mark: values rise and are reached after the work", async () => {
  using client = newClient();
  using handle = client.createWithData(new Uint32Array([5]), { stream: 1 });
  const first = client.signal({ stream: 1 });
  const second = client.signal({ stream: 2 });
  assert.deepEqual([first, second], [1n, 2n]);
  assert.equal(client.timeline.isReached(first), false);
  await client.timeline.wait(second);
  assert.equal(client.timeline.value, 2n);
  assert.deepEqual([...await client.read(handle, Uint32Array, { stream: 1 })], [5]);
});

Deno.test("waitFor orders later calls on other streams that touch held memory", async () => {
  using client = newClient(5);
  using handle = client.createBytes(4, { stream: 0 });
  const produced = new CpuTimelineSignal();
  client.waitFor(produced, 1, { stream: 1 });
  client.write(handle, new Uint32Array([1]), { stream: 1 }); // held
  client.write(handle, new Uint32Array([2]), { stream: 2 }); // after the held write: same memory
  const read = client.read(handle, Uint32Array, { stream: 3 });
  produced.set(1);
  assert.deepEqual([...await read], [2]);
  await client.sync();
  // The held write landed first, then the later one: program order on the memory.
  assert.deepEqual([...await client.read(handle, Uint32Array, { stream: 0 })], [2]);
});

Deno.test("a failed wait of a held stream is reported by the stream's next call", async () => {
  using client = newClient(9);
  const failure = new Error("the producer died");
  const broken: TimelineSignal = {
    value: 0n,
    set() {},
    wait: () => Promise.reject(failure),
    waitSync() {},
    isReached: () => false,
  };
  using handle = client.createBytes(4, { stream: 1 });
  client.waitFor(broken, 1, { stream: 1 });
  await assert.rejects(
    client.read(handle, Uint8Array, { stream: 1 }),
    (e: ComputeError) => e.code === "ABORTED" && e.cause === failure,
  );
  // Reported once: the stream works again afterwards.
  client.write(handle, new Uint32Array([4]), { stream: 1 });
  assert.deepEqual([...await client.read(handle, Uint32Array, { stream: 1 })], [4]);
  await client.sync();
});

Deno.test("a failed wait with no call held behind it is thrown once by the stream's next sync", async () => {
  using client = newClient(11);
  const never = new CpuTimelineSignal();
  // A timeout the caller must learn of: nothing was held behind it, then `sync` drains it.
  client.waitFor(never, 1, { stream: 1, timeoutMs: 5 });
  await assert.rejects(client.sync({ stream: 1 }), (e: ComputeError) => e.code === "TIMEOUT");
  await client.sync({ stream: 1 }); // reported once
  // Failed while nothing was asked: the stream's next call throws it.
  client.waitFor(never, 1, { stream: 2, timeoutMs: 5 });
  await new Promise((resolve) => setTimeout(resolve, 30));
  await assert.rejects(client.sync({ stream: 2 }), (e: ComputeError) => e.code === "TIMEOUT");
  using handle = client.createWithData(new Uint32Array([6]), { stream: 2 });
  assert.deepEqual([...await client.read(handle, Uint32Array, { stream: 2 })], [6]);
  // A held read that rejected with the failure has it: later calls do not get it again.
  client.waitFor(never, 1, { stream: 3, timeoutMs: 5 });
  await assert.rejects(client.read(handle, Uint32Array, { stream: 3 }), TimeoutErrorCode);
  await client.sync({ stream: 3 });
});

function TimeoutErrorCode(e: ComputeError): boolean {
  return e.code === "TIMEOUT";
}

Deno.test("read(handle, undefined, { stream }) reads on that stream (the options are not dropped)", async () => {
  using client = newClient(7);
  using handle = client.createWithData(new Uint32Array([9]));
  using other = client.createWithData(new Uint32Array([4]));
  await client.sync();
  const gate = new CpuTimelineSignal();
  client.waitFor(gate, 1, { stream: 2 }); // holds stream 2 only
  let settled = false;
  const held = client.read(handle, undefined as never, { stream: 2 }).finally(() => settled = true);
  assert.deepEqual([...await client.read(other)], [4], "stream 0 is not held");
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(settled, false, "the read waits behind stream 2's waitFor");
  gate.set(1);
  assert.deepEqual([...await held], [9]);
});

/** A timeline whose every wait rejects when `fail` is called (a producer that died). */
function brokenSignal(): { broken: TimelineSignal; fail: (error: unknown) => void } {
  let reject = (_: unknown) => {};
  const broken: TimelineSignal = {
    value: 0n,
    set() {},
    wait: () => new Promise((_, r) => reject = r),
    waitSync() {},
    isReached: () => false,
  };
  return { broken, fail: (error) => reject(error) };
}

Deno.test("a failed wait is reported once, whatever was still held behind the call that got it", async () => {
  using client = newClient(11);
  const failure = new Error("the producer died");
  const { broken, fail } = brokenSignal();
  using handle = client.createWithData(new Uint32Array([1]), { stream: 1 });
  client.waitFor(broken, 1, { stream: 1 });
  const first = client.read(handle, Uint32Array, { stream: 1 }); // held: gets the failure
  client.write(handle, new Uint32Array([2]), { stream: 1 }); // held behind it: never runs
  fail(failure);
  const got = await first.then(() => undefined, (error: ComputeError) => error);
  assert.ok(got?.code === "ABORTED" && got.cause === failure, String(got));
  // A call made once it was reported runs after the held write, which may not have settled yet:
  // no second report.
  assert.deepEqual([...await client.read(handle, Uint32Array, { stream: 1 })], [1]);
  // The same behind a profile whose window never opened and a launch held in it.
  client.waitFor(broken, 2, { stream: 1 });
  const profiled = client.profile(() => {
    client.write(handle, new Uint32Array([4]), { stream: 1 });
  }, { stream: 1 });
  fail(failure);
  const missed = await profiled.then(() => undefined, (error: ComputeError) => error);
  assert.ok(missed?.code === "ABORTED" && missed.cause === failure, String(missed));
  assert.deepEqual([...await client.read(handle, Uint32Array, { stream: 1 })], [1]);
  client.write(handle, new Uint32Array([3]), { stream: 1 });
  assert.deepEqual([...await client.read(handle, Uint32Array, { stream: 1 })], [3]);
  await client.sync();
});

Deno.test("a wait that fails with no call held behind it is thrown by the stream's next read", async () => {
  using client = newClient(13);
  const failure = new Error("the producer died");
  const { broken, fail } = brokenSignal();
  using handle = client.createWithData(new Uint32Array([1]), { stream: 1 });
  client.waitFor(broken, 1, { stream: 1 });
  fail(failure);
  await new Promise((resolve) => setTimeout(resolve, 10)); // the hold is over: nothing held
  // Else the failure was lost: later work ran as if the producer had finished.
  await assert.rejects(
    client.read(handle, Uint32Array, { stream: 1 }),
    (e: ComputeError) => e.code === "ABORTED" && e.cause === failure,
  );
  assert.deepEqual([...await client.read(handle, Uint32Array, { stream: 1 })], [1]); // once
  await client.sync();
});

Deno.test("a mark on a stream held for the client's own future value is refused at the call (it would wait for itself)", async () => {
  using client = newClient();
  const next = client.timeline.value + 1n;
  client.waitFor(client.timeline, next);
  assert.throws(
    () => client.signal(),
    (e: ComputeError) =>
      e.code === "UNSUPPORTED" &&
      /waits \(waitFor\) for value 1 of this client's own/.test(e.message),
  );
  client.waitFor(client.timeline, next + 1n, { stream: 2 });
  assert.throws(() => client.signal({ stream: 2 }), (e: ComputeError) => e.code === "UNSUPPORTED");
  // Refused calls changed nothing: marks on another stream reach the values and free both.
  assert.equal(client.signal({ stream: 1 }), next);
  assert.equal(client.signal({ stream: 1 }), next + 1n);
  await client.sync(); // (every held stream drains)
  await client.sync({ stream: 2 });
  assert.equal(client.signal(), next + 2n); // nothing holds stream 0 now
  await client.timeline.wait(next + 2n);
});
