/**
 * The WGSL of the GPU-shaped radix sort (kernel text apart from the launch in `_tiled.ts`; the
 * sort of real GPUs, see `../_variant.ts`): a stable LSD sort of u32 keys (order keys, see
 * `_order_keys.ts`), optionally carrying a u32 payload, in passes of {@linkcode TILED_BITS} bits,
 * over many workgroups with their counts in workgroup memory. (The CPU adapter's sort, serial
 * runs per invocation, is `../_radix_wgsl.ts`.)
 *
 * Each pass cuts the keys into blocks of {@linkcode TILED_BLOCK}; workgroup `b` works on block
 * `b`, each of its {@linkcode TILED_WORKGROUP} invocations on {@linkcode TILED_PER_THREAD} keys
 * (no loop runs longer than 8 steps: llvmpipe's loop limit).
 *
 * - `histogram`: the count of each digit in each block (workgroup atomics), digit-major
 *   (`counts[d * blocks + b]`), so that their exclusive scan is where block `b`'s keys of digit
 *   `d` go.
 * - `scatter`: the workgroup sorts its block by digit in workgroup memory (stable two-bit
 *   splits), then writes each key to the scanned count of its digit plus its place among the
 *   block's keys of that digit, so the pass is stable.
 *
 * The digit is `(key >> shift) & 255`, or for the row passes of a per-row sort (topk), the same
 * bits of the row `payload / cols` of the payload (an element's index).
 *
 * @module
 */

import type { GeneratedKernel } from "../../_grid.ts";
import type { ElementType } from "../../elementwise.ts";
import { fromOrderKeyFunction, orderKeyFunction } from "../../_order_keys.ts";
import { type DigitSource, type Encoding, encodingId } from "../_radix_wgsl.ts";

/** Bits per pass. */
export const TILED_BITS = 8;
/** Digits per pass. */
export const TILED_DIGITS = 1 << TILED_BITS;
/** Invocations per workgroup. */
export const TILED_WORKGROUP = 256;
/** Keys per invocation. */
export const TILED_PER_THREAD = 4;
/** Keys per block (per workgroup). */
export const TILED_BLOCK = TILED_WORKGROUP * TILED_PER_THREAD;

const PARAMS = `struct Params { n: u32, shift: u32, blocks: u32, cols: u32, flags: u32 }`;

/**
 * The input declarations and `key_at(i)`, `payload_at(i)` (element `i < params.n`): the order
 * keys and payload as they are, or with an encoding (the first pass) from the caller's keys `x`
 * (`order_key(x[i]) ^ params.flags`) and the index, the keys' bits or the values `v`' bits.
 */
function inputs(
  encoding: Encoding | undefined,
  keys: boolean,
  payload: boolean,
): { declarations: string[]; functions: string } {
  if (encoding === undefined) {
    return {
      declarations: [
        keys ? "var<storage, read> keys_in: array<u32>;" : "",
        payload ? "var<storage, read> payload_in: array<u32>;" : "",
      ],
      functions: [
        keys ? "fn key_at(i: u32) -> u32 { return keys_in[i]; }" : "",
        payload ? "fn payload_at(i: u32) -> u32 { return payload_in[i]; }" : "",
      ].filter((f) => f !== "").join("\n"),
    };
  }
  const { type, payload: kind } = encoding;
  const values = payload && kind !== "index" && kind !== "bits";
  const payloadOf = kind === "index" ? "i" : `bitcast<u32>(${kind === "bits" ? "x" : "v"}[i])`;
  return {
    declarations: [
      `var<storage, read> x: array<${type}>;`,
      values ? `var<storage, read> v: array<${kind}>;` : "",
    ],
    functions: `${orderKeyFunction(type)}
fn key_at(i: u32) -> u32 { return order_key(x[i]) ^ params.flags; }${
      payload ? `\nfn payload_at(i: u32) -> u32 { return ${payloadOf}; }` : ""
    }`,
  };
}

/** Declarations from binding 0, one per non-empty entry. */
function bindAll(declarations: readonly string[]): string {
  let b = 0;
  return declarations.filter((d) => d !== "").map((d) =>
    d.startsWith("var<uniform>") || d.startsWith("var<storage")
      ? `@group(0) @binding(${b++}) ${d}`
      : d
  ).join("\n");
}

/**
 * The histogram pass. Bindings: keys_in or payload_in (read; the first pass with an encoding:
 * x), counts, params.
 */
export function histogramKernel(source: DigitSource, encoding?: Encoding): GeneratedKernel {
  const w = TILED_WORKGROUP;
  const input = inputs(encoding, source === "key", source === "row");
  const of = source === "key" ? "key_at(i)" : "payload_at(i) / params.cols";
  return {
    id: `radix8_histogram_${source}${encodingId(encoding, false)}`,
    source: `${
      bindAll([
        ...input.declarations,
        "var<storage, read_write> counts: array<u32>;",
        PARAMS,
        "var<uniform> params: Params;",
      ])
    }
${input.functions}
fn digit(i: u32) -> u32 { return ((${of}) >> params.shift) & ${TILED_DIGITS - 1}u; }
var<workgroup> block_counts: array<atomic<u32>, ${TILED_DIGITS}>;
@compute @workgroup_size(${w})
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(local_invocation_index) lid: u32) {
  if (lid < ${TILED_DIGITS}u) { atomicStore(&block_counts[lid], 0u); }
  workgroupBarrier();
  let first = wid.x * ${TILED_BLOCK}u;
  for (var j = 0u; j < ${TILED_PER_THREAD}u; j = j + 1u) {
    let i = first + j * ${w}u + lid;
    if (i < params.n) { atomicAdd(&block_counts[digit(i)], 1u); }
  }
  workgroupBarrier();
  if (lid < ${TILED_DIGITS}u) { counts[lid * params.blocks + wid.x] = atomicLoad(&block_counts[lid]); }
}`,
  };
}

/**
 * The inclusive sum of `value` (a vec2u) over the workgroup's invocations into `name`, their
 * total into `total` (a Hillis-Steele scan in `scan_buf`; every invocation must run it: barriers).
 */
function blockScan(value: string, name: string, total: string): string {
  const w = TILED_WORKGROUP;
  return `  scan_buf[lid] = ${value};
  workgroupBarrier();
  for (var o = 1u; o < ${w}u; o = o << 1u) {
    var t = vec2u();
    if (lid >= o) { t = scan_buf[lid - o]; }
    workgroupBarrier();
    scan_buf[lid] = scan_buf[lid] + t;
    workgroupBarrier();
  }
  let ${name} = scan_buf[lid];
  let ${total} = scan_buf[${w - 1}u];
  workgroupBarrier();`;
}

/**
 * The scatter pass. Bindings: keys_in, payload_in (read, with a payload), counts (the block's
 * digit counts of the histogram), offsets (their exclusive scan), keys_out, payload_out (with a
 * payload), params.
 *
 * The workgroup sorts its block by digit in workgroup memory, stably, in `TILED_BITS / 2` splits
 * of two bits each (each a scan of the invocations' counts of the 4 values, packed in a vec2u;
 * the block's elements past `params.n` count as digit 255 and stay last), then writes each key to its digit's offset plus
 * its place among the block's keys of that digit, invocation `lid` moving elements `lid`,
 * `lid + 256`, ... (neighbouring invocations write neighbouring destinations).
 */
export function scatterKernel(
  source: DigitSource,
  payload: boolean,
  encoding?: Encoding,
  decode?: ElementType,
  optional = false,
): GeneratedKernel {
  const w = TILED_WORKGROUP;
  const e = TILED_PER_THREAD;
  const input = inputs(encoding, true, payload);
  // The last pass of an optional payload (f32 keys' own bits) writes it as the keys.
  const last = optional && decode !== undefined;
  const declarations = bindAll([
    ...input.declarations,
    "var<storage, read> counts: array<u32>;",
    "var<storage, read> offsets: array<u32>;",
    "var<storage, read_write> keys_out: array<u32>;",
    payload && !last ? "var<storage, read_write> payload_out: array<u32>;" : "",
    PARAMS,
    "var<uniform> params: Params;",
  ]);
  const store = last
    ? "carried"
    : decode === undefined
    ? "key"
    : "bitcast<u32>(from_order_key(key ^ params.flags))";
  const of = source === "key" ? "k" : "p / params.cols";
  const load = (from: string, at: string) =>
    from === "tile"
      ? `k[j] = tile_keys[${at}];${payload ? ` p[j] = tile_payload[${at}];` : ""}`
      : `k[j] = key_at(${at});${payload ? ` p[j] = payload_at(${at});` : ""}`;
  return {
    id: `radix8_scatter_${source}${payload ? last ? "_optional" : "_payload" : ""}${
      encodingId(encoding)
    }${decode === undefined ? "" : `_to_${decode}`}`,
    source: `${declarations}
${input.functions}${decode === undefined ? "" : `\n${fromOrderKeyFunction(decode)}`}
fn digit_of(k: u32, p: u32) -> u32 { return ((${of}) >> params.shift) & ${TILED_DIGITS - 1}u; }
var<workgroup> tile_keys: array<u32, ${TILED_BLOCK}>;${
      payload ? `\nvar<workgroup> tile_payload: array<u32, ${TILED_BLOCK}>;` : ""
    }
var<workgroup> scan_buf: array<vec2u, ${w}>;
var<workgroup> starts: array<u32, ${TILED_DIGITS}>;
@compute @workgroup_size(${w})
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(local_invocation_index) lid: u32) {
  let first = wid.x * ${TILED_BLOCK}u;
  let valid = min(${TILED_BLOCK}u, params.n - first);
  // Invocation lid holds the block's elements lid * ${e} .. lid * ${e} + ${
      e - 1
    } (in the order so far).
  var k: array<u32, ${e}>;
  var p: array<u32, ${e}>;
  var d: array<u32, ${e}>;
  for (var j = 0u; j < ${e}u; j = j + 1u) {
    let at = lid * ${e}u + j;
    d[j] = ${TILED_DIGITS - 1}u;
    if (at < valid) { ${load("input", "first + at")} d[j] = digit_of(k[j], p[j]); }
  }
  // Splits by 2 bits of the digit: counts of the values 0-3, 16 bits each, packed [0 | 1 << 16,
  // 2 | 3 << 16] (at most 1,024: no carry between the halves).
  for (var bit = 0u; bit < ${TILED_BITS}u; bit = bit + 2u) {
    var mine = vec2u();
    for (var j = 0u; j < ${e}u; j = j + 1u) {
      let v = (d[j] >> bit) & 3u;
      let one = 1u << ((v & 1u) * 16u);
      if (v < 2u) { mine.x = mine.x + one; } else { mine.y = mine.y + one; }
    }
${blockScan("mine", "inclusive", "total")}
    // Where this invocation's next key of each value goes: the block's keys of smaller values,
    // plus the same value's keys of the invocations before.
    let t0 = total.x & 0xffffu;
    let t01 = t0 + (total.x >> 16u);
    var run = inclusive - mine + vec2u(t0 << 16u, t01 + ((t01 + (total.y & 0xffffu)) << 16u));
    for (var j = 0u; j < ${e}u; j = j + 1u) {
      let v = (d[j] >> bit) & 3u;
      let half = (v & 1u) * 16u;
      var to = 0u;
      if (v < 2u) {
        to = (run.x >> half) & 0xffffu;
        run.x = run.x + (1u << half);
      } else {
        to = (run.y >> half) & 0xffffu;
        run.y = run.y + (1u << half);
      }
      tile_keys[to] = k[j];${payload ? "\n      tile_payload[to] = p[j];" : ""}
    }
    workgroupBarrier();
    for (var j = 0u; j < ${e}u; j = j + 1u) {
      let at = lid * ${e}u + j;
      ${load("tile", "at")}
      d[j] = select(${TILED_DIGITS - 1}u, digit_of(k[j], p[j]), at < valid);
    }
    workgroupBarrier();
  }
  // starts[g]: the block's keys of digits below g.
  let count = counts[lid * params.blocks + wid.x];
${blockScan("vec2u(count, 0u)", "below", "block_total")}
  starts[lid] = below.x - count;
  workgroupBarrier();
  for (var j = 0u; j < ${e}u; j = j + 1u) {
    let at = j * ${w}u + lid;
    if (at < valid) {
      let key = tile_keys[at];
      let carried = ${payload ? "tile_payload[at]" : "0u"};
      let g = digit_of(key, carried);
      let to = offsets[g * params.blocks + wid.x] + at - starts[g];
      keys_out[to] = ${store};${payload && !last ? "\n      payload_out[to] = carried;" : ""}
    }
  }
}`,
  };
}
