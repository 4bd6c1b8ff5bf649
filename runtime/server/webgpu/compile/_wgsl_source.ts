/**
 * What the runtime reads from a WGSL module's text itself, and the text `wgsl_reflect` is given.
 *
 * `wgsl_reflect` 1.6 misreads valid WGSL: names that are keywords elsewhere (`read`, `storage`,
 * `ptr`...) fail to parse, `@workgroup_size(256i)` reads as 1, const expressions and trailing
 * commas fail, and so do `diagnostic`, `const_assert` and `requires`. So the parser is given a
 * rewrite of the module, for reflection only (the device compiles the user's WGSL), that keeps
 * every line where it was:
 *
 * - comments blanked; `diagnostic`, `const_assert`, `enable`, `requires` blanked (the enables
 *   are kept here: they name the device features the module needs);
 * - every `@workgroup_size(...)` given `(1)`: the runtime evaluates the sizes itself
 *   (`_const_eval.ts`) over the module's `const` and `override` declarations, never from the
 *   parser;
 * - array counts that are expressions (`array<f32, N * 2>`) and the arguments of `@group`,
 *   `@binding`, `@size`, `@align` and `@id` replaced by their value; one the runtime cannot
 *   evaluate (a count that uses no override) is listed in `uncounted` (the parser's own
 *   evaluation is wrong for some: `round(2.5)` is 3 there, `SIZES[2]` is 1);
 * - trailing commas dropped; `0X` written `0x`, `0x7fi` as `127i`; a condition
 *   that starts with a parenthesized operand (`if (a & b) != 0u {`) put in parentheses of its own;
 * - a name that is a keyword elsewhere renamed `__name` (WGSL reserves names starting with
 *   `__`, so no user name collides) except where it is the keyword: the address space and access
 *   of `var<...>`, `ptr<...>` and `texture_storage_*<...>`. {@linkcode unmangle} maps names back.
 *
 * @module
 */

import { splitTopLevel, templateEnd } from "./_wgsl_templates.ts";
import { evaluateConst } from "./consts/_const_eval.ts";
import { constScope } from "./consts/_const_scope.ts";
import { type ConstStruct, moduleStructs } from "./consts/_const_structs.ts";
import { isShadowable, renameShadowed } from "./_wgsl_shadowed.ts";
import { forInitSteps } from "./rewrites/_for_init.ts";
import { orderConsts } from "./rewrites/_const_order.ts";

/** A module-scope `const` or `override`. */
export interface ModuleDeclaration {
  readonly kind: "const" | "override";
  readonly name: string;
  /** `@id(N)` of an override. */
  readonly id: number | undefined;
  /** Where its `@id(` "(" is in the source, if it has one. */
  readonly idAt?: number;
  /** The declared type, if written (through module-scope aliases). */
  readonly type: string | undefined;
  /** The initializer's text, if any. */
  readonly init: string | undefined;
  readonly line: number;
}

/** What the module's text says. */
export interface ModuleText {
  /** The source with comments blanked (same length and lines). */
  readonly masked: string;
  /** Array counts the runtime cannot evaluate that depend on no override (`_reflect.ts` refuses). */
  readonly uncounted: readonly { what: string; line: number; cause: unknown }[];
  /** What `wgsl_reflect` parses. */
  readonly reflectSource: string;
  /** The extensions of `enable` directives. */
  readonly enables: readonly string[];
  /** Module-scope `const` and `override` declarations by name. */
  readonly declarations: ReadonlyMap<string, ModuleDeclaration>;
  /** The module's struct types (what const expressions construct: `Foo(2u).n`). */
  readonly structs: ReadonlyMap<string, ConstStruct>;
  /** Each function's `@workgroup_size(...)` arguments as written, by function name. */
  readonly workgroupSizes: ReadonlyMap<string, { readonly args: string[]; readonly line: number }>;
}

/** Names that `wgsl_reflect` takes for keywords (or cannot read) wherever they are. */
const KEYWORD_NAMES = new Set([
  "read",
  "write",
  "read_write",
  "storage",
  "uniform",
  "workgroup",
  "private",
  "function",
  "block",
  "ptr",
  // WGSL's newest address space (`var<immediate>`): an ordinary name elsewhere in WGSL.
  "immediate",
  // Object.prototype's names: the parser looks names up in a plain object ("cannot read").
  "constructor",
  "toString",
  "valueOf",
  "hasOwnProperty",
  "isPrototypeOf",
  "propertyIsEnumerable",
  "toLocaleString",
]);

/** A name as the user wrote it, from the name `wgsl_reflect` saw. */
export function unmangle(name: string): string {
  const bare = name.slice(2);
  return name.startsWith("__") && (KEYWORD_NAMES.has(bare) || isShadowable(bare)) ? bare : name;
}

/** Reads a module's text (see the module doc). */
export function readModule(source: string): ModuleText {
  const masked = maskComments(source);
  const top = maskBraces(masked);
  // Directives anywhere before the declarations, several on a line (`enable` is a keyword).
  const enables: string[] = [];
  for (const m of top.matchAll(/(?<![\p{XID_Continue}])enable\s+([A-Za-z_][^;]*);/gu)) {
    enables.push(...m[1].split(",").map((e) => e.trim()).filter(Boolean));
  }
  const declarations = new Map<string, ModuleDeclaration>();
  // `@id(...)`'s argument may hold parentheses three deep (`@id(u32(m[1].y) + 4u)`).
  const nested = ["[^()]"];
  for (let d = 1; d <= 3; d++) nested.push(`(?:[^()]|\\((?:${nested[d - 1]})*\\))`);
  const declaration = new RegExp(
    String.raw`(?:@\s*id\s*\(\s*((?:${nested[3]})*?)\s*\)\s*)?\b(const|override)\s+` +
      String.raw`([\p{XID_Start}_]\p{XID_Continue}*)\s*(?::\s*([^=;]+?))?\s*(?:=\s*([^;]+?))?\s*;`,
    "gu",
  );
  // `alias real = f32;`: a declared type read through module aliases (`override W: real;`).
  const aliases = new Map<string, string>();
  for (const m of top.matchAll(/(?<![\p{XID_Continue}])alias\s+(\S+?)\s*=\s*([^;]+?)\s*;/gu)) {
    aliases.set(m[1], m[2]);
  }
  const resolve = (type: string | undefined, depth = 0): string | undefined =>
    type !== undefined && aliases.has(type) && depth < 16
      ? resolve(aliases.get(type), depth + 1)
      : type;
  // `alias V = vec2<u32>; const T = V(4u, 8u);`: an alias called as a constructor is its type.
  const dealias = (text: string) =>
    aliases.size === 0 ? text : text.replace(
      /(?<![\p{XID_Continue}.])[\p{XID_Start}_]\p{XID_Continue}*(?=\s*\()/gu,
      (name) => aliases.has(name) ? resolve(name)! : name,
    );
  for (const m of top.matchAll(declaration)) {
    declarations.set(m[3], {
      kind: m[2] as "const" | "override",
      name: m[3],
      id: m[1] === undefined ? undefined : Number(m[1].replace(/[iu]$/, "")),
      idAt: m[1] === undefined ? undefined : m.index! + m[0].indexOf("("),
      type: resolve(m[4]?.trim()),
      init: m[5] === undefined ? undefined : dealias(m[5]),
      line: lineAt(masked, m.index!),
    });
  }
  const edits: { from: number; to: number; text: string }[] = [];
  // `const EPS: f16 = 1e-3;` (a `var<private>` too), used anywhere: wgsl_reflect refuses the
  // abstract float as an f16 ("Invalid cast from f32 to f16"), and an abstract vector as a
  // concrete one (`const h: vec3u = vec3(4, 5, 6);`: "Invalid cast from vec3 to vec3u").
  // Without the type, the parser reads it; the runtime's own scope keeps the declared type (no
  // binding has it: counts and sizes are the runtime's values).
  for (
    const m of top.matchAll(
      /(?<![\p{XID_Continue}])(?:const|var\s*<\s*private\s*>)\s*[\p{XID_Start}_]\p{XID_Continue}*\s*(:[^=;]*)=/gu,
    )
  ) {
    const type = resolve(m[1].slice(1).trim()) ?? "";
    if (!/\bf16\b|\b(?:vec[234]|mat[234]x[234])h\b|^(?:vec|mat)[234]/.test(type)) {
      continue;
    }
    const from = m.index! + m[0].length - 1 - m[1].length;
    edits.push({ from, to: from + m[1].length, text: "" });
  }
  const workgroupSizes = new Map<string, { args: string[]; line: number }>();
  for (const m of masked.matchAll(/@\s*workgroup_size\s*\(/g)) {
    const open = m.index! + m[0].length - 1;
    const close = matching(masked, open, "(", ")");
    if (close < 0) continue;
    const fn = /\bfn\s+([\p{XID_Start}_]\p{XID_Continue}*)/u.exec(masked.slice(close));
    if (fn !== null) {
      const args = splitTopLevel(masked.slice(open + 1, close)).filter((a) => a.trim() !== "")
        .map(dealias);
      workgroupSizes.set(fn[1], { args, line: lineAt(masked, m.index!) });
    }
    edits.push({ from: open + 1, to: close, text: "1" });
  }
  const structs = moduleStructs(masked);
  const scope = constScope(declarations, new Map(), structs);
  const uncounted: { what: string; line: number; cause: unknown }[] = [];
  const idValues = new Map<number, number>(); // an `@id(...)`'s "(" offset: its value
  for (const m of masked.matchAll(/\barray\s*</g)) {
    const open = m.index! + m[0].length - 1;
    const close = matching(masked, open, "<", ">");
    if (close < 0) continue;
    const parts = splitTopLevel(masked.slice(open + 1, close));
    if (parts.length !== 2 || /^\s*\d+\s*$/.test(parts[1]) || parts[1].trim() === "") continue;
    try {
      const value = evaluateConst(dealias(parts[1]), scope).value;
      const from = close - parts[1].length;
      edits.push({ from, to: close, text: String(value) });
    } catch (cause) {
      // An override-sized workgroup array: the parser gets it as written. Any other count
      // the runtime cannot evaluate is not guessed: the parser evaluates some builtins wrongly
      // (`round(2.5)` as 3) and reads `SIZES[2]` as 1, a binding's layout then wrong.
      // A name that is neither a module-scope declaration nor called (`f(`, `vec2<`): a
      // function-scope `const` (`const N = 4u; var a: array<f32, N>;`), no binding's count.
      const names = [
        ...parts[1].matchAll(
          /(?<![.\p{XID_Continue}])([\p{XID_Start}_]\p{XID_Continue}*)(?![\p{XID_Continue}]|\s*[(<])/gu,
        ),
      ]
        .map((n) => n[1]);
      const local = names.some((n) => !declarations.has(n) && !/^(true|false)$/.test(n));
      if (!local && !names.some((n) => declarations.get(n)?.kind === "override")) {
        const what = `the array count '${parts[1].trim()}'`;
        uncounted.push({ what, line: lineAt(masked, open), cause });
      }
    }
  }
  // `@binding(BASE + 1u)`, `@size(S * 2u)`, `@id(0x3)`: const-expressions the parser does not
  // evaluate (WGSL allows any in these attributes).
  for (const m of masked.matchAll(/@\s*(group|binding|size|align|id)\s*\(/g)) {
    const open = m.index! + m[0].length - 1;
    const close = matching(masked, open, "(", ")");
    const arg = masked.slice(open + 1, close).replace(/,\s*$/, "");
    if (close < 0 || /^\s*\d+\s*$/.test(arg)) continue;
    try {
      const value = evaluateConst(arg, scope).value;
      edits.push({ from: open + 1, to: open + 1 + arg.length, text: String(value) });
      if (m[1] === "id") idValues.set(open, value);
    } catch (cause) {
      // Never left to the parser, which evaluates some wrongly: the device's verdict decides.
      uncounted.push({ what: `@${m[1]}(${arg.trim()})`, line: lineAt(masked, m.index!), cause });
    }
  }
  for (const [name, d] of declarations) {
    if (d.idAt !== undefined && idValues.has(d.idAt)) {
      declarations.set(name, { ...d, id: idValues.get(d.idAt) });
    }
  }
  for (
    const pattern of [
      /(?<![\p{XID_Continue}])(?:enable|requires)\s+[A-Za-z_][^;]*;/gu,
      /(?<![\p{XID_Continue}@]\s*)diagnostic\s*\([^)]*\)\s*;/gu,
      /@\s*diagnostic\s*\([^)]*\)/g,
      /\bconst_assert\b[^;]*;/g,
      /,(?=\s*[)\]}>])/g,
    ]
  ) {
    for (const m of masked.matchAll(pattern)) {
      edits.push({ from: m.index!, to: m.index! + m[0].length, text: "" });
    }
  }
  // `if (a & b) != 0u {` (and `while`, `switch`, `break if`): the parser takes a condition that
  // starts with `(` to end at its `)`. Such a condition is put in parentheses of its own.
  for (const m of masked.matchAll(/(?<![\p{XID_Continue}])(?:if|while|switch)\s*\(/gu)) {
    const open = m.index! + m[0].length - 1;
    const close = matching(masked, open, "(", ")");
    const body = close < 0 ? -1 : masked.slice(close + 1).search(/[{;@]/);
    if (body < 0 || masked.slice(close + 1, close + 1 + body).trim() === "") continue;
    edits.push({ from: open, to: open, text: "(" });
    edits.push({ from: close + 1 + body, to: close + 1 + body, text: ")" });
  }
  edits.push(...forInitSteps(masked)); // `for (i++; ...)`: `i += 1`
  const hex = /(?<![\p{XID_Continue}.])0[xX](?=[\da-fA-F.])([\da-fA-F]+i\b)?/gu; // module doc
  for (const m of masked.matchAll(hex)) {
    const i32 = m[1] && `${BigInt(`0x${m[1].slice(0, -1)}`)}i`;
    edits.push({ from: m.index!, to: m.index! + (i32 ? m[0].length : 2), text: i32 || "0x" });
  }
  return {
    masked,
    uncounted,
    reflectSource: renameKeywords(renameShadowed(orderConsts(applyEdits(masked, edits)))),
    enables,
    declarations,
    structs,
    workgroupSizes,
  };
}

/** WGSL's blankspace other than space, tab, CR and LF (line breaks among them end `//`). */
const OTHER_BLANKSPACE = /[\v\f\u0085\u200e\u200f\u2028\u2029]/;
const LINE_BREAK = /[\n\v\f\r\u0085\u2028\u2029]/g;

/**
 * `source` with `//` and (nested) block comments replaced by spaces, newlines kept, and WGSL's
 * rarer blankspace (vertical tab, form feed, U+0085, U+200E/F, U+2028/9) written as spaces, as
 * the parser reads only the common ones (a form feed before `fn` hid the entry point).
 */
export function maskComments(source: string): string {
  let out = "";
  let i = 0;
  while (i < source.length) {
    if (source.startsWith("//", i)) {
      LINE_BREAK.lastIndex = i;
      const end = LINE_BREAK.exec(source)?.index ?? -1;
      const stop = end < 0 ? source.length : end;
      out += " ".repeat(stop - i);
      i = stop;
    } else if (source.startsWith("/*", i)) {
      let depth = 0;
      const start = i;
      do {
        if (source.startsWith("/*", i)) (depth++, i += 2);
        else if (source.startsWith("*/", i)) (depth--, i += 2);
        else i++;
      } while (depth > 0 && i < source.length);
      out += source.slice(start, i).replace(/[^\n]/g, " ");
    } else {
      const c = source[i++];
      out += OTHER_BLANKSPACE.test(c) ? " " : c;
    }
  }
  return out;
}

/** The text outside every `{...}` (inside replaced by spaces, newlines kept). */
function maskBraces(text: string): string {
  let depth = 0;
  let out = "";
  for (const c of text) {
    if (c === "{") depth++;
    out += depth > 0 && c !== "\n" ? " " : c;
    if (c === "}") depth = Math.max(0, depth - 1);
  }
  return out;
}

/**
 * The index of the bracket closing the one at `open`, or -1: a template list's `>` as WGSL finds
 * it (`_wgsl_templates.ts`), a `)` counting parentheses only.
 */
function matching(text: string, open: number, left: string, right: string): number {
  if (left === "<") return templateEnd(text, open);
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const c = text[i];
    if (c === left) depth++;
    else if (c === right) {
      depth--;
      if (depth === 0) return i;
    } else if (c === ";" || c === "{") return -1;
  }
  return -1;
}

function applyEdits(text: string, edits: { from: number; to: number; text: string }[]): string {
  // Outer edits first; an edit inside one already kept is dropped (the outer one covers it).
  edits.sort((a, b) => a.from - b.from || b.to - a.to);
  const kept: typeof edits = [];
  for (const edit of edits) {
    const last = kept.at(-1);
    if (last === undefined || edit.from >= last.to) kept.push(edit);
  }
  let out = text;
  for (const edit of kept.reverse()) {
    const newlines = out.slice(edit.from, edit.to).replace(/[^\n]/g, "");
    out = out.slice(0, edit.from) + edit.text + newlines + out.slice(edit.to);
  }
  return out;
}

/** Renames names that are keywords elsewhere (see the module doc). */
function renameKeywords(text: string): string {
  let out = "";
  let last = 0;
  /** Open template lists whose first-level names are keywords: their `<` depth. */
  let keep = 0;
  let depth = 0;
  const identifier = /[\p{XID_Start}_]\p{XID_Continue}*|[<>]/gu;
  for (const m of text.matchAll(identifier)) {
    const token = m[0];
    const at = m.index!;
    if (token === "<" || token === ">") {
      if (keep > 0) {
        depth += token === "<" ? 1 : -1;
        if (depth === 0) keep = 0;
      }
      continue;
    }
    const next = /^\s*</.test(text.slice(at + token.length, at + token.length + 40));
    if (
      keep === 0 && next &&
      (token === "var" || token === "ptr" || token.startsWith("texture_storage_"))
    ) {
      keep = 1;
      depth = 0;
      continue;
    }
    if (!KEYWORD_NAMES.has(token)) continue;
    if (keep > 0 && depth === 1) continue;
    out += text.slice(last, at) + "__" + token;
    last = at + token.length;
  }
  return out + text.slice(last);
}

/**
 * The line of the module-scope `var` named `name` (1 when not found), read with comments masked
 * (a commented-out declaration above the real one is not it) and Unicode word boundaries.
 */
export function declarationLine(source: string, name: string): number {
  const pattern = String.raw`\bvar\s*(?:<[^>]*>)?\s*${name}(?![\p{XID_Continue}])`;
  const match = new RegExp(pattern, "u").exec(maskComments(source));
  return match === null ? 1 : lineAt(source, match.index);
}

function lineAt(text: string, index: number): number {
  let line = 1;
  for (let i = 0; i < index; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}
