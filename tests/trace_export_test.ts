// toChromeTrace on traces made by hand (merged, filtered or reordered by a user): any valid Trace,
// whatever the order of its events, gives a file whose begin/end pairs nest on every track.
import assert from "node:assert/strict";
import fc from "fast-check";
import { toChromeTrace, type Trace, type TraceSpan } from "../runtime/trace/mod.ts";
import { traceFormatProblems } from "./_trace_format.ts";

const trace = (events: Trace["events"]): Trace => ({
  backend: "webgpu",
  device: "test",
  timing: "device",
  start: 0,
  end: 100,
  events,
});

Deno.test("a span recorded before one that ended where it began still nests (touching spans)", () => {
  const read: TraceSpan = { type: "read", stream: 0, start: 3, end: 5, mapStart: 4, bytes: 4 };
  const sync: TraceSpan = { type: "sync", stream: 0, start: 1, end: 3 };
  for (const events of [[sync, read], [read, sync]]) {
    const file = toChromeTrace(trace(events));
    assert.deepEqual(traceFormatProblems(file), [], JSON.stringify(events));
    const host = file.traceEvents.filter((e) => e.ph === "B" || e.ph === "E");
    assert.deepEqual(
      host.map((e) => `${e.ph} ${e.name}`),
      ["B sync", "E sync", "B read 4 B", "B map wait", "E map wait", "E read 4 B"],
    );
  }
});

Deno.test("any order of spans on any streams gives a well-nested, monotonic Chrome trace", () => {
  const span = fc.record({
    type: fc.constantFrom("read" as const, "sync" as const),
    stream: fc.integer({ min: 0, max: 2 }),
    start: fc.integer({ min: 0, max: 20 }),
    length: fc.integer({ min: 0, max: 6 }),
    map: fc.option(fc.integer({ min: 0, max: 6 }), { nil: undefined }),
  }).map(({ type, stream, start, length, map }): TraceSpan => ({
    type,
    stream,
    start,
    end: start + length,
    ...(type === "read" && map !== undefined
      ? { mapStart: start + Math.min(map, length), bytes: 8 }
      : {}),
  }));
  fc.assert(
    fc.property(fc.array(span, { maxLength: 12 }), (spans) => {
      assert.deepEqual(traceFormatProblems(toChromeTrace(trace(spans))), []);
    }),
    { numRuns: 300 },
  );
});

Deno.test("overlap tracks never share a tid with another stream's track (stream ids past 100,000)", () => {
  const spans: TraceSpan[] = [
    { type: "read", stream: 0, start: 1, end: 10, bytes: 4 },
    { type: "read", stream: 0, start: 2, end: 5, bytes: 8 }, // overlaps: an extra track
    { type: "sync", stream: 100_000, start: 3, end: 8 },
  ];
  const file = toChromeTrace(trace(spans));
  assert.deepEqual(traceFormatProblems(file), []);
  const names = new Map<number, string[]>();
  for (const e of file.traceEvents) {
    if (e.ph === "M" && e.name === "thread_name" && e.pid === 1) {
      names.set(e.tid, [...names.get(e.tid) ?? [], String(e.args?.name)]);
    }
  }
  for (const [tid, list] of names) assert.equal(list.length, 1, `tid ${tid}: ${list.join(", ")}`);
  const track = (name: string) => [...names].find(([, list]) => list[0] === name)?.[0];
  assert.equal(track("stream 0"), 1, "a stream's own track stays tid N + 1");
  assert.equal(track("stream 100000"), 100_001);
  assert.ok(track("stream 0 (overlap 1)") !== undefined);
});
