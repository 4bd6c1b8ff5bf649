/**
 * Renders a {@linkcode Trace} as a self-contained SVG timeline (no scripts, fonts or links):
 * one row per stream with its kernels as bars (colour by kernel, hover for the details), a thin
 * host lane under each row with reads (the map wait darker) and syncs, arrows for cross-stream
 * waits, submissions as ticks on a `queue` row, the memory in use as a step line, a time axis and
 * a legend of kernels.
 *
 * @module
 */

import { formatBytes } from "../core/format_bytes.ts";
import type { StreamId } from "../core/stream_id.ts";
import type { Trace, TraceKernel } from "../core/trace.ts";
import { checkOptionsObject, checkTrace } from "./_check_trace.ts";

/**
 * Options of {@linkcode renderTraceSvg}.
 *
 * @example
 * ```ts
 * import type { TraceSvgOptions } from "@gpucompute/runtime/trace";
 * const options: TraceSvgOptions = { width: 1200, title: "demo" };
 * ```
 */
export interface TraceSvgOptions {
  /**
   * Width of the image in pixels.
   * @default {960}
   */
  width?: number;
  /**
   * Title line.
   * @default {"<device> (<backend>, <timing> time)"}
   */
  title?: string;
}

const PALETTE = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#b07aa1", "#edc948"];
const LEFT = 90;
const ROW = 26;
const LANE = 8;
const GAP = 10;

/**
 * Renders the trace as an SVG document (a string).
 *
 * @example
 * ```ts ignore
 * import { createClient } from "@gpucompute/runtime";
 * import { renderTraceSvg } from "@gpucompute/runtime/trace";
 * using client = await createClient();
 * const recorder = client.trace();
 * await client.sync();
 * await Deno.writeTextFile("run.svg", renderTraceSvg(await recorder.stop()));
 * ```
 */
export function renderTraceSvg(trace: Trace, options: TraceSvgOptions = {}): string {
  checkTrace(trace, "renderTraceSvg");
  checkOptionsObject(options, "renderTraceSvg");
  const width = options.width ?? 960;
  if (typeof width !== "number") throw new TypeError(`width must be a number, got ${typeof width}`);
  if (!Number.isFinite(width) || width < 200) throw new RangeError("width must be >= 200");
  if (options.title !== undefined && typeof options.title !== "string") {
    throw new TypeError(`title must be a string, got ${typeof options.title}`);
  }
  const kernels = trace.events.filter((e): e is TraceKernel => e.type === "kernel");
  const streams = [...new Set(trace.events.flatMap((e) => "stream" in e ? [e.stream] : []))]
    .sort((a, b) => a - b);
  let [t0, t1] = [trace.start, trace.end];
  for (const e of trace.events) {
    const [a, b] = e.type === "kernel"
      ? [Math.min(e.launched, e.start), e.end]
      : e.type === "copy"
      ? [e.launched, e.launched]
      : "at" in e
      ? [e.at, e.at]
      : [e.start, e.end];
    [t0, t1] = [Math.min(t0, a), Math.max(t1, b)];
  }
  const span = Math.max(1e-3, t1 - t0);
  const plot = width - LEFT - 20;
  const x = (t: number) => LEFT + ((t - t0) / span) * plot;
  const top = 44;
  const rowY = new Map<StreamId, number>(
    streams.map((s, i) => [s, top + ROW + GAP + i * (ROW + LANE + GAP)]),
  );
  const memoryY = top + ROW + GAP + streams.length * (ROW + LANE + GAP);
  const names = [...new Set(kernels.map((k) => k.kernel))];
  const colour = (name: string) => PALETTE[names.indexOf(name) % PALETTE.length];
  const legendY = memoryY + 40 + 24;
  const height = legendY + Math.ceil(names.length / 3) * 18 + 10;
  const out: string[] = [];
  const title = options.title ?? `${trace.device} (${trace.backend}, ${trace.timing} time)`;
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" ` +
      `viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="11">`,
    `<defs><marker id="arrow" viewBox="0 0 8 8" refX="8" refY="4" markerWidth="7" ` +
      `markerHeight="7" orient="auto"><path d="M0,0 L8,4 L0,8 z" fill="#333"/></marker></defs>`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    `<text x="10" y="18" font-size="13" font-weight="bold">${esc(title)}</text>`,
    `<text x="10" y="34" fill="#555">${kernels.length} kernels over ${fmt(span)} ms; ` +
      `arrows: cross-stream waits; thin lanes: host reads (map wait dark) and syncs</text>`,
  );
  axis(out, t0, span, x, top, memoryY + 40);
  label(out, "queue", top + ROW / 2);
  for (const e of trace.events) {
    if (e.type !== "submit") continue;
    out.push(
      `<line x1="${n(x(e.at))}" y1="${top + 4}" x2="${n(x(e.at))}" y2="${top + ROW - 4}" ` +
        `stroke="#999"><title>submit ${e.id}: ${e.kernels} kernels, ${e.copies} copies, ` +
        `streams ${e.streams.join(", ")}</title></line>`,
    );
  }
  for (const s of streams) {
    const y = rowY.get(s)!;
    label(out, `stream ${s}`, y + ROW / 2);
    out.push(`<rect x="${LEFT}" y="${y}" width="${plot}" height="${ROW}" fill="#f4f4f4"/>`);
  }
  for (const k of kernels) {
    const y = rowY.get(k.stream)!;
    const [a, b] = [x(k.start), Math.max(x(k.end), x(k.start) + 1)];
    const groups = k.workgroups?.join("x") ?? "indirect";
    out.push(
      `<rect x="${n(a)}" y="${y + 2}" width="${n(b - a)}" height="${ROW - 4}" ` +
        `fill="${colour(k.kernel)}"><title>${esc(k.kernel)} (stream ${k.stream}): ` +
        `${
          fmt(k.end - k.start)
        } ms, ${groups} workgroups, submission ${k.submission}</title></rect>`,
    );
  }
  for (const e of trace.events) {
    if (e.type === "read" || e.type === "sync") {
      const y = rowY.get(e.stream)! + ROW + 1;
      const what = e.type === "read" ? `read ${formatBytes(e.bytes ?? 0)}` : "sync";
      const bar = (from: number, fill: string) =>
        `<rect x="${n(x(from))}" y="${y}" width="${n(Math.max(1, x(e.end) - x(from)))}" ` +
        `height="${LANE - 2}" fill="${fill}"><title>${what}: ${fmt(e.end - e.start)} ms` +
        `</title></rect>`;
      out.push(bar(e.start, "#c9c9c9"));
      if (e.mapStart !== undefined) out.push(bar(e.mapStart, "#7f7f7f"));
    } else if (e.type === "wait") {
      const from = kernels.findLast((k) => k.stream === e.on && k.launched <= e.at);
      const to = kernels.find((k) => k.stream === e.stream && k.launched >= e.at);
      const [x1, x2] = [x(from?.end ?? e.at), x(to?.start ?? e.at)];
      const [y1, y2] = [rowY.get(e.on), rowY.get(e.stream)];
      if (y1 === undefined || y2 === undefined) continue;
      out.push(
        `<line x1="${n(x1)}" y1="${y1 + ROW / 2}" x2="${n(x2)}" y2="${y2 + ROW / 2}" ` +
          `stroke="#333" stroke-width="1.2" marker-end="url(#arrow)"><title>stream ${e.stream} ` +
          `waits on stream ${e.on}</title></line>`,
      );
    }
  }
  memory(out, trace, x, memoryY, plot);
  names.forEach((name, i) => {
    const [lx, ly] = [LEFT + (i % 3) * (plot / 3), legendY + Math.floor(i / 3) * 18];
    out.push(
      `<rect x="${n(lx)}" y="${ly - 9}" width="10" height="10" fill="${colour(name)}"/>`,
      `<text x="${n(lx + 14)}" y="${ly}">${esc(name)}</text>`,
    );
  });
  out.push("</svg>");
  return out.join("\n") + "\n";
}

function axis(
  out: string[],
  t0: number,
  span: number,
  x: (t: number) => number,
  top: number,
  bottom: number,
): void {
  const raw = span / 8;
  const step = [1, 2, 5, 10].map((m) => m * 10 ** Math.floor(Math.log10(raw))).find((s) =>
    s >= raw
  )!;
  const digits = Math.max(0, -Math.floor(Math.log10(step)));
  for (let i = 0; i * step <= span + 1e-9; i++) {
    const at = n(x(t0 + i * step));
    out.push(
      `<line x1="${at}" y1="${top - 2}" x2="${at}" y2="${bottom}" stroke="#e3e3e3"/>`,
      `<text x="${at}" y="${bottom + 12}" text-anchor="middle" fill="#555">` +
        `${(i * step).toFixed(digits)} ms</text>`,
    );
  }
}

function memory(
  out: string[],
  trace: Trace,
  x: (t: number) => number,
  y: number,
  plot: number,
): void {
  const samples = trace.events.filter((e) => e.type === "memory");
  label(out, "memory", y + 14);
  out.push(`<rect x="${LEFT}" y="${y}" width="${plot}" height="28" fill="#f4f4f4"/>`);
  if (samples.length === 0) return;
  const max = samples.reduce((m, s) => Math.max(m, s.inUse), 1);
  const level = (bytes: number) => n(y + 26 - (bytes / max) * 24);
  const points = samples.map((s, i) => {
    const next = samples[i + 1]?.at ?? trace.end;
    return `${n(x(s.at))},${level(s.inUse)} ${n(x(next))},${level(s.inUse)}`;
  });
  out.push(
    `<polyline points="${points.join(" ")}" fill="none" stroke="#b07aa1" stroke-width="1.5">` +
      `<title>memory in use, peak ${formatBytes(max)}</title></polyline>`,
  );
}

function label(out: string[], text: string, y: number): void {
  out.push(`<text x="${LEFT - 8}" y="${y + 4}" text-anchor="end">${esc(text)}</text>`);
}

function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function n(value: number): string {
  return value.toFixed(1);
}

function fmt(ms: number): string {
  return ms === 0 ? "0" : ms >= 100 ? ms.toFixed(0) : ms >= 1 ? ms.toFixed(1) : ms.toFixed(3);
}
