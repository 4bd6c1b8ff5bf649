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
 * Removes comments and preprocessor lines (a `#define` that generates kernels declares no
 * function under its parameter's name: such kernels are found in the PTX, by `entryPoint`).
 *
 * @example
 * ```ts ignore
 * import { stripComments } from "./_c_source.ts";
 * console.log(stripComments("#define N 4\nint n; // count").trim()); // int n;
 * ```
 */
export function stripComments(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, " ").replace(/\/\/[^\n]*/g, " ")
    .replace(/^[ \t]*#(?:[^\n]*\\\r?\n)*[^\n]*/gm, " ");
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
