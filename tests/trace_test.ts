import assert from "node:assert/strict";
import { createClient, CubeCount } from "../mod.ts";
import { renderTraceSvg, toChromeTrace, type TraceKernel } from "../runtime/trace/mod.ts";
import type { WebGpuServer, WgslKernel } from "../runtime/server/webgpu/mod.ts";
import { ProfilerCore } from "../runtime/server/webgpu/profile/_profile_windows.ts";
import { traceFormatProblems } from "./_trace_format.ts";

const adapter = await navigator.gpu?.requestAdapter();
const noAdapter = adapter === null || adapter === undefined; // no WebGPU adapter on this machine

const kernel = (id: string, body: string, buffers: number): WgslKernel => ({
  id,
  entryPoint: "main",
  workgroupSize: [64, 1, 1],
  source: `${
    Array.from(
      { length: buffers },
      (_, i) => `@group(0) @binding(${i}) var<storage, read_write> b${i}: array<u32>;`,
    ).join("\n")
  }
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3u) {
  let i = g.x;
  if (i >= arrayLength(&b0)) { return; }
  ${body}
}`,
});
const inc = kernel("trace.inc", "b0[i] = b0[i] + 1u;", 1);
const add = kernel("trace.add", "b2[i] = b0[i] + b1[i];", 3);
const N = 256;
const one = CubeCount.new1d(N / 64);

/** Streams 1 and 2 produce, stream 3 consumes both, reads and syncs: every kind of event. */
async function recordWorkload() {
  using client = await createClient({ adapter: adapter! });
  using before = client.createWithData(new Uint32Array(N), { stream: 1 });
  client.execute(inc, { stream: 1, count: one, buffers: [before] }); // before the recording
  const recorder = client.trace();
  assert.equal(recorder.recording, true);
  assert.throws(() => client.trace(), { code: "TRACE_ACTIVE" });
  using x = client.createWithData(new Uint32Array(N).fill(1), { stream: 1 });
  using y = client.empty(N, "u32", { stream: 2 });
  using z = client.empty(N, "u32", { stream: 3 });
  const launched: [string, number][] = [];
  const run = (k: WgslKernel, stream: number, buffers: typeof x[]) => {
    client.execute(k, { stream, count: one, buffers });
    launched.push([k.id!, stream]);
  };
  client.write(y, new Uint32Array(N).fill(10), { stream: 2 });
  run(inc, 1, [x]);
  run(inc, 2, [y]);
  run(inc, 1, [x]);
  run(add, 3, [x, y, z]); // waits on streams 1 (x) and 2 (y)
  run(inc, 3, [z]);
  const [zs] = await client.readMany([z], Uint32Array, { stream: 3 });
  assert.deepEqual([...zs.slice(0, 3)], [15, 15, 15]);
  run(inc, 2, [y]);
  await client.sync({ stream: 2 });
  const trace = await recorder.stop();
  assert.equal(recorder.recording, false);
  assert.equal(recorder.stop(), recorder.stop(), "stop is idempotent");
  client.execute(inc, { stream: 1, count: one, buffers: [x] }); // after the recording
  await client.sync();
  return { trace, launched, timer: client.server.properties.deviceTimer };
}

Deno.test({
  name: "a trace holds every launched kernel once, with waits, reads, syncs and submissions",
  ignore: noAdapter,
  async fn() {
    const { trace, launched, timer } = await recordWorkload();
    assert.equal(trace.timing, timer ? "device" : "system");
    const kernels = trace.events.filter((e): e is TraceKernel => e.type === "kernel");
    assert.deepEqual(kernels.map((k) => [k.kernel, k.stream]), launched);
    const submits = new Set(trace.events.flatMap((e) => e.type === "submit" ? [e.id] : []));
    for (const k of kernels) {
      assert.ok(submits.has(k.submission), `kernel's submission ${k.submission} is recorded`);
      assert.ok(k.end >= k.start && k.start >= k.launched - 1e-6, "device time after launch");
      assert.ok(k.end <= trace.end, "kernels end before the recording stopped");
      assert.deepEqual(k.workgroups, [N / 64, 1, 1]);
    }
    for (const stream of [1, 2, 3]) {
      const own = kernels.filter((k) => k.stream === stream);
      own.slice(1).forEach((k, i) => assert.ok(k.start >= own[i].end - 1e-3, "one queue"));
    }
    const waits = trace.events.flatMap((e) => e.type === "wait" ? [[e.stream, e.on]] : []);
    // The waits the scheduler decided: add on 3 uses x and y, queued on 1 and 2, so both were
    // submitted first. When 2 writes y again, 3's read had already submitted 3's work: no wait.
    assert.deepEqual(waits, [[3, 1], [3, 2]]);
    const copies = trace.events.filter((e) => e.type === "copy");
    assert.deepEqual(copies.map((c) => c.type === "copy" && [c.kind, c.stream]), [
      ["write", 1],
      ["write", 2],
      ["read", 3],
    ]);
    const read = trace.events.find((e) => e.type === "read");
    assert.ok(read?.type === "read" && read.start <= read.mapStart! && read.mapStart! <= read.end);
    assert.equal(read.bytes, N * 4);
    assert.ok(trace.events.some((e) => e.type === "sync" && e.stream === 2));
    const memory = trace.events.filter((e) => e.type === "memory");
    assert.ok(memory.some((m) => m.type === "memory" && m.inUse >= 3 * N * 4));
  },
});

Deno.test({
  name: "the Chrome trace JSON follows the Trace Event Format and renders as SVG",
  ignore: noAdapter,
  async fn() {
    const { trace, launched } = await recordWorkload();
    const file = JSON.parse(JSON.stringify(toChromeTrace(trace)));
    assert.deepEqual(traceFormatProblems(file), []);
    const events = file.traceEvents as { ph: string; cat?: string; name: string; tid: number }[];
    const kernels = events.filter((e) => e.ph === "X" && e.cat === "kernel");
    assert.deepEqual(kernels.map((e) => [e.name, e.tid - 1]).sort(), [...launched].sort());
    assert.equal(events.filter((e) => e.ph === "s").length, 2, "one arrow per wait");
    const names = events.filter((e) => e.ph === "M" && e.name === "thread_name");
    assert.equal(names.length, 1 + 2 * 3, "queue, and stream 1..3 on host and device");
    const svg = renderTraceSvg(trace, { title: "test & <trace>" });
    assert.match(svg, /^<svg [^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    assert.ok(svg.trimEnd().endsWith("</svg>"));
    assert.ok(svg.includes("test &#38; &#60;trace&#62;"), "text is escaped");
    assert.equal(svg.match(/<title>trace\.\w+ \(stream/g)?.length, launched.length, "a bar each");
    assert.equal(svg.match(/marker-end="url\(#arrow\)"/g)?.length, 2, "an arrow per wait");
    assert.doesNotMatch(svg, /NaN|undefined|Infinity/);
  },
});

Deno.test({
  name: "host calls that overlap on one stream get tracks of their own",
  ignore: noAdapter,
  async fn() {
    using client = await createClient({ adapter: adapter! });
    using a = client.createWithData(new Uint32Array(N).fill(3), { stream: 1 });
    using b = client.createWithData(new Uint32Array(N).fill(4), { stream: 1 });
    const recorder = client.trace();
    client.execute(inc, { stream: 1, count: one, buffers: [a] });
    await Promise.all([client.read(a, Uint32Array), client.read(b), client.sync()]);
    const file = JSON.parse(JSON.stringify(toChromeTrace(await recorder.stop())));
    assert.deepEqual(traceFormatProblems(file), []);
    const tracks = (file.traceEvents as { ph: string; name: string; args?: { name?: string } }[])
      .filter((e) => e.ph === "M" && e.name === "thread_name").map((e) => e.args?.name);
    assert.ok(tracks.includes("stream 0 (overlap 2)"), tracks.join(", "));
  },
});

Deno.test("the format checker reports broken traces", () => {
  const ok = { name: "k", ph: "X", ts: 1, dur: 2, pid: 1, tid: 1 };
  assert.deepEqual(traceFormatProblems({ traceEvents: [ok] }), []);
  const broken = traceFormatProblems({
    traceEvents: [
      { ...ok, ts: 5 },
      { ...ok, ts: 4 }, // goes back
      { name: "r", ph: "B", ts: 6, pid: 1, tid: 1 },
      { name: "q", ph: "E", ts: 7, pid: 1, tid: 1 }, // mismatched
      { name: "x", ph: "Q", ts: 8, pid: 1.5, tid: 1 }, // phase, pid
      { name: "w", ph: "s", id: 1, ts: 9, pid: 1, tid: 1 }, // no finish
      { ph: "X", ts: 10, pid: 1, tid: 1 }, // no name, no dur
    ],
  });
  assert.equal(broken.length, 7, broken.join("\n"));
  assert.ok(traceFormatProblems([]).length > 0);
});

Deno.test({
  name: "tracing off: the dispatch path tracks no task and makes no pass group",
  ignore: noAdapter,
  async fn() {
    const calls = { track: 0, group: 0 };
    const { track, group } = ProfilerCore.prototype;
    ProfilerCore.prototype.track = function (...args) {
      calls.track++;
      return track.apply(this, args);
    };
    ProfilerCore.prototype.group = function (...args) {
      calls.group++;
      return group.apply(this, args);
    };
    try {
      using client = await createClient({ adapter: adapter! });
      using data = client.createBytes(N * 4);
      const dispatch = (times: number) => {
        for (let i = 0; i < times; i++) client.execute(inc, { count: one, buffers: [data] });
      };
      dispatch(50);
      await client.sync();
      assert.deepEqual(calls, { track: 0, group: 0 }, "never profiled");
      const recorder = client.trace();
      dispatch(50);
      await recorder.stop();
      assert.deepEqual(calls, { track: 50, group: 50 }, "traced");
      await client.profile(() => dispatch(10));
      const after = { ...calls };
      dispatch(50);
      await client.sync();
      assert.deepEqual(calls, after, "off again after the trace and a window");
      const server = client.server as WebGpuServer;
      assert.equal(server.stats().querySets <= 1, true);
    } finally {
      Object.assign(ProfilerCore.prototype, { track, group });
    }
  },
});

Deno.test({
  name: "without timestamp-query a trace says so and still lists every kernel",
  ignore: noAdapter,
  async fn() {
    const device = await adapter!.requestDevice(); // no optional features
    using client = await createClient({ device });
    using data = client.createBytes(N * 4, { stream: 1 });
    const recorder = client.trace();
    client.execute(inc, { stream: 1, count: one, buffers: [data] });
    client.execute(inc, { stream: 2, count: one, buffers: [data] });
    await client.sync();
    const trace = await recorder.stop();
    assert.equal(trace.timing, "system");
    const kernels = trace.events.filter((e): e is TraceKernel => e.type === "kernel");
    assert.deepEqual(kernels.map((k) => k.stream), [1, 2]);
    for (const k of kernels) assert.ok(k.start === k.end && k.start >= k.launched);
    assert.deepEqual(traceFormatProblems(JSON.parse(JSON.stringify(toChromeTrace(trace)))), []);
    await assert.rejects(() => client.profile(() => {}, { perKernel: true }), {
      code: "UNSUPPORTED",
    });
    client.destroy();
    device.destroy();
  },
});

Deno.test({
  name:
    "a trace shows the waits the scheduler decided: readers on two streams do not wait on each other",
  ignore: noAdapter,
  async fn() {
    using client = await createClient({ adapter: adapter! });
    const copy: WgslKernel = {
      id: "trace.copy",
      source: `@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3u) {
  if (g.x < arrayLength(&dst)) { dst[g.x] = src[g.x]; }
}`,
    };
    using src = client.createWithData(new Uint32Array(N).fill(7), { stream: 1 });
    using a = client.createBytes(N * 4, { stream: 2 });
    using b = client.createBytes(N * 4, { stream: 3 });
    await client.sync();
    const recorder = client.trace();
    client.execute(inc, { stream: 1, count: one, buffers: [src] }); // writes src on 1
    client.execute(copy, { stream: 2, count: one, buffers: [src, a] }); // reads src: 1 first
    // Reads src: 1 was submitted already, and 2 only reads it: no wait.
    client.execute(copy, { stream: 3, count: one, buffers: [src, b] });
    client.execute(inc, { stream: 4, count: one, buffers: [src] }); // writes: 2 and 3 first
    await client.sync();
    const trace = await recorder.stop();
    const waits = trace.events.flatMap((e) => e.type === "wait" ? [[e.stream, e.on]] : []);
    assert.deepEqual(waits, [[2, 1], [4, 2], [4, 3]]);
    const [as, bs] = await client.readMany([a, b], Uint32Array, { stream: 0 });
    assert.deepEqual([as[0], bs[0]], [8, 8]);
  },
});

Deno.test({
  name: "a dropped parked kernel is in the trace as never submitted, and times nothing else",
  ignore: noAdapter,
  async fn() {
    using client = await createClient({ adapter: adapter! });
    // It writes `x`, declared read-only: its widened pipeline runs parked until the validation
    // of the real module fails, and its submission is dropped.
    const writesReadOnly: WgslKernel = {
      id: "trace.writes_read_only",
      source: `
@group(0) @binding(0) var<storage, read> x: array<u32>;
@group(0) @binding(1) var<storage, read_write> y: array<u32>;
@compute @workgroup_size(1) fn main() { x[0] = 7u; y[0] = 1u; }`,
    };
    using x = client.createWithData(new Uint32Array([1, 2]));
    using y = client.createWithData(new Uint32Array([0, 0]));
    using other = client.createWithData(new Uint32Array(N), { stream: 1 });
    await client.sync();
    await client.sync({ stream: 1 });
    const recorder = client.trace();
    client.execute(writesReadOnly, { threads: 1, buffers: [x, y] });
    client.flush();
    client.execute(inc, { stream: 1, count: one, buffers: [other] }); // parked behind it
    assert.equal((await client.read(other, { stream: 1 }))[0], 1);
    await assert.rejects(client.sync(), { code: "COMPILATION" });
    const trace = await recorder.stop();
    const kernels = trace.events.filter((e): e is TraceKernel => e.type === "kernel");
    const submits = trace.events.flatMap((e) => e.type === "submit" ? [e] : []);
    const dropped = kernels.find((k) => k.kernel === "trace.writes_read_only")!;
    // Listed before as submitted, in a submission that never reached the queue.
    assert.equal(dropped.submission, -1);
    assert.equal(dropped.start, dropped.launched);
    assert.equal(dropped.end, dropped.start);
    assert.ok(
      !submits.some((s) => s.streams.includes(0) && s.kernels > 0),
      JSON.stringify(submits),
    );
    const ran = kernels.find((k) => k.kernel === "trace.inc")!;
    assert.ok(submits.some((s) => s.id === ran.submission && s.kernels === 1));
    // Its device time on the trace's clock (a dropped pass's stale timestamps moved every
    // kernel's start by hours before).
    assert.ok(ran.start >= trace.start && ran.end <= trace.end, JSON.stringify(ran));
    assert.deepEqual([...await client.read(x)], [1, 2]); // it never ran
  },
});

Deno.test({
  name: "a read or sync begun before the trace started is not in it (no negative times)",
  ignore: noAdapter,
  async fn() {
    using client = await createClient({ adapter: adapter! });
    using x = client.createWithData(new Uint32Array(N));
    for (let i = 0; i < 8; i++) client.execute(inc, { count: one, buffers: [x] });
    const reading = client.read(x), syncing = client.sync();
    const recorder = client.trace(); // while both are pending
    const [values] = await Promise.all([reading, syncing]);
    assert.equal(values[0], 8);
    await client.sync(); // begun inside: recorded
    const trace = await recorder.stop();
    const spans = trace.events.flatMap((e) => e.type === "read" || e.type === "sync" ? [e] : []);
    assert.deepEqual(spans.map((s) => s.type), ["sync"]);
    for (const span of spans) assert.ok(span.start >= trace.start, "inside the trace");
    assert.deepEqual(traceFormatProblems(JSON.parse(JSON.stringify(toChromeTrace(trace)))), []);
  },
});

Deno.test({
  name: "stop() of a trace whose client was destroyed rejects, as on CUDA (never throws)",
  ignore: noAdapter,
  async fn() {
    const client = await createClient({ adapter: adapter! });
    const recorder = client.trace();
    client.destroy();
    let stopped: Promise<unknown> | undefined;
    assert.doesNotThrow(() => stopped = recorder.stop());
    await assert.rejects(stopped!, { code: "DESTROYED" });
  },
});

Deno.test({
  name: "a kernel whose submission WebGPU rejected is in the trace as never submitted",
  ignore: noAdapter,
  async fn() {
    using client = await createClient({ adapter: adapter! });
    using x = client.createWithData(new Uint32Array(N));
    const broken = kernel("trace.broken", "b0[i] = undefined_name;", 1); // fails at compile
    const recorder = client.trace();
    client.execute(inc, { count: one, buffers: [x] });
    client.execute(broken, { count: one, buffers: [x] }); // its own submission, rejected
    client.execute(inc, { count: one, buffers: [x] });
    await assert.rejects(client.sync(), { code: "COMPILATION" });
    assert.equal((await client.read(x))[0], 2);
    const trace = await recorder.stop();
    const kernels = trace.events.flatMap((e) => e.type === "kernel" ? [e] : []);
    assert.deepEqual(kernels.map((k) => [k.kernel, k.submission >= 0]), [
      ["trace.inc", true],
      ["trace.broken", false],
      ["trace.inc", true],
    ]);
  },
});

Deno.test("the trace writers refuse what is not a trace, or bad options, with TypeErrors", () => {
  for (const bad of [undefined, null, {}, { events: [] }, "trace"]) {
    assert.throws(() => toChromeTrace(bad as never), { name: "TypeError", message: /trace must/ });
    assert.throws(() => renderTraceSvg(bad as never), { name: "TypeError", message: /trace must/ });
  }
  const empty = { backend: "b", device: "d", timing: "device", start: 0, end: 1, events: [] };
  assert.equal(toChromeTrace(empty as never).traceEvents.length, 5); // the metadata only
  for (const options of [null, "wide", { width: "960" }, { title: 7 }]) {
    assert.throws(() => renderTraceSvg(empty as never, options as never), TypeError);
  }
  assert.match(renderTraceSvg(empty as never), /^<svg/);
});
