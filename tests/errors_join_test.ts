/**
 * Errors that arrive together are one `ComputeError` whose `cause` lists them: two GC waits that
 * time out before one `drain` (what a CUDA `sync` awaits), several errors recorded on one stream,
 * several backend calls of one scheduler flush that fail.
 */
import assert from "node:assert/strict";
import { SliceRecord } from "../runtime/core/handles/slice_record.ts";
import { SliceHandle } from "../runtime/core/handles/slice.ts";
import { ComputeError, DriverError, TimeoutError } from "../runtime/core/errors.ts";
import { Handle } from "../runtime/core/handles/handle.ts";
import { MultiStream } from "../runtime/stream/event.ts";
import { StreamErrors } from "../runtime/stream/stream_errors.ts";
import { errorList, joinErrors } from "../runtime/core/_join_errors.ts";

const handle = (stream: number) =>
  new Handle(new SliceHandle(new SliceRecord()), { stream, cursor: 0, size: 16 });

/** The errors a joined error lists in its cause. */
function listed(error: unknown): unknown[] {
  assert.ok(error instanceof ComputeError, `a ComputeError, got ${error}`);
  assert.ok(error.cause instanceof AggregateError, "its cause lists the errors");
  return error.cause.errors;
}

Deno.test("two GC waits that time out reject one drain with one ComputeError listing both", async () => {
  let next = 0;
  const ms = new MultiStream<object, number>({
    createStream: () => ({}),
    handleCursor: (_s, ref) => ref.cursor,
    isHealthy: () => true,
    waitEvent: () => {},
    flush: () => next++,
    waitEventHost: (event) =>
      event === 2 || event === 5
        ? Promise.reject(new TimeoutError(`event ${event}`, 10, "it did not complete"))
        : Promise.resolve(),
  }, { maxStreams: 4 });
  using a = handle(0), b = handle(0);
  ms.order(3, [a.ref()]).finish(); // events 0 (stream 0), 1 (stream 3), 2 (the GC stream)
  ms.order(2, [b.ref()]).finish(); // events 3, 4, 5
  const error = await ms.drain().then(() => undefined, (e) => e);
  assert.equal((error as ComputeError).code, "TIMEOUT");
  assert.match(String(error), /2 GC errors: .*event 2.*event 5/);
  const errors = listed(error);
  assert.equal(errors.length, 2);
  assert.ok(errors.every((e) => e instanceof TimeoutError));
  await ms.drain(); // each reported once
});

Deno.test("several errors of one stream are one ComputeError with the first's code", () => {
  const record = new StreamErrors({ maxStreams: 4 });
  const first = new DriverError("launch 1 rejected");
  const second = new TimeoutError("a read", 5, "not complete");
  record.record(1, first);
  record.record(5, second); // the same stream (5 % 4)
  const error = record.take(1);
  assert.equal((error as ComputeError).code, "DRIVER");
  assert.match(String(error), /2 errors on stream 1: launch 1 rejected; Timed out/);
  assert.deepEqual(listed(error), [first, second]);
  assert.equal(record.take(1), undefined);
  record.record(2, first);
  assert.equal(record.take(2), first, "one error is kept as it is");
});

Deno.test("joined errors flatten; an error that is not a ComputeError gives UNKNOWN", () => {
  const inner = joinErrors([new Error("a"), new Error("b")], "2 failed");
  assert.equal((inner as ComputeError).code, "UNKNOWN");
  const outer = joinErrors([inner, new DriverError("c")], "3 failed");
  assert.deepEqual(errorList(outer).map((e) => (e as Error).message), ["a", "b", "c"]);
  assert.equal(joinErrors([], "none"), undefined);
});
