/**
 * The WGSL of the radix sort (kernel text apart from the launch in `_radix.ts`): a stable LSD
 * sort of u32 keys (order keys, see `_order_keys.ts`), optionally carrying a u32 payload, in
 * passes of {@linkcode RADIX_BITS} bits.
 *
 * Each pass cuts the keys into runs of `params.run` consecutive keys (a multiple of 4, at most
 * {@linkcode RADIX_RUN}); invocation `t` works on run `t` alone and serially, with no barrier and
 * no workgroup memory (on the CPU adapter, llvmpipe, invocations are SIMD lanes and barriers are
 * dear; a run read front to back is a cache-friendly stream). The key and payload buffers are
 * read as `vec4<u32>`, so their length is padded to a multiple of 4 (`_radix.ts`); the elements
 * past `params.n` are never counted or moved. A first pass with an {@linkcode Encoding} reads the
 * caller's keys instead, one element at a time, and writes their order keys. No loop of an invocation runs more than
 * `RADIX_RUN / 4 + 2 * RADIX_DIGITS` times in all (llvmpipe's loop limit).
 *
 * - `count`: the count of each digit in run `t`, digit-major (`counts[d * runs + t]`), so that
 *   their exclusive scan is where run `t`'s first key of digit `d` goes.
 * - `scatter`: each invocation moves its run's keys in order, each to its digit's running
 *   destination: the pass is stable.
 *
 * The first pass's count of f32 keys also sets `bits[2]` when some key is -0 or a NaN other than
 * `0x7fc00000`: only then do the keys' own bits travel with them (an optional payload).
 *
 * Passes whose digit is the same in every key are copies: the first key pass's `count` also
 * folds every key into `bits = [OR of the keys, AND of the keys]` (atomics, once per
 * invocation); a key pass whose digit bits agree there (`OR ^ AND` is 0 on them) counts nothing
 * and its scatter copies each key to its own index (small ranges of keys, equal high bytes).
 *
 * The digit is `(key >> shift) & 255`, or for the row passes of a per-row sort (topk), the same
 * bits of the row `payload / cols` of the payload (an element's index).
 *
 * @module
 */

import type { ElementType } from "../elementwise.ts";
import type { GeneratedKernel } from "../_grid.ts";
import { fromOrderKeyFunction, orderKeyFunction } from "../_order_keys.ts";

/** Bits per pass. */
export const RADIX_BITS = 8;
/** Digits per pass. */
export const RADIX_DIGITS = 1 << RADIX_BITS;
/** Invocations per workgroup (few: each has a long run, and workgroups spread over the cores). */
export const RADIX_WORKGROUP = 16;
/** Most consecutive keys per invocation (a multiple of 4). */
export const RADIX_RUN = 8192;

/** Where a pass's digit comes from. */
export type DigitSource = "key" | "row";

/**
 * The role of a pass's `count`: the first key pass (folds `bits`), a later key pass (skips
 * when its digit is constant), or a row pass (no `bits`).
 */
export type CountRole = "first" | "later" | "row";

/** What the sort carries besides the key: nothing, the index, the key's bits, or values. */
export type Payload = "none" | "index" | "bits" | ElementType;

/**
 * The first pass's input when it encodes: keys `x` of `type` (their order keys, `^ params.flags`)
 * and the payload they make (`index`: `i`; `bits`: the key's bits; a type: values `v`' bits),
 * read one element at a time (the input is not padded).
 */
export interface Encoding {
  readonly type: ElementType;
  readonly payload: Payload;
}

/** The id suffix of an encoding (`""` for none); `count` reads no payload. */
export function encodingId(encoding: Encoding | undefined, payload = true): string {
  return encoding === undefined ? "" : `_${encoding.type}${payload ? `_${encoding.payload}` : ""}`;
}

const PARAMS = `struct Params { n: u32, shift: u32, runs: u32, run: u32, cols: u32, flags: u32 }`;
const LANES = ["x", "y", "z", "w"] as const;

function digitsFunction(source: DigitSource): string {
  const of = source === "key" ? "v" : "v / vec4u(params.cols)";
  return `fn digits(v: vec4u) -> vec4u { return ((${of}) >> vec4u(params.shift)) & vec4u(${
    RADIX_DIGITS - 1
  }u); }`;
}

/** Whether f32 key `i`'s bits are not those of its order key's value (the caller's keys `x`). */
const INEXACT = `fn inexact_at(i: u32) -> u32 {
  let b = bitcast<u32>(x[min(i, params.n - 1u)]);
  return select(0u, 1u, b == 0x80000000u || ((b & 0x7fffffffu) > 0x7f800000u && b != 0x7fc00000u));
}`;

const CONSTANT_DIGIT = `fn constant_digit() -> bool {
  return (((bits[0] ^ bits[1]) >> params.shift) & ${RADIX_DIGITS - 1}u) == 0u;
}`;

/** The input declarations (from binding 0) and `load_keys(j)`, `load_payload(j)`: vec4 `j`. */
function inputs(
  encoding: Encoding | undefined,
  keys: boolean,
  payload: boolean,
): { declarations: string[]; functions: string } {
  if (encoding === undefined) {
    const declarations = [
      keys ? "var<storage, read> keys_in: array<vec4u>;" : "",
      payload ? "var<storage, read> payload_in: array<vec4u>;" : "",
    ];
    const functions = [
      keys ? "fn load_keys(j: u32) -> vec4u { return keys_in[j]; }" : "",
      payload ? "fn load_payload(j: u32) -> vec4u { return payload_in[j]; }" : "",
    ];
    return { declarations, functions: functions.filter((f) => f !== "").join("\n") };
  }
  const { type, payload: kind } = encoding;
  const values = payload && kind !== "index" && kind !== "bits";
  // The element index clamped into the input: lanes past n read the last element, unused.
  const at = (name: string) => `${name}[min(i, params.n - 1u)]`;
  const payloadOf = kind === "index" ? "i" : `bitcast<u32>(${kind === "bits" ? at("x") : at("v")})`;
  const vector = (f: string) => `vec4u(${f}(i), ${f}(i + 1u), ${f}(i + 2u), ${f}(i + 3u))`;
  return {
    declarations: [
      `var<storage, read> x: array<${type}>;`,
      values ? `var<storage, read> v: array<${kind}>;` : "",
    ],
    functions: `${orderKeyFunction(type)}
fn key_at(i: u32) -> u32 { return order_key(${at("x")}) ^ params.flags; }
fn load_keys(j: u32) -> vec4u { let i = j * 4u; return ${vector("key_at")}; }${
      payload
        ? `
fn payload_at(i: u32) -> u32 { return ${payloadOf}; }
fn load_payload(j: u32) -> vec4u { let i = j * 4u; return ${vector("payload_at")}; }`
        : ""
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

/** `body(lane)` for each lane of the vec4 at `j` whose element is below `end`. */
function eachLane(body: (lane: string, q: number) => string): string {
  return LANES.map((lane, q) => `    if (j * 4u + ${q}u < end) { ${body(lane, q)} }`).join("\n");
}

/** The head shared by both passes: invocation `t`, its run `[first, end)`. */
const RUN = `  let t = gid.x;
  if (t >= params.runs) { return; }
  let first = t * params.run;
  let end = min(first + params.run, params.n);`;

/**
 * The count pass. Bindings: keys_in or payload_in (vec4, read; with an encoding of the first
 * pass: x and v), counts, then bits (the first key pass: atomics; later key passes: read),
 * params.
 */
export function countKernel(role: CountRole, encoding?: Encoding): GeneratedKernel {
  const row = role === "row";
  const input = inputs(encoding, !row, row);
  const fold = role === "first";
  // f32 keys whose bits their order key does not give back (-0, NaN other than 0x7fc00000).
  const inexact = fold && encoding?.type === "f32";
  const declarations = bindAll([
    ...input.declarations,
    "var<storage, read_write> counts: array<u32>;",
    fold ? "var<storage, read_write> bits: array<atomic<u32>>;" : "",
    role === "later" ? "var<storage, read> bits: array<u32>;" : "",
    PARAMS,
    "var<uniform> params: Params;",
  ]);
  return {
    id: `radix_count_${role}${encodingId(encoding, false)}`,
    source: `${declarations}
${input.functions}${inexact ? `\n${INEXACT}` : ""}
${digitsFunction(row ? "row" : "key")}${role === "later" ? `\n${CONSTANT_DIGIT}` : ""}
@compute @workgroup_size(${RADIX_WORKGROUP})
fn main(@builtin(global_invocation_id) gid: vec3u) {
${RUN}${role === "later" ? "\n  if (constant_digit()) { return; }" : ""}
  var seen: array<u32, ${RADIX_DIGITS}>;${
      fold ? "\n  var ones = 0u;\n  var zeros = 0xffffffffu;" : ""
    }${inexact ? "\n  var inexact = 0u;" : ""}
  for (var j = first / 4u; j * 4u < end; j = j + 1u) {
    let v = ${row ? "load_payload" : "load_keys"}(j);
    let d = digits(v);
${
      eachLane((l, q) =>
        `seen[d.${l}] = seen[d.${l}] + 1u;${
          fold ? ` ones = ones | v.${l}; zeros = zeros & v.${l};` : ""
        }${inexact ? ` inexact = inexact | inexact_at(j * 4u + ${q}u);` : ""}`
      )
    }
  }
  for (var g = 0u; g < ${RADIX_DIGITS}u; g = g + 1u) { counts[g * params.runs + t] = seen[g]; }${
      fold ? "\n  atomicOr(&bits[0], ones);\n  atomicAnd(&bits[1], zeros);" : ""
    }${inexact ? "\n  if (inexact != 0u) { atomicOr(&bits[2], 1u); }" : ""}
}`,
  };
}

/**
 * The scatter pass. Bindings: keys_in, payload_in (vec4, read, with a payload; with an encoding
 * of the first pass: x, and v with values), offsets (the scanned counts, read), keys_out,
 * payload_out (with a payload), bits (key passes, read), params. With `decode` (the last pass),
 * keys_out gets the bits of the keys' values of that type (`from_order_key(key ^ flags)`). An
 * `optional` payload (f32 keys' own bits) moves only where `bits[2]` is set (some key's bits are
 * not its order key's value: -0, NaN other than `0x7fc00000`); the last pass then writes it as
 * the key.
 */
export function scatterKernel(
  source: DigitSource,
  payload: boolean,
  encoding?: Encoding,
  decode?: ElementType,
  optional = false,
): GeneratedKernel {
  const input = inputs(encoding, true, payload);
  // The last pass may write the keys' values (their bits) instead of their order keys.
  const store = decode === undefined
    ? "fn store_key(k: u32) -> u32 { return k; }"
    : `${fromOrderKeyFunction(decode)}
fn store_key(k: u32) -> u32 { return bitcast<u32>(from_order_key(k ^ params.flags)); }`;
  const declarations = bindAll([
    ...input.declarations,
    "var<storage, read> offsets: array<u32>;",
    "var<storage, read_write> keys_out: array<u32>;",
    payload && !(optional && decode !== undefined)
      ? "var<storage, read_write> payload_out: array<u32>;"
      : "",
    source === "key" ? "var<storage, read> bits: array<u32>;" : "",
    PARAMS,
    "var<uniform> params: Params;",
  ]);
  const load = `    let v = load_keys(j);${
    !payload
      ? ""
      : optional
      ? "\n    var p = vec4u();\n    if (carry) { p = load_payload(j); }"
      : "\n    let p = load_payload(j);"
  }`;
  // With an optional payload the last pass writes the payload as the key where it is carried.
  const last = optional && decode !== undefined;
  const move = (l: string, to: string) =>
    `keys_out[${to}] = ${last ? `select(store_key(v.${l}), p.${l}, carry)` : `store_key(v.${l})`};${
      !payload || last
        ? ""
        : optional
        ? ` if (carry) { payload_out[${to}] = p.${l}; }`
        : ` payload_out[${to}] = p.${l};`
    }`;
  const copy = source === "key"
    ? `
  if (constant_digit()) {
    for (var j = first / 4u; j * 4u < end; j = j + 1u) {
${load}
${eachLane((l, q) => move(l, `j * 4u + ${q}u`))}
    }
    return;
  }`
    : "";
  return {
    id: `radix_scatter_${source}${payload ? optional ? "_optional" : "_payload" : ""}${
      encodingId(encoding)
    }${decode === undefined ? "" : `_to_${decode}`}`,
    source: `${declarations}
${input.functions}
${store}
${digitsFunction(source)}${source === "key" ? `\n${CONSTANT_DIGIT}` : ""}
@compute @workgroup_size(${RADIX_WORKGROUP})
fn main(@builtin(global_invocation_id) gid: vec3u) {
${RUN}${optional ? "\n  let carry = bits[2] != 0u;" : ""}${copy}
  // pos[d]: where the run's next key of digit d goes.
  var pos: array<u32, ${RADIX_DIGITS}>;
  for (var g = 0u; g < ${RADIX_DIGITS}u; g = g + 1u) { pos[g] = offsets[g * params.runs + t]; }
  for (var j = first / 4u; j * 4u < end; j = j + 1u) {
${load}
    let d = digits(${source === "key" ? "v" : "p"});
${eachLane((l) => `let to = pos[d.${l}]; pos[d.${l}] = to + 1u; ${move(l, "to")}`)}
  }
}`,
  };
}

/**
 * Most runs whose counts {@linkcode totalsKernel} and {@linkcode offsetsKernel} scan (one
 * invocation per digit, serially: `RADIX_DIGITS + runs` loop iterations); more take the general
 * scan.
 */
export const OFFSETS_MAX_RUNS = 3584;

/** The counts' sum per digit. Bindings: counts (read), totals (`RADIX_DIGITS`), params. */
export function totalsKernel(): GeneratedKernel {
  return {
    id: "radix_totals",
    source: `@group(0) @binding(0) var<storage, read> counts: array<u32>;
@group(0) @binding(1) var<storage, read_write> totals: array<u32>;
${PARAMS}
@group(0) @binding(2) var<uniform> params: Params;
@compute @workgroup_size(${RADIX_WORKGROUP})
fn main(@builtin(global_invocation_id) gid: vec3u) {
  let d = gid.x;
  if (d >= ${RADIX_DIGITS}u) { return; }
  var total = 0u;
  for (var t = 0u; t < params.runs; t = t + 1u) { total = total + counts[d * params.runs + t]; }
  totals[d] = total;
}`,
  };
}

/**
 * The exclusive scan of the counts, digit-major: the keys of smaller digits (from the totals)
 * plus the same digit's keys in earlier runs. Bindings: counts, totals (read), offsets, params.
 */
export function offsetsKernel(): GeneratedKernel {
  return {
    id: "radix_offsets",
    source: `@group(0) @binding(0) var<storage, read> counts: array<u32>;
@group(0) @binding(1) var<storage, read> totals: array<u32>;
@group(0) @binding(2) var<storage, read_write> offsets: array<u32>;
${PARAMS}
@group(0) @binding(3) var<uniform> params: Params;
@compute @workgroup_size(${RADIX_WORKGROUP})
fn main(@builtin(global_invocation_id) gid: vec3u) {
  let d = gid.x;
  if (d >= ${RADIX_DIGITS}u) { return; }
  var running = 0u;
  for (var g = 0u; g < d; g = g + 1u) { running = running + totals[g]; }
  for (var t = 0u; t < params.runs; t = t + 1u) {
    let i = d * params.runs + t;
    let c = counts[i];
    offsets[i] = running;
    running = running + c;
  }
}`,
  };
}
