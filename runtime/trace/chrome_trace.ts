/**
 * Writes a {@linkcode Trace} in the Chrome Trace Event Format (the JSON object form), which
 * Perfetto (ui.perfetto.dev) and `chrome://tracing` open.
 *
 * Layout: process 1 is the host, process 2 the device. Each has one thread (track) per stream,
 * named `stream N` (tid `N + 1`; host calls that overlap on one stream, such as two reads awaited
 * together, go to extra `stream N (overlap k)` tracks, with tids after every stream's); the host
 * also has a `queue` track (tid 0) with the submissions and the `memory` counter. Device tracks
 * hold kernels as complete (`X`) events with their device start and duration; host tracks hold
 * copies (instants), reads (a `B`/`E` span with a nested `map wait` span), syncs (`B`/`E`) and
 * waits (instants, plus a flow arrow from the last kernel of the stream waited on to the next
 * kernel of the waiting stream). Times are microseconds since the trace started; events are
 * ordered by time, so every track is monotonic, and each track's spans nest.
 *
 * @module
 */

import { formatBytes } from "../core/format_bytes.ts";
import type { StreamId } from "../core/stream_id.ts";
import type { Trace, TraceKernel, TraceSpan } from "../core/trace.ts";
import { checkTrace } from "./_check_trace.ts";

/**
 * One event of the Trace Event Format.
 *
 * @example
 * ```ts
 * import type { ChromeTraceEvent } from "@gpucompute/runtime/trace";
 * const event: ChromeTraceEvent = { name: "k", ph: "X", ts: 0, dur: 5, pid: 2, tid: 1 };
 * ```
 */
export interface ChromeTraceEvent {
  /** Event name. */
  name: string;
  /** Phase: `X` complete, `B`/`E` begin/end, `i` instant, `C` counter, `s`/`f` flow, `M` metadata. */
  ph: "X" | "B" | "E" | "i" | "C" | "s" | "f" | "M";
  /** Timestamp in microseconds. */
  ts: number;
  /** Process id (1 host, 2 device). */
  pid: number;
  /** Thread id (track). */
  tid: number;
  /** Category. */
  cat?: string;
  /** Duration in microseconds (`X`). */
  dur?: number;
  /** Instant scope (`i`): `t` thread. */
  s?: "t";
  /** Flow id (`s`/`f`). */
  id?: number;
  /** Flow binding point (`f`): `e` enclosing slice. */
  bp?: "e";
  /** Arguments shown in the viewer. */
  args?: Record<string, unknown>;
}

/**
 * A trace file: `JSON.stringify` it and open it in Perfetto.
 *
 * @example
 * ```ts
 * import type { ChromeTrace } from "@gpucompute/runtime/trace";
 * const count = (file: ChromeTrace) => file.traceEvents.length;
 * ```
 */
export interface ChromeTrace {
  /** The events. */
  traceEvents: ChromeTraceEvent[];
  /** How the viewer shows times. */
  displayTimeUnit: "ms";
  /** Where the trace came from. */
  otherData: { backend: string; device: string; timing: "device" | "system" };
}

const HOST = 1;
const DEVICE = 2;
const QUEUE = 0;
const tid = (stream: StreamId) => stream + 1;

/**
 * The tid of each lane of each stream: lane 0 is the stream's own track (`N + 1`); the extra
 * lanes get the tids after every stream's, in stream order (a fixed stride put stream 0's extra
 * lane on stream 100,000's track).
 */
function laneTids(streams: readonly StreamId[], lanes: ReadonlyMap<StreamId, number>) {
  let next = streams.reduce((max, stream) => Math.max(max, tid(stream)), 0) + 1;
  const extra = new Map<StreamId, number[]>();
  for (const stream of streams) {
    const tids = [];
    for (let lane = 1; lane < (lanes.get(stream) ?? 0); lane++) tids.push(next++);
    extra.set(stream, tids);
  }
  return (stream: StreamId, lane = 0) => lane === 0 ? tid(stream) : extra.get(stream)![lane - 1];
}

/**
 * Converts a trace to a Trace Event Format object.
 *
 * @example
 * ```ts ignore
 * import { createClient } from "@gpucompute/runtime";
 * import { toChromeTrace } from "@gpucompute/runtime/trace";
 * using client = await createClient();
 * const recorder = client.trace();
 * await client.sync();
 * const file = toChromeTrace(await recorder.stop());
 * await Deno.writeTextFile("run.trace.json", JSON.stringify(file));
 * ```
 */
export function toChromeTrace(trace: Trace): ChromeTrace {
  checkTrace(trace, "toChromeTrace");
  const us = (ms: number) => Math.round((ms - trace.start) * 1e6) / 1e3;
  const events: ChromeTraceEvent[] = [];
  const streams = new Set<StreamId>();
  const kernels = trace.events.filter((e): e is TraceKernel => e.type === "kernel");
  const lanes = hostLanes(
    trace.events.filter((e): e is TraceSpan => e.type === "read" || e.type === "sync"),
  );
  let flows = 0;
  for (const event of trace.events) {
    if ("stream" in event) streams.add(event.stream);
    switch (event.type) {
      case "kernel":
        events.push({
          name: event.kernel,
          cat: "kernel",
          ph: "X",
          ts: us(event.start),
          dur: Math.max(0, Math.round((us(event.end) - us(event.start)) * 1e3) / 1e3),
          pid: DEVICE,
          tid: tid(event.stream),
          args: {
            workgroups: event.workgroups ?? "indirect",
            submission: event.submission,
            launchedAtUs: us(event.launched),
          },
        });
        break;
      case "copy":
        events.push({
          name: `${event.kind} ${formatBytes(event.bytes)}`,
          cat: "copy",
          ph: "i",
          s: "t",
          ts: us(event.launched),
          pid: HOST,
          tid: tid(event.stream),
          args: { bytes: event.bytes, submission: event.submission },
        });
        break;
      case "read":
      case "sync":
        break; // below, in the order of their lanes
      case "wait": {
        const name = `wait on stream ${event.on}`;
        events.push({
          name,
          cat: "wait",
          ph: "i",
          s: "t",
          ts: us(event.at),
          pid: HOST,
          tid: tid(event.stream),
        });
        const from = kernels.findLast((k) => k.stream === event.on && k.launched <= event.at);
        const to = kernels.find((k) => k.stream === event.stream && k.launched >= event.at);
        if (from === undefined || to === undefined) break;
        const id = flows++;
        // Flow ends bind to the slice that encloses their time: stay 1 ns inside each kernel.
        const inside = (k: TraceKernel, edge: number) =>
          Math.min(Math.max(Math.round(edge * 1e3) / 1e3, us(k.start)), us(k.end));
        events.push({
          name,
          cat: "wait",
          ph: "s",
          id,
          ts: inside(from, us(from.end) - 0.001),
          pid: DEVICE,
          tid: tid(from.stream),
        });
        events.push({
          name,
          cat: "wait",
          ph: "f",
          bp: "e",
          id,
          ts: inside(to, us(to.start) + 0.001),
          pid: DEVICE,
          tid: tid(to.stream),
        });
        break;
      }
      case "submit":
        events.push({
          name: `submit ${event.id}`,
          cat: "submit",
          ph: "i",
          s: "t",
          ts: us(event.at),
          pid: HOST,
          tid: QUEUE,
          args: { streams: event.streams, kernels: event.kernels, copies: event.copies },
        });
        break;
      case "memory":
        events.push({
          name: "memory",
          ph: "C",
          ts: us(event.at),
          pid: HOST,
          tid: QUEUE,
          args: { inUse: event.inUse, reserved: event.reserved },
        });
        break;
    }
  }
  // Each lane's spans in time order (whatever order they were recorded in): a span that ends
  // where the next one on its lane begins is closed before that one opens.
  const sorted = [...streams].sort((a, b) => a - b);
  const laneTid = laneTids(sorted, lanes.count);
  for (const event of lanes.sorted) {
    const name = event.type === "read" ? `read ${formatBytes(event.bytes ?? 0)}` : "sync";
    const at = { pid: HOST, tid: laneTid(event.stream, lanes.of.get(event)), cat: event.type };
    events.push({ ...at, name, ph: "B", ts: us(event.start) });
    if (event.mapStart !== undefined) {
      events.push({ ...at, name: "map wait", ph: "B", ts: us(event.mapStart) });
      events.push({ ...at, name: "map wait", ph: "E", ts: us(event.end) });
    }
    events.push({ ...at, name, ph: "E", ts: us(event.end) });
  }
  // Stable: events of one lane keep their B, B, E, E order at equal times.
  events.sort((a, b) => a.ts - b.ts);
  return {
    traceEvents: [...metadata(trace, sorted, lanes.count, laneTid), ...events],
    displayTimeUnit: "ms",
    otherData: { backend: trace.backend, device: trace.device, timing: trace.timing },
  };
}

/**
 * Spans of one track must nest, but host calls may overlap (two reads awaited together): each
 * span goes to the first lane of its stream that is free at its start (lane 0 is the stream's
 * track; more lanes are extra tracks next to it).
 */
function hostLanes(spans: readonly TraceSpan[]) {
  const of = new Map<TraceSpan, number>();
  const free = new Map<StreamId, number[]>(); // per stream, the end of each lane's last span
  const sorted = [...spans].sort((a, b) => a.start - b.start || a.end - b.end);
  for (const span of sorted) {
    const ends = free.get(span.stream) ?? free.set(span.stream, []).get(span.stream)!;
    let lane = ends.findIndex((end) => end <= span.start);
    if (lane < 0) lane = ends.push(0) - 1;
    ends[lane] = span.end;
    of.set(span, lane);
  }
  const count = new Map([...free].map(([stream, ends]) => [stream, ends.length]));
  return { of, count, sorted };
}

function metadata(
  trace: Trace,
  streams: readonly StreamId[],
  lanes: ReadonlyMap<StreamId, number>,
  laneTid: (stream: StreamId, lane: number) => number,
): ChromeTraceEvent[] {
  const meta = (name: string, pid: number, tid: number, args: Record<string, unknown>) => ({
    name,
    ph: "M" as const,
    ts: 0,
    pid,
    tid,
    args,
  });
  const events = [
    meta("process_name", HOST, QUEUE, { name: "host" }),
    meta("process_sort_index", HOST, QUEUE, { sort_index: 0 }),
    meta("process_name", DEVICE, QUEUE, { name: `device: ${trace.device} (${trace.timing} time)` }),
    meta("process_sort_index", DEVICE, QUEUE, { sort_index: 1 }),
    meta("thread_name", HOST, QUEUE, { name: "queue" }),
  ];
  for (const stream of streams) {
    for (const pid of [HOST, DEVICE]) {
      events.push(meta("thread_name", pid, tid(stream), { name: `stream ${stream}` }));
      events.push(meta("thread_sort_index", pid, tid(stream), { sort_index: 100 * tid(stream) }));
    }
    for (let lane = 1; lane < (lanes.get(stream) ?? 0); lane++) {
      const at = laneTid(stream, lane);
      events.push(meta("thread_name", HOST, at, { name: `stream ${stream} (overlap ${lane})` }));
      events.push(meta("thread_sort_index", HOST, at, { sort_index: 100 * tid(stream) + lane }));
    }
  }
  return events;
}
