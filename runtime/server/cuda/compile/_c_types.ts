/**
 * The C type names the signature reader knows (`signature.ts`), and the rewrites it makes before
 * reading a parameter: integer specifiers in any order (`long unsigned int`), an array parameter
 * as the pointer it is (`float a[]`), a `#define` naming a type (`#define real float`).
 *
 * @module
 */

import type { StorageType } from "../../../core/kernel_arguments.ts";

/** C type names (qualifiers and `int` after a width removed) to storage types. */
export const C_TYPES: Record<string, StorageType> = {
  "float": "f32",
  "double": "f64",
  "__half": "f16",
  "half": "f16",
  "__nv_bfloat16": "bf16",
  "char": "i8",
  "signed char": "i8",
  "int8_t": "i8",
  "unsigned char": "u8",
  "uint8_t": "u8",
  "bool": "u8",
  "short": "i16",
  "signed short": "i16",
  "int16_t": "i16",
  "unsigned short": "u16",
  "uint16_t": "u16",
  "int": "i32",
  "signed": "i32",
  "int32_t": "i32",
  "unsigned": "u32",
  "uint32_t": "u32",
  "long": "i64",
  "signed long": "i64",
  "long long": "i64",
  "signed long long": "i64",
  "int64_t": "i64",
  "ptrdiff_t": "i64",
  "unsigned long": "u64",
  "unsigned long long": "u64",
  "uint64_t": "u64",
  "size_t": "u64",
  // NVRTC's own typedef (a `long`), as cuda-samples' clock kernels take it
  "clock_t": "i64",
};

/** C's integer type specifiers, which may come in any order (`int long unsigned`). */
export const SPECIFIERS: ReadonlySet<string> = new Set([
  "signed",
  "unsigned",
  "short",
  "long",
  "int",
  "char",
]);

/**
 * The name in {@linkcode C_TYPES} of an integer type written with `words` (all of
 * {@linkcode SPECIFIERS}, any order): `long unsigned int` is `unsigned long`.
 *
 * @example
 * ```ts ignore
 * import { integerType } from "./_c_types.ts";
 * console.log(integerType(["int", "long", "unsigned"])); // unsigned long
 * ```
 */
export function integerType(words: readonly string[]): string {
  const has = (w: string) => words.includes(w);
  const longs = words.filter((w) => w === "long").length;
  if (has("char")) {
    return has("unsigned") ? "unsigned char" : has("signed") ? "signed char" : "char";
  }
  const core = has("short") ? "short" : longs >= 2 ? "long long" : longs === 1 ? "long" : "";
  if (core === "") return has("unsigned") ? "unsigned" : "int";
  return has("unsigned") ? `unsigned ${core}` : core;
}

/**
 * A parameter's words (`const`, `float`, `a`, `[`) with an array declarator made the pointer C
 * makes of it (`const float* a`); the words unchanged when they have no `[`. A pointer to arrays
 * (`float (*a)[4]`, its `declared` text) points to the arrays' elements.
 *
 * @example
 * ```ts ignore
 * import { arrayAsPointer } from "./_c_types.ts";
 * console.log(arrayAsPointer(["float", "a", "["])); // ["float", "*", "a"]
 * ```
 */
export function arrayAsPointer(words: readonly string[], declared = ""): string[] {
  const at = words.indexOf("[");
  if (at < 1) return [...words];
  // `float (*a)[4]`: a pointer to arrays of floats, its bytes floats (it was read as `float**`)
  if (/\(\s*\*[^()[\]]*\)\s*\[/.test(declared)) return words.filter((w) => w !== "[");
  const name = words[at - 1];
  // `float a[]`, `float* a[4]`: a pointer to the element (`[` only the first one decays)
  return [...words.slice(0, at - 1), "*", name];
}

/**
 * `typedef` declarations for the object-like `#define`s of a source whose body is a type's or
 * qualifier's words (`#define real float` gives `typedef float real;`), for the alias reader; a
 * name defined twice differently (under `#if`/`#else`) is then refused as a typedef would be.
 *
 * @example
 * ```ts ignore
 * import { defineAliases } from "./_c_types.ts";
 * console.log(defineAliases("#define real double\n#define N 4")); // typedef double real;
 * ```
 */
export function defineAliases(source: string): string {
  const found = source.matchAll(
    /^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)[ \t]+([A-Za-z_][\w \t]*?)[ \t]*$/gm,
  );
  return [...found].map(([, name, body]) => `typedef ${body} ${name};`).join("\n");
}

/**
 * The typedefs of one pointer (`typedef float* fptr;`, `typedef const float *cfptr;`,
 * `using fptr = float*;`): name to the pointee's words (`const float`). A name defined twice
 * differently is left out (unknown, refused at a launch).
 *
 * @example
 * ```ts ignore
 * import { pointerAliases } from "./_c_types.ts";
 * console.log(pointerAliases("typedef const float* cfptr;")); // Map { "cfptr" => "const float" }
 * ```
 */
export function pointerAliases(text: string): Map<string, string> {
  const aliases = new Map<string, string>(), conflicting = new Set<string>();
  const found = text.matchAll(
    /\btypedef\s+([A-Za-z_][\w ]*?)\s*\*\s*([A-Za-z_]\w*)\s*;|\busing\s+([A-Za-z_]\w*)\s*=\s*([A-Za-z_][\w ]*?)\s*\*\s*;/g,
  );
  for (const m of found) {
    const [name, pointee] = m[2] !== undefined ? [m[2], m[1]] : [m[3], m[4]];
    const words = pointee.trim().split(/\s+/).join(" ");
    if (aliases.has(name) && aliases.get(name) !== words) conflicting.add(name);
    aliases.set(name, words);
  }
  for (const name of conflicting) aliases.delete(name);
  return aliases;
}

/**
 * A parameter declared with a pointer typedef (`fptr a`, `const fptr a`) written as the pointer
 * it is (`float * a`): a `const` beside the typedef's name qualifies the pointer itself (`float*
 * const`), so the kernel may still write through it; only the typedef's own `const` (`cfptr`)
 * makes it read-only. Other forms (`fptr* a`, `fptr a[]`, references) are left as written (an
 * unknown type, refused at a launch).
 *
 * @example
 * ```ts ignore
 * import { expandPointerAlias } from "./_c_types.ts";
 * console.log(expandPointerAlias("const fptr a", new Map([["fptr", "float"]]))); // float * a
 * ```
 */
export function expandPointerAlias(param: string, aliases: ReadonlyMap<string, string>): string {
  if (aliases.size === 0 || /[*&[]/.test(param)) return param;
  const words = param.trim().split(/\s+/);
  const used = words.filter((w) => aliases.has(w));
  // the typedef must be the type (`int p` keeps a parameter named like one)
  const type = words.find((w) => w !== "const" && !IGNORED.has(w));
  if (used.length !== 1 || type !== used[0]) return param;
  const rest = words.filter((w) => w !== used[0] && w !== "const");
  return [aliases.get(used[0])!, "*", ...rest].join(" ");
}

/** Qualifiers that name no type: left out of a parameter's type. */
export const IGNORED: ReadonlySet<string> = new Set([
  "volatile",
  "__restrict__",
  "__restrict",
  "restrict",
  "struct",
  // C's elaborated `enum E e` (ggml's `const enum ggml_op_pool op`): `E`, read as its enum
  "enum",
  "__grid_constant__",
]);

/**
 * The type name of a parameter's type words (qualifiers and `*` left out; C's integer specifiers
 * in any order read as one type: `long unsigned int` is `unsigned long`).
 *
 * @example
 * ```ts ignore
 * import { baseType } from "./_c_types.ts";
 * console.log(baseType(["volatile", "int", "unsigned", "*"])); // unsigned
 * ```
 */
export function baseType(words: string[]): string {
  const kept = words.filter((w) => !IGNORED.has(w) && w !== "*");
  if (kept.length > 1 && kept.every((w) => SPECIFIERS.has(w))) return integerType(kept);
  return kept.join(" ");
}
