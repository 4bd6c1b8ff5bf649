/**
 * The verdicts a client's device work runs behind (`runtime/client/timeline/_device_deps.ts`)
 * and the gate they put on its timeline's marks (`ClientTimeline.gate`), with promises standing
 * in for the other client's work: what settles when, what is reported once, what is lost.
 */
import assert from "node:assert/strict";
import { DeviceDeps } from "../runtime/client/timeline/_device_deps.ts";
import { ClientTimeline } from "../runtime/client/timeline/_client_timeline.ts";
import { LostMemory } from "../runtime/client/timeline/_lost_memory.ts";
import { StreamErrors } from "../runtime/stream/stream_errors.ts";
import { AbortedError, ComputeError, DestroyedError } from "../mod.ts";

function setup() {
  const errors = new StreamErrors();
  const lost = new LostMemory();
  return { errors, lost, deps: new DeviceDeps(errors, lost) };
}

const failure = () => new ComputeError("DRIVER", "the producer's kernel faulted");
const settledState = (p: Promise<unknown>) =>
  Promise.race([p.then(() => "resolved", () => "rejected"), Promise.resolve("pending")]);
const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

Deno.test("device deps: a read behind a pending verdict waits for it, then gives its bytes", async () => {
  const { deps } = setup();
  const verdict = Promise.withResolvers<void>();
  deps.waitOn(1, verdict.promise);
  assert.equal(deps.any, true);
  assert.equal(deps.pending(0), undefined, "another stream does not depend on it");
  const read = deps.settle(Promise.resolve("bytes"), deps.pending(1)!);
  await tick();
  assert.equal(await settledState(read), "pending");
  verdict.resolve();
  assert.equal(await read, "bytes");
  assert.equal(deps.any, false, "dropped once settled");
});

Deno.test("device deps: a failed verdict rejects every read at once, and a sync only once", async () => {
  const { deps, errors } = setup();
  const verdict = Promise.withResolvers<void>();
  deps.waitOn(2, verdict.promise);
  const never = new Promise<string>(() => {}); // the device may never finish behind a fault
  const first = deps.settle(never, deps.pending(2)!);
  const second = deps.settle(Promise.resolve("late"), deps.pending(2)!);
  const synced = deps.sync(2, () => Promise.resolve());
  const error = failure();
  verdict.reject(error);
  await assert.rejects(first, (e) => e === error);
  await assert.rejects(second, (e) => e === error);
  await synced; // a read had it: not thrown again
  errors.throwFor(2); // nor recorded for the stream's next call
});

Deno.test("device deps: a failure no read got is thrown by the stream's next call, once", async () => {
  const { deps, errors } = setup();
  const verdict = Promise.withResolvers<void>();
  deps.waitOn(3, verdict.promise);
  const error = failure();
  verdict.reject(error);
  await tick();
  assert.throws(() => errors.throwFor(3), (e) => e === error);
  errors.throwFor(3);
  assert.equal(deps.any, false);
});

Deno.test("device deps: a sync made before the failure throws it, the next one not", async () => {
  const { deps, errors } = setup();
  const verdict = Promise.withResolvers<void>();
  deps.waitOn(0, verdict.promise);
  const synced = deps.sync(0, () => Promise.resolve());
  const error = failure();
  verdict.reject(error);
  await assert.rejects(synced, (e) => e === error);
  errors.throwFor(0);
  await deps.sync(0, () => Promise.resolve());
});

Deno.test("device deps: a sync reports every failure of its verdicts at once, the next sync none", async () => {
  const { deps, errors } = setup();
  const first = Promise.withResolvers<void>(), second = Promise.withResolvers<void>();
  deps.copyInto(0, [{}], first.promise); // two copies whose source faulted
  deps.copyInto(0, [{}], second.promise);
  const synced = deps.sync(0, () => Promise.resolve());
  const a = failure(), b = failure();
  first.reject(a);
  await tick(); // the second copy's failure shows later
  second.reject(b);
  await assert.rejects(synced, (e) => {
    assert.ok(e instanceof ComputeError);
    assert.deepEqual((e.cause as AggregateError).errors, [a, b]);
    assert.match(e.message, /^2 errors on stream 0: /);
    return true;
  });
  errors.throwFor(0); // none left for the stream's next call
  await deps.sync(0, () => Promise.resolve());
});

Deno.test("device deps: a sync waits for the verdicts still pending before it throws what is recorded", async () => {
  const { deps, errors } = setup();
  const first = Promise.withResolvers<void>(), second = Promise.withResolvers<void>();
  deps.copyInto(0, [{}], first.promise);
  deps.copyInto(0, [{}], second.promise);
  const a = failure(), b = failure();
  first.reject(a);
  await tick(); // recorded on stream 0: no read had it
  let synced = false;
  const sync = deps.sync(0, () => Promise.resolve().then(() => void (synced = true)));
  await tick();
  assert.equal(await settledState(sync), "pending", "behind the verdict still pending");
  second.reject(b);
  await assert.rejects(sync, (e) => {
    assert.deepEqual((e as ComputeError).cause instanceof AggregateError, true);
    assert.deepEqual(((e as ComputeError).cause as AggregateError).errors, [a, b]);
    return true;
  });
  assert.equal(synced, false, "the device's sync is not waited for once a verdict failed");
  errors.throwFor(0); // nothing left: the next sync of the stream passes
  await deps.sync(0, () => Promise.resolve());
});

Deno.test("device deps: memory a failed copy or a call made from it defined is lost, other memory not", async () => {
  const { deps, lost, errors } = setup();
  const copy = {}, input = {}, output = {}, elsewhere = {};
  const verdict = Promise.withResolvers<void>();
  deps.copyInto(1, [copy], verdict.promise);
  deps.use(0, [copy, output]); // a kernel on stream 0 made `output` from the copy
  deps.use(2, [elsewhere]); // unrelated work
  assert.ok(deps.pending(0, []), "the stream of a call that used the copy depends on it too");
  assert.equal(deps.pending(2, [elsewhere]), undefined);
  assert.ok(deps.pending(3, [output]), "a read of the call's output, on any stream");
  const error = failure();
  verdict.reject(error);
  await tick();
  assert.throws(() => lost.check(copy), (e) => e === error);
  assert.throws(() => lost.check(output), (e) => e === error);
  lost.check(elsewhere);
  lost.check(input);
  assert.throws(() => errors.throwFor(1), (e) => e === error); // the copy's own stream
});

Deno.test("device deps: a failed device wait loses no memory; a destroyed producer is no failure", async () => {
  const { deps, lost, errors } = setup();
  const key = {};
  const failed = Promise.withResolvers<void>();
  deps.waitOn(1, failed.promise);
  deps.use(1, [key]);
  failed.reject(failure());
  await tick();
  lost.check(key);
  assert.throws(() => errors.throwFor(1), ComputeError);
  const destroyed = Promise.withResolvers<void>();
  deps.copyInto(1, [key], destroyed.promise);
  const read = deps.settle(Promise.resolve(7), deps.pending(1, [key])!);
  destroyed.reject(new DestroyedError("The CUDA server was destroyed"));
  assert.equal(await read, 7, "its enqueued work drained with its context");
  lost.check(key);
  errors.throwFor(1);
});

Deno.test("device deps: close drops every dependency without reporting", async () => {
  const { deps, errors, lost } = setup();
  const key = {};
  const verdict = Promise.withResolvers<void>();
  deps.copyInto(0, [key], verdict.promise);
  deps.close();
  assert.equal(deps.any, false);
  verdict.reject(failure());
  await tick();
  errors.throwFor(0);
  lost.check(key);
  deps.waitOn(0, Promise.reject(failure())); // after close: ignored
  assert.equal(deps.any, false);
});

Deno.test("client timeline: a gate holds its value and later ones back, and fails them with its verdict", async () => {
  const open = new ClientTimeline("client A");
  const gate = Promise.withResolvers<void>();
  open.gate(3n, gate.promise);
  open.set(5n); // the work of marks 1-5 completed
  assert.equal(open.value, 2n, "the values below the gate are reached");
  const waited = open.wait(5n);
  gate.resolve();
  await waited;
  assert.equal(open.value, 5n);

  const shut = new ClientTimeline("client B");
  const failing = Promise.withResolvers<void>();
  shut.gate(2n, failing.promise);
  shut.set(4n);
  const pending = shut.wait(3n);
  failing.reject(new Error("the producer faulted"));
  await assert.rejects(pending, (e) => {
    assert.ok(e instanceof AbortedError);
    assert.match(e.message, /Timeline value 3 of client B will never be reached: the producer/);
    return true;
  });
  assert.equal(shut.value, 1n);
  shut.set(9n); // later marks never reach past the failed value
  assert.equal(shut.value, 1n);
});

Deno.test("device deps: a read of memory behind a verdict passes nothing on; a call that returns nothing does", async () => {
  const { HeldStreams } = await import("../runtime/client/timeline/_held_streams.ts");
  const held = new HeldStreams();
  const copy = {};
  const verdict = Promise.withResolvers<void>();
  held.deps.copyInto(1, [copy], verdict.promise);
  assert.equal(held.run(3, [copy], [], () => "read"), "read");
  assert.equal(held.deps.pending(3), undefined, "the read's stream does not depend on the copy");
  held.runVoid(2, [copy], [], () => {}); // a launch that used the copy
  assert.ok(held.deps.pending(2), "the launch's stream depends on it");
  verdict.resolve();
  await tick();
  assert.equal(held.deps.any, false);
});
