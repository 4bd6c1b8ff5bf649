/**
 * The folded variant of a kernel (see `launch/_workgroup_counts.ts`): the same WGSL with its entry point's
 * header rewritten so that, dispatched as a folded grid `[x, y, z]`, it behaves exactly as the
 * `[G, 1, 1]` launch it stands for:
 *
 * ```wgsl
 * // before
 * @compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3u) { BODY }
 * // after (one line: compiler messages keep pointing at the user's lines)
 * @compute @workgroup_size(64) fn main(@builtin(workgroup_id) P_wid: vec3u,
 *   @builtin(num_workgroups) P_nwg: vec3u, @builtin(local_invocation_id) P_lid: vec3u) {
 *   let P_g = P_wid.x + P_nwg.x * (P_wid.y + P_nwg.y * P_wid.z);
 *   if (P_g >= P_fold.x) { return; }           // the grid's extra workgroups
 *   let id = vec3u(P_g * 64u + P_lid.x, P_lid.y, P_lid.z); BODY }
 * @group(0) @binding(N) var<uniform> P_fold: vec4u; // x = G, appended after the last line
 * ```
 *
 * `workgroup_id` becomes `(P_g, 0, 0)` and `num_workgroups` `(G, 1, 1)` the same way. The early
 * return depends only on uniform values (`workgroup_id`, `num_workgroups`, a uniform buffer), so
 * barriers after it stay in uniform control flow. `P` is a prefix the source does not use.
 *
 * @module
 */

import { KernelArgumentError } from "../../../core/errors.ts";
import { maskComments } from "./_wgsl_source.ts";

/** The builtins whose values differ between a folded grid and the launch it stands for. */
export const FOLDED_BUILTINS: ReadonlySet<string> = new Set([
  "global_invocation_id",
  "workgroup_id",
  "num_workgroups",
]);

/** One parameter of the entry point, as reflected. */
export interface EntryParameter {
  readonly name: string;
  /** Its `@builtin(...)`, if any. */
  readonly builtin: string | undefined;
  /** Whether its type is a struct (of builtins). */
  readonly struct: boolean;
}

/** What the rewrite needs to know about the kernel. */
export interface FoldInput {
  readonly name: string;
  readonly source: string;
  readonly entryPoint: string;
  readonly workgroupSize: readonly [number, number, number];
  readonly parameters: readonly EntryParameter[];
  /** Fold-sensitive builtins declared inside struct parameters. */
  readonly structBuiltins: readonly string[];
  /** The binding number for the uniform holding `G` (one group 0 does not declare). */
  readonly binding: number;
}

/** The folded variant's source and the name of its uniform. */
export interface FoldedSource {
  readonly source: string;
  readonly uniform: string;
}

/**
 * Rewrites a kernel into its folded variant. `KernelArgumentError` when the rewrite cannot keep
 * the kernel right: a fold-sensitive builtin inside a struct parameter.
 */
export function foldKernel(input: FoldInput): FoldedSource {
  const { name, source, entryPoint } = input;
  if (input.structBuiltins.length > 0) {
    throw new KernelArgumentError(
      name,
      "threads",
      `needs more workgroups than one dimension allows, and '${entryPoint}' reads ` +
        `${input.structBuiltins.join(", ")} through a struct parameter, which the runtime ` +
        `cannot keep right once the launch is folded: declare those builtins as parameters of ` +
        `'${entryPoint}' itself`,
    );
  }
  const masked = maskComments(source);
  const header = new RegExp(`\\bfn\\s+${entryPoint}\\s*\\(`).exec(masked);
  if (header === null) throw internal(name, `no 'fn ${entryPoint}(' in the source`);
  const open = header.index + header[0].length - 1;
  const close = matching(masked, open);
  const body = masked.indexOf("{", close);
  if (close < 0 || body < 0) throw internal(name, `cannot find the body of '${entryPoint}'`);
  const p = prefix(source);
  const kept: string[] = [];
  const lets: string[] = [];
  let lid = `${p}lid`;
  let ownLid = false;
  const segments = splitTopLevel(masked.slice(open + 1, close));
  const originals = splitTopLevel(source.slice(open + 1, close), segments);
  for (let i = 0; i < segments.length; i++) {
    const builtin = /@\s*builtin\s*\(\s*(\w+)\s*\)/.exec(segments[i])?.[1];
    const param = /([\p{XID_Start}_]\p{XID_Continue}*)\s*:/u
      .exec(segments[i].replace(/@\s*\w+\s*\([^)]*\)/g, ""))?.[1];
    if (builtin === "local_invocation_id" && param !== undefined) {
      lid = param;
      ownLid = true;
    }
    if (builtin !== undefined && FOLDED_BUILTINS.has(builtin) && param !== undefined) {
      lets.push(letFor(builtin, param, p, lid, input.workgroupSize[0]));
    } else if (segments[i].trim() !== "") kept.push(originals[i].trim());
  }
  // `lid` may be named by a later parameter: rebuild the lets now that it is known.
  const finalLets = lets.map((text) => text.replaceAll(`${p}lid`, lid));
  const added = [
    `@builtin(workgroup_id) ${p}wid: vec3u`,
    `@builtin(num_workgroups) ${p}nwg: vec3u`,
    ...(ownLid ? [] : [`@builtin(local_invocation_id) ${p}lid: vec3u`]),
  ];
  // Keep the line count of the replaced text, so later lines keep their numbers.
  const newlines = "\n".repeat(countNewlines(source.slice(open + 1, close)));
  const parameters = [...kept, ...added].join(", ") + newlines;
  const preamble = `let ${p}g = ${p}wid.x + ${p}nwg.x * (${p}wid.y + ${p}nwg.y * ${p}wid.z); ` +
    `if (${p}g >= ${p}fold.x) { return; } ${finalLets.join(" ")}`;
  const uniform = `${p}fold`;
  const rewritten = source.slice(0, open + 1) + parameters + source.slice(close, body + 1) +
    " " + preamble + source.slice(body + 1) +
    `\n@group(0) @binding(${input.binding}) var<uniform> ${uniform}: vec4u;\n`;
  return { source: rewritten, uniform };
}

function letFor(builtin: string, name: string, p: string, lid: string, width: number): string {
  switch (builtin) {
    case "global_invocation_id":
      return `let ${name} = vec3u(${p}g * ${width}u + ${lid}.x, ${lid}.y, ${lid}.z);`;
    case "workgroup_id":
      return `let ${name} = vec3u(${p}g, 0u, 0u);`;
    default:
      return `let ${name} = vec3u(${p}fold.x, 1u, 1u);`;
  }
}

/** An identifier prefix the source never uses (WGSL reserves a leading `__`). */
function prefix(source: string): string {
  let k = 0;
  while (source.includes(`gpucompute${k}_`)) k++;
  return `gpucompute${k}_`;
}

/** The index of the `)` matching the `(` at `open`, or -1. */
function matching(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === "(") depth++;
    else if (text[i] === ")" && --depth === 0) return i;
  }
  return -1;
}

/**
 * Splits a parameter list at its top-level commas. With `like`, splits `text` at the same
 * offsets as `like` was split (the masked and the original text have equal offsets).
 */
function splitTopLevel(text: string, like?: readonly string[]): string[] {
  if (like !== undefined) {
    const parts: string[] = [];
    let at = 0;
    for (const part of like) {
      parts.push(text.slice(at, at + part.length));
      at += part.length + 1;
    }
    return parts;
  }
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "(" || c === "<") depth++;
    else if (c === ")" || c === ">") depth--;
    else if (c === "," && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

function countNewlines(text: string): number {
  let n = 0;
  for (const c of text) if (c === "\n") n++;
  return n;
}

function internal(name: string, what: string): KernelArgumentError {
  return new KernelArgumentError(
    name,
    "threads",
    `needs a folded launch, but its entry point could not be rewritten (${what})`,
  );
}
