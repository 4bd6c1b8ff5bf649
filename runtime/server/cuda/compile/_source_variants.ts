/**
 * A kernel defined more than once under `#if`/`#else` (or `#ifdef`) with other parameters, or
 * whose parameter list has preprocessor lines (`float* a,\n#if X\nint m,\n#endif\nint n`): which
 * definition NVRTC compiles depends on macros the runtime may not know (`__CUDA_ARCH__`, NVRTC's
 * own, a header's), and guessing them could pack `params` in the wrong order, silently. So the
 * source's variants are listed, the conditions the runtime can decide with certainty being
 * decided (`_conditionals.ts`: `-D`/`-U` options, the source's own `#define`s, `#if 0`/`#if 1`,
 * `__CUDA_ARCH__` from the PTX's `.target`), and the one whose parameters match the compiled PTX
 * `.entry`'s exactly (their count, and each one's size and kind: a pointer or 64-bit integer, a
 * float, an integer, bytes) is the kernel's signature, its names being the source's. When none
 * or several match, `params` cannot be given by name ({@linkcode ResolvedKernel}'s `unread`
 * names the ambiguity); the PTX's own signature takes them by position, checked against it.
 *
 * @module
 */

import type { CudaKernel } from "../kernel.ts";
import { kernelName } from "../kernel.ts";
import { withoutLiterals } from "./_c_source.ts";
import { conditionals } from "./_conditionals.ts";
import { ptxEntryName } from "./_cxx_entry.ts";
import { PTX_POINTER_ATTRIBUTE } from "./_ptx_signature.ts";
import { optionDefines, type ResolvedKernel } from "./_resolve_kernel.ts";
import {
  cudaSignatures,
  cxxSignatures,
  type KernelParam,
  type KernelSignature,
  ptxSignatures,
} from "./signature.ts";

/** The most variants listed (the product of the relevant groups' branches). */
const MAX_VARIANTS = 64;

/** A conditional line opening a group: `#if`, `#ifdef`, `#ifndef`. */
const CONDITIONAL = /^[ \t]*#[ \t]*(?:if|ifdef|ifndef|elif)\b/m;

/**
 * The kernel's resolved entry and signature, its `#if` variants chosen by the PTX (`ptx` compiles
 * the source when needed) where the source has several for the entry; `resolved` unchanged
 * otherwise.
 */
export function sourceVariant(
  kernel: CudaKernel,
  resolved: ResolvedKernel,
  ptx: () => string,
): ResolvedKernel {
  const source = kernel.source;
  const entry = resolved.entryPoint;
  if (
    typeof source !== "string" || resolved.signature?.template === true ||
    resolved.signature?.language === "ptx" || !CONDITIONAL.test(source)
  ) {
    return resolved;
  }
  // no group holds the entry, or one variant, the one read without the conditions: nothing to
  // choose
  const listed = variants(source, kernel.compileOptions ?? [], entry, undefined);
  const one = listed?.length === 1 ? listed[0] : undefined;
  if (
    listed?.length === 0 ||
    (one !== undefined && resolved.signature !== undefined && key(one) === key(resolved.signature))
  ) {
    return resolved;
  }
  const name = kernelName(kernel);
  const refuse = (why: string): ResolvedKernel => ({
    entryPoint: entry,
    signature: undefined,
    unread: why,
  });
  let text: string;
  try {
    text = ptx();
  } catch {
    return refuse(`'${entry}' has #if variants, and its CUDA C did not compile to tell which`);
  }
  const options = kernel.compileOptions ?? [];
  const target = /^\s*\.target\s+(\w+)/m.exec(text)?.[1];
  const found = variants(source, options, entry, target);
  const cxx = found?.some((s) => s.cxx) ?? false;
  let entryName: string;
  try {
    entryName = ptxEntryName(text, entry, cxx, name);
  } catch (error) {
    return refuse((error as Error).message);
  }
  const compiled = ptxSignatures(text).find((s) => s.name === entryName);
  const fallback = (why: string): ResolvedKernel => ({
    entryPoint: entry,
    signature: compiled,
    unread: `${why}: give params by position (an array, as for PTX: ${
      compiled?.params.map((p) => p.declared.replace(/^\.param\s+/, "")).join(", ") ?? "none"
    }), or define the kernel once`,
  });
  if (found === undefined) {
    return fallback(`'${entry}' has more than ${MAX_VARIANTS} #if variants`);
  }
  if (compiled === undefined) return refuse(`the PTX has no .entry '${entryName}'`);
  const verdicts = found.map((s) => matches(s.params, compiled.params));
  const yes = found.filter((_, i) => verdicts[i] === true);
  const unsure = found.filter((_, i) => verdicts[i] === undefined);
  if (yes.length === 1 && unsure.length === 0) return { entryPoint: entry, signature: yes[0] };
  const lists = [...yes, ...unsure].map((s) => `(${s.params.map((p) => p.declared).join(", ")})`);
  return fallback(
    yes.length + unsure.length === 0
      ? `none of the ${found.length} definitions of '${entry}' under #if/#else has the ` +
        `parameters NVRTC compiled`
      : `'${entry}' is defined under #if/#else with parameters NVRTC compiles alike ` +
        `(${lists.join(" or ")}), so which one it compiled is not known`,
  );
}

/** The `[start, end]` offsets of each parameter list of `name(...)` followed by `{`. */
function listRanges(text: string, name: string): [number, number][] {
  const ranges: [number, number][] = [];
  for (const m of text.matchAll(new RegExp(`\\b${name}\\s*\\(`, "g"))) {
    let depth = 1, i = m.index! + m[0].length;
    for (; i < text.length && depth > 0; i++) {
      if (text[i] === "(") depth++;
      else if (text[i] === ")") depth--;
    }
    if (/^\s*(?:__\w+\s*(?:\([^()]*\))?\s*)*\{/.test(text.slice(i, i + 200))) {
      ranges.push([m.index!, i]);
    }
  }
  return ranges;
}

/**
 * The distinct signatures of `entry` over the branches of the conditional groups that hold it or
 * lie in its parameter list (those the runtime cannot decide); `undefined` past
 * {@linkcode MAX_VARIANTS}.
 */
function variants(
  source: string,
  options: readonly string[],
  entry: string,
  target: string | undefined,
): KernelSignature[] | undefined {
  const name = entry.split("::").pop()!;
  const { lines, directive, path, groups } = conditionals(withoutLiterals(source), options, target);
  const present = (i: number, choice: Map<number, number>) =>
    path[i].every(([g, b]) =>
      groups[g].possible.includes(b) && (!choice.has(g) || choice.get(g) === b)
    );
  // the lines that may be compiled, conditional lines blank: where parameter lists lie
  const all = lines.map((l, i) => directive[i] || !present(i, new Map()) ? "" : l);
  const starts = [0];
  for (const l of all) starts.push(starts[starts.length - 1] + l.length + 1);
  const lineOf = (offset: number) => starts.findLastIndex((s) => s <= offset);
  const lists = listRanges(all.join("\n"), name).map(([s, e]) => [lineOf(s), lineOf(e)]);
  const word = new RegExp(`\\b${name}\\b`);
  // the groups that hold the entry or lie in its parameter list; none: the source read as it is
  const holding = groups.map((g, i) => ({ g, i })).filter(({ g }) =>
    lists.some(([s, e]) => g.line > s && g.line < e) ||
    lines.slice(g.line, g.end + 1).some((l) => word.test(l))
  );
  if (holding.length === 0) return [];
  const relevant = holding.filter(({ g }) => g.possible.length > 1);
  let count = 1;
  for (const { g } of relevant) count *= g.possible.length;
  if (count > MAX_VARIANTS) return undefined;
  const found = new Map<string, KernelSignature>();
  const defines = optionDefines(options);
  for (let n = 0; n < count; n++) {
    const choice = new Map<number, number>();
    let rest = n;
    for (const { g, i } of relevant) {
      choice.set(i, g.possible[rest % g.possible.length]);
      rest = Math.floor(rest / g.possible.length);
    }
    const text = lines.map((l, i) => directive[i] || !present(i, choice) ? "" : l).join("\n") +
      defines;
    const named = (s: KernelSignature) =>
      s.name === name && (!entry.includes("::") || s.qualified === entry);
    const read = cudaSignatures(text).filter(named);
    for (const s of read.length > 0 ? read : cxxSignatures(text).filter(named)) {
      if (!found.has(key(s))) found.set(key(s), s);
    }
  }
  return [...found.values()];
}

/** A signature's linkage and parameters, to tell variants apart. */
const key = (s: KernelSignature) =>
  `${s.cxx}\0${s.params.map((p) => `${p.name}:${p.declared}`).join()}`;

const PTX_PARAM = new RegExp(
  String.raw`^\.param\s+(?:\.align\s+\d+\s+)?\.([a-z])(\d+)\s+(?:${PTX_POINTER_ATTRIBUTE})?` +
    String.raw`[\w$]+(?:\[(\d+)\])?$`,
);

/**
 * Whether C parameters compile to the PTX ones: `false` when surely not (another count, size or
 * kind), `true` when surely, `undefined` when the runtime cannot tell (a type it cannot size).
 */
function matches(
  params: readonly KernelParam[],
  ptx: readonly KernelParam[],
): boolean | undefined {
  if (params.length !== ptx.length) return false;
  let sure = true;
  for (let i = 0; i < params.length; i++) {
    const m = PTX_PARAM.exec(ptx[i].declared);
    if (m === null) {
      sure = false;
      continue;
    }
    const [, letter, bits, count] = m;
    const size = Number(bits) / 8 * Number(count ?? 1);
    const p = params[i];
    // what the C parameter is: its size, and a float, an integer (pointers too) or bytes
    const [cSize, kind] = p.kind === "pointer" ? [8, "int"] : p.type !== undefined
      ? [
        p.size,
        p.type[0] === "f" && p.type !== "f16"
          ? "float"
          : p.type[0] === "b" || p.type === "f16"
          ? "bytes"
          : "int",
      ]
      : [p.size, "bytes"];
    if (cSize === 0) {
      sure = false;
      continue;
    }
    if (cSize !== size) return false;
    // NVRTC writes `.f32` for a float, `.u32` for an int, `.b8 x[N]` for a struct or a __half:
    // another spelling (`.b32`) is not refused, only not taken as proof
    const ptxKind = count !== undefined
      ? "bytes"
      : letter === "f"
      ? "float"
      : letter === "b"
      ? ""
      : "int";
    if (kind === ptxKind) continue;
    if ((kind === "float" && ptxKind === "int") || (kind === "int" && ptxKind === "float")) {
      return false;
    }
    sure = false;
  }
  return sure ? true : undefined;
}
