/**
 * CUDA C source text as the signature reader sees it: comments and preprocessor lines removed,
 * the ranges of `extern "C"` and namespace blocks, whether a `#pragma pack` changes layouts.
 *
 * @module
 */

/**
 * `#pragma pack` or `_Pragma("pack(1)")`, tested on the source as given (a comment naming one
 * only makes structs refused).
 *
 * @example
 * ```ts ignore
 * import { PRAGMA_PACK } from "./_c_source.ts";
 * console.log(PRAGMA_PACK.test("#pragma pack(push, 1)")); // true
 * ```
 */
export const PRAGMA_PACK = /^[ \t]*#[ \t]*pragma[ \t]+pack\b|\b_Pragma\s*\(\s*"\s*pack\b/m;

/**
 * Removes comments, the contents of string and character literals (`"C"` and `"C++"` are kept,
 * for `extern "C"`), the lines of `#if 0` branches (and of the branches after an `#if 1`'s), and
 * preprocessor lines (a `#define` that generates kernels declares no function under its
 * parameter's name: such kernels are found in the PTX, by `entryPoint`). With `directives`, the
 * preprocessor lines of the live branches are kept (for `#define`s naming types).
 *
 * @example
 * ```ts ignore
 * import { stripComments } from "./_c_source.ts";
 * console.log(stripComments("#define N 4\nint n; // count").trim()); // int n;
 * ```
 */
export function stripComments(source: string, directives = false): string {
  const live = liveLines(withoutLiterals(source));
  return directives ? live : live.replace(/^[ \t]*#(?:[^\n]*\\\r?\n)*[^\n]*/gm, " ");
}

/**
 * `source` without comments and with its literals emptied (`"..."` as `""`, `'x'` as `' '`).
 *
 * @example
 * ```ts ignore
 * import { withoutLiterals } from "./_c_source.ts";
 * console.log(withoutLiterals('int n; // "count"')); // int n;
 * ```
 */
export function withoutLiterals(source: string): string {
  let out = "";
  for (let i = 0; i < source.length;) {
    const c = source[i], next = source[i + 1];
    if (c === "/" && next === "/") {
      const end = source.indexOf("\n", i);
      i = end < 0 ? source.length : end;
      out += " ";
    } else if (c === "/" && next === "*") {
      const end = source.indexOf("*/", i + 2);
      i = end < 0 ? source.length : end + 2;
      out += " ";
    } else if (c === '"' || (c === "'" && !/\w/.test(source[i - 1] ?? ""))) {
      // a raw string R"tag(...)tag" (prefixed u8R, LR...) ends at its tag; `1'000` is a number
      const raw = c === '"' &&
        /(?:^|[^\w])(?:u8|[uUL])?R$/.test(source.slice(Math.max(0, i - 4), i));
      const tag = raw ? source.slice(i + 1, source.indexOf("(", i)) : "";
      let end = raw ? source.indexOf(`)${tag}"`, i) + tag.length + 1 : i + 1;
      if (!raw) {
        while (end < source.length && source[end] !== c && source[end] !== "\n") {
          end += source[end] === "\\" ? 2 : 1;
        }
      }
      if (end < i) end = source.length - 1;
      const body = source.slice(i + 1, end);
      out += c + (c === '"' && (body === "C" || body === "C++") ? body : c === "'" ? " " : "") + c;
      i = end + 1;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/** `text` with the lines of dead conditional branches (`#if 0`, `#else` after `#if 1`) blank. */
function liveLines(text: string): string {
  // per open #if: whether its current branch is dead, and whether a branch was surely taken
  const stack: { dead: boolean; taken: boolean }[] = [];
  return text.split("\n").map((line) => {
    const m = /^[ \t]*#[ \t]*(if|ifdef|ifndef|elif|else|endif)\b(.*)$/.exec(line);
    const value = (cond: string) =>
      /^\s*(0|false)\s*$/.test(cond) ? 0 : /^\s*(1|true)\s*$/.test(cond) ? 1 : -1;
    if (m !== null) {
      const top = stack[stack.length - 1];
      if (m[1].startsWith("if")) {
        const v = m[1] === "if" ? value(m[2]) : -1;
        stack.push({ dead: v === 0, taken: v === 1 });
      } else if (m[1] === "endif") stack.pop();
      else if (top !== undefined) {
        const v = m[1] === "elif" ? value(m[2]) : 1;
        top.dead = top.taken || v === 0;
        top.taken ||= v === 1;
      }
      return line;
    }
    return stack.some((s) => s.dead) ? "" : line;
  }).join("\n");
}

/**
 * The `[start, end, name]` ranges of `extern "C" { ... }` (or `namespace name { ... }`) blocks.
 *
 * @example
 * ```ts ignore
 * import { externBlocks } from "./_c_source.ts";
 * console.log(externBlocks('extern "C" { void f(); }')); // [[0, 24, ""]]
 * ```
 */
export function externBlocks(
  text: string,
  pattern = /extern\s+"C"\s*\{/g,
): [number, number, string][] {
  const ranges: [number, number, string][] = [];
  for (const match of text.matchAll(pattern)) {
    let depth = 1, i = match.index! + match[0].length;
    for (; i < text.length && depth > 0; i++) {
      if (text[i] === "{") depth++;
      else if (text[i] === "}") depth--;
    }
    ranges.push([match.index!, i, match[1] ?? ""]);
  }
  return ranges;
}

/**
 * `text` with the object-like macros of `live` (the source's live lines, `#define`s kept) that
 * stand for a kernel's declaration specifiers (`#define KERNEL extern "C" __global__`, with
 * `static`, `inline`, `__launch_bounds__(...)` or `void`) written out, so the kernels they
 * declare are read.
 *
 * @example
 * ```ts ignore
 * import { kernelMacros } from "./_c_source.ts";
 * const live = '#define KERNEL extern "C" __global__\nKERNEL void k(float* a) {}';
 * console.log(kernelMacros("KERNEL void k(float* a) {}", live)); // extern "C" __global__ void k(float* a) {}
 * ```
 */
export function kernelMacros(text: string, live: string): string {
  const macros = new Map<string, string>();
  const found = live.matchAll(/^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)[ \t]+([^\n]*?)[ \t]*$/gm);
  for (const [, name, body] of found) {
    // a name defined twice (under #if/#else) differently is left alone
    const known = SPECIFIERS.test(body) ? body : "";
    macros.set(name, macros.has(name) && macros.get(name) !== known ? "" : known);
  }
  const used = [...macros].filter(([, body]) => body !== "");
  if (used.length === 0) return text;
  const names = new RegExp(`\\b(${used.map(([name]) => name).join("|")})\\b`, "g");
  return text.replace(names, (name) => macros.get(name)!);
}

/** A `#define`'s body that is a kernel's declaration specifiers, `__global__` among them. */
const SPECIFIERS =
  /^(?:(?:extern\s+"C"|static|inline|__forceinline__|__noinline__|void|__launch_bounds__\s*\([^()]*\))\s+)*__global__(?:\s+(?:static|inline|void|__launch_bounds__\s*\([^()]*\)))*$/;

/** A launch attribute: `__launch_bounds__(256, 2)`, `__attribute__((noinline))`. */
const LAUNCH_ATTRIBUTE = String
  .raw`(?:__launch_bounds__|__maxnreg__|__cluster_dims__|__attribute__)\s*\((?:[^()]|\([^()]*\))*\)`;
/** A run of a function's declaration specifiers, up to its name and `(`. */
const HEAD = new RegExp(
  String.raw`(?<![\w"])((?:(?:extern\s+"C"|__global__|static|inline|__inline__|__forceinline__|` +
    String.raw`__noinline__|void)\s+|${LAUNCH_ATTRIBUTE}\s*)+)(?=[A-Za-z_]\w*\s*\()`,
  "g",
);

/**
 * `text` with every `__global__` function's declaration specifiers in one order, `extern "C"`
 * first, then `__global__`, `static`, the launch attributes and `void` (C++ takes them in any
 * order: `void __global__ k(...)`, `__global__ inline void k(...)`); `inline`, `__forceinline__`
 * and `__noinline__` are dropped (they change neither the parameters nor the linkage).
 *
 * @example
 * ```ts ignore
 * import { kernelHeads } from "./_c_source.ts";
 * console.log(kernelHeads('extern "C" void __global__ k(float* a) {}'));
 * // extern "C" __global__ void k(float* a) {}
 * ```
 */
export function kernelHeads(text: string): string {
  return text.replace(HEAD, (run: string) => {
    if (!/\b__global__\b/.test(run) || !/\bvoid\b/.test(run)) return run;
    const attributes = run.match(new RegExp(LAUNCH_ATTRIBUTE, "g")) ?? [];
    const words = run.replace(new RegExp(LAUNCH_ATTRIBUTE, "g"), " ");
    return (/extern\s+"C"/.test(words) ? 'extern "C" ' : "") + "__global__ " +
      (/\bstatic\b/.test(words) ? "static " : "") +
      attributes.map((a) => `${a} `).join("") + "void ";
  });
}
