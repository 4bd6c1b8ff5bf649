/**
 * Profiling and timeline traces: the option and result types of `client.profile()` and
 * `client.trace()`, the event vocabulary recorded, and two writers: the Chrome
 * Trace Event Format JSON that Perfetto and `chrome://tracing` open, and a self-contained SVG
 * timeline for places where no trace viewer can be reached.
 *
 * @example Record, then write both forms
 * ```ts ignore
 * import { createClient } from "@gpucompute/runtime";
 * import { renderTraceSvg, toChromeTrace } from "@gpucompute/runtime/trace";
 * using client = await createClient();
 * const recorder = client.trace();
 * // ... launch work on any streams ...
 * const trace = await recorder.stop();
 * await Deno.writeTextFile("run.trace.json", JSON.stringify(toChromeTrace(trace)));
 * await Deno.writeTextFile("run.svg", renderTraceSvg(trace));
 * ```
 *
 * @module
 */

export type {
  KernelTiming,
  ProfileOptions,
  Trace,
  TraceCopy,
  TraceEvent,
  TraceKernel,
  TraceMemory,
  TraceRecorder,
  TraceSpan,
  TraceSubmit,
  TraceWait,
} from "../core/trace.ts";
export { type ChromeTrace, type ChromeTraceEvent, toChromeTrace } from "./chrome_trace.ts";
export { renderTraceSvg, type TraceSvgOptions } from "./svg_timeline.ts";
