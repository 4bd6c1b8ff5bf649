/**
 * Structs passed to a kernel by value, read from CUDA C: `struct S { ... };`, `typedef struct
 * { ... } S;`, `struct __align__(16) S` / `struct alignas(16) S`, and CUDA's vector types
 * (`float4`, `int2`, `__half2`...). Fields are scalars of the types `signature.ts` knows (through
 * their aliases), fixed-size arrays of them (`float v[3]`), vector types and structs defined
 * earlier; the layout is the one nvcc and NVRTC use (each field at the next multiple of its
 * alignment, raised by a field's own `alignas(N)` / `__align__(N)`; the struct's alignment its
 * largest field's or the one declared, its size a multiple of it; `long` is 8 bytes, LP64). Anything else (a pointer field, a bit-field, a union, a base
 * class, member functions) makes the struct one the runtime cannot pass: it is kept with the
 * reason, which the launch names.
 *
 * @module
 */

import type { StorageType } from "../../../core/kernel_arguments.ts";
import { vectorType } from "./_vector_types.ts";

/**
 * A struct's layout on the device.
 *
 * @example
 * ```ts ignore
 * import type { StructLayout } from "@gpucompute/runtime/cuda";
 * const dims: StructLayout = {
 *   name: "Dims",
 *   size: 8,
 *   align: 4,
 *   fields: [{ name: "m", offset: 0, type: "i32" }, { name: "n", offset: 4, type: "i32" }],
 * };
 * console.log(dims.fields.map((f) => `${f.name}@${f.offset}`).join(" ")); // m@0 n@4
 * ```
 */
export interface StructLayout {
  /** The struct's name as the kernel declares it (`float4`, `Params`). */
  readonly name: string;
  /** Bytes, padding included. */
  readonly size: number;
  /** Alignment in bytes. */
  readonly align: number;
  /** Fields in declaration order. */
  readonly fields: readonly StructField[];
}

/**
 * One field of a {@linkcode StructLayout}.
 *
 * @example
 * ```ts ignore
 * import type { StructField } from "@gpucompute/runtime/cuda";
 * const field: StructField = { name: "v", offset: 4, type: "f32", count: 3 }; // float v[3]
 * console.log(field.count); // 3
 * ```
 */
export interface StructField {
  /** The field's name. */
  readonly name: string;
  /** Byte offset in the struct. */
  readonly offset: number;
  /** A scalar's storage type, or a nested struct's layout. */
  readonly type: StorageType | StructLayout;
  /** Elements of an array field (`float v[3]`: 3); absent for a single value. */
  readonly count?: number;
  /** C `bool`: a byte that holds 0 or 1. */
  readonly bool?: boolean;
}

/**
 * A struct parameter's layout, or why the runtime cannot pass it (`unsupported`, named by the
 * launch that tries).
 *
 * @example
 * ```ts ignore
 * import type { StructEntry } from "@gpucompute/runtime/cuda";
 * const describe = (entry: StructEntry) =>
 *   "unsupported" in entry ? entry.unsupported : `${entry.size} bytes`;
 * console.log(describe({ unsupported: "its field 'float* data' is a pointer or a reference" }));
 * ```
 */
export type StructEntry = StructLayout | { readonly unsupported: string };

const sizeOf = (type: StorageType): number => Number(/\d+/.exec(type)![0]) / 8;
const alignOf = (type: StorageType | StructLayout) =>
  typeof type === "string" ? sizeOf(type) : type.align;
const bytesOf = (type: StorageType | StructLayout) =>
  typeof type === "string" ? sizeOf(type) : type.size;
const roundUp = (n: number, to: number) => Math.ceil(n / to) * to;

/** A CUDA vector type's layout (`vector_types.h`): `float3` aligns as a float, `float4` to 16. */
export function vectorLayout(name: string): StructLayout | undefined {
  const vector = vectorType(name === "dim3" ? "uint3" : name); // dim3: three unsigned ints
  if (vector === undefined) return undefined;
  const [element, lanes] = vector;
  const unit = sizeOf(element);
  const align = lanes === 1 || lanes === 3 ? unit : Math.min(unit * lanes, 16);
  const fields = ["x", "y", "z", "w"].slice(0, lanes).map((field, i) => ({
    name: field,
    offset: i * unit,
    type: element,
  }));
  return { name, size: roundUp(unit * lanes, align), align, fields };
}

/**
 * What {@linkcode structTypes} knows of the source besides its text.
 *
 * @example
 * ```ts ignore
 * import type { StructSourceOptions } from "./_struct_layout.ts";
 * const options: StructSourceOptions = { alias: (name) => name === "flag" ? "bool" : name };
 * ```
 */
export interface StructSourceOptions {
  /** The source has a `#pragma pack`: no struct's layout is known. @default false */
  readonly packed?: boolean;
  /** The C type a `typedef`/`using` name stands for (`flag` → `bool`). @default the name */
  readonly alias?: (name: string) => string;
  /** The `[start, end, name]` ranges of the text's named namespaces. @default none */
  readonly spaces?: readonly (readonly [number, number, string])[];
}

/**
 * The structs `text` (comments and preprocessor lines removed) defines, by name (and by the
 * names `typedef` gives them); `scalar` resolves a type name to a storage type (aliases, C types).
 */
export function structTypes(
  text: string,
  scalar: (name: string) => StorageType | undefined,
  { packed = false, alias = (name: string) => name, spaces = [] }: StructSourceOptions = {},
): Map<string, StructEntry> {
  const structs = new Map<string, StructEntry>();
  const head =
    /\b(typedef\s+)?(struct|union|class)\s+((?:__align__\s*\(\s*\d+\s*\)\s*|alignas\s*\(\s*\d+\s*\)\s*)*)([A-Za-z_]\w*)?\s*((?:__align__\s*\(\s*\d+\s*\)\s*)*)(:[^{;]*)?\{/g;
  for (const m of text.matchAll(head)) {
    const open = m.index! + m[0].length;
    let depth = 1, end = open;
    for (; end < text.length && depth > 0; end++) {
      if (text[end] === "{") depth++;
      else if (text[end] === "}") depth--;
    }
    const body = text.slice(open, end - 1);
    const names = m[4] === undefined ? [] : [m[4]];
    if (m[1] !== undefined) { // typedef struct [Tag] { ... } Name;
      const after = /^\s*([A-Za-z_]\w*)\s*;/.exec(text.slice(end));
      if (after !== null) names.push(after[1]);
    }
    if (names.length === 0) continue;
    const declared = [...`${m[3]} ${m[5]}`.matchAll(/\d+/g)].map(Number);
    const entry = m[2] !== "struct"
      ? { unsupported: `it is a ${m[2]}` }
      : m[6] !== undefined
      ? { unsupported: "it has a base class" }
      : packed
      ? { unsupported: PACKED }
      : ATTRIBUTE.test(text.slice(end))
      ? { unsupported: "an attribute follows its definition (packed, aligned...)" }
      : layoutOf(names[names.length - 1], body, Math.max(1, ...declared), scalar, alias, structs);
    // in `namespace a { ... }`: `a::S` too (a kernel outside it names it so)
    const outer = spaces.filter(([s, e]) => m.index! > s && m.index! < e).map(([, , n]) => n);
    for (const name of names) {
      define(structs, name, entry);
      if (outer.length > 0) define(structs, [...outer, name].join("::"), entry);
    }
  }
  // `typedef struct S T;` and `using T = S;`
  for (
    const m of text.matchAll(
      /\btypedef\s+(?:struct\s+)?([A-Za-z_]\w*)\s+([A-Za-z_]\w*)\s*;|\busing\s+([A-Za-z_]\w*)\s*=\s*(?:struct\s+)?([A-Za-z_]\w*)\s*;/g,
    )
  ) {
    const [from, to] = m[1] !== undefined ? [m[1], m[2]] : [m[4], m[3]];
    const known = structs.get(from) ?? vectorLayout(from);
    if (known !== undefined) define(structs, to, known);
  }
  // A name that is also an alias of another type (`typedef float T;` under `#else`): not known.
  for (
    const m of text.matchAll(
      /\btypedef\s+([^;{}]*?)\s*\b([A-Za-z_]\w*)\s*;|\busing\s+([A-Za-z_]\w*)\s*=\s*([^;{}]+);/g,
    )
  ) {
    const [type, to] = m[2] !== undefined ? [m[1], m[2]] : [m[4], m[3]];
    const from = type.replace(/\b(?:struct|const)\b/g, "").trim();
    if (structs.has(to) && structs.get(from) === undefined && vectorLayout(from) === undefined) {
      structs.set(to, { unsupported: `'${to}' ${TWICE}` });
    }
  }
  return structs;
}

/**
 * Sets `name`; a second definition of another layout (namespaces, #if branches, aliases) makes it
 * one whose layout is not known here: which one the kernel takes is the compiler's choice.
 */
function define(structs: Map<string, StructEntry>, name: string, entry: StructEntry): void {
  const before = structs.get(name);
  const same = before === undefined || before === entry ||
    JSON.stringify(before) === JSON.stringify(entry);
  structs.set(name, same ? entry : { unsupported: `'${name}' ${TWICE}` });
}

function layoutOf(
  name: string,
  body: string,
  declaredAlign: number,
  scalar: (name: string) => StorageType | undefined,
  alias: (name: string) => string,
  structs: ReadonlyMap<string, StructEntry>,
): StructEntry {
  if (/\b(?:struct|union|class|enum)\b[^;{]*\{/.test(body)) {
    return { unsupported: "it has nested definitions" };
  }
  // A brace initializer (`float v[2] = {1, 2};`, `int n{3};`) does not change the layout either.
  body = body.replace(/(?<=[\w\]=]\s*)\{[^{}]*\}/g, " ");
  // A field's `alignas(16)` / `__align__(16)` raises its alignment: kept as a word until read.
  body = body.replace(/\b(?:alignas|__align__)\s*\(\s*(\d+)\s*\)/g, " @align$1 ");
  if (body.includes("{") || body.includes("(")) {
    return { unsupported: "it has member functions or nested definitions" };
  }
  const fields: StructField[] = [];
  let offset = 0, align = declaredAlign;
  // A default member initializer (`float eps = 1e-5f;`) does not change the layout.
  const statements = body.split(";").map((s) => s.replace(/=[^,]*/g, "").trim());
  for (const statement of statements.filter((s) => s !== "")) {
    if (statement.includes("*") || statement.includes("&")) {
      return { unsupported: `its field '${statement}' is a pointer or a reference` };
    }
    if (/(?<!:):(?!:)/.test(statement)) {
      return { unsupported: `its field '${statement}' is a bit-field` };
    }
    if (/\bstatic\b/.test(statement)) return { unsupported: `it has a static member` };
    // `alignas(8) float a, b;` aligns each declarator to at least 8 (never below its type's)
    const aligned = Math.max(1, ...[...statement.matchAll(/@align(\d+)/g)].map(([, n]) => +n));
    const [first, ...more] = statement.replace(/@align\d+/g, " ").split(",").map((s) => s.trim());
    const m = /^([\s\S]*?)\b([A-Za-z_]\w*)\s*((?:\[\s*\d+\s*\]\s*)*)$/.exec(first);
    if (m === null) return { unsupported: `its field '${statement}' is not understood` };
    // `unsigned int`, `long long int`: the `int` adds nothing (as `signature.ts` reads them).
    const typeName = m[1].split(/\s+/).filter((w) => w && !QUALIFIERS.has(w)).join(" ")
      .replace(/(\w)\s+int$/, "$1");
    const type: StorageType | StructLayout | undefined = scalar(typeName) ??
      vectorLayout(typeName) ?? known(structs.get(typeName));
    if (type === undefined) {
      const inner = structs.get(typeName);
      return {
        unsupported: inner !== undefined && "unsupported" in inner
          ? `its field '${statement}' is a struct the runtime cannot pass (${inner.unsupported})`
          : `its field '${statement}' has a type the runtime does not know ('${typeName}')`,
      };
    }
    const declarators = [`${m[2]}${m[3]}`, ...more];
    for (const declarator of declarators) {
      const d = /^([A-Za-z_]\w*)\s*((?:\[\s*\d+\s*\]\s*)*)$/.exec(declarator);
      if (d === null) return { unsupported: `its field '${statement}' is not understood` };
      const count = [...d[2].matchAll(/\d+/g)].reduce((n, [k]) => n * Number(k), 1);
      if (count === 0) return { unsupported: `its field '${d[1]}' is an empty array` };
      const fieldAlign = Math.max(alignOf(type), aligned);
      offset = roundUp(offset, fieldAlign);
      fields.push({
        name: d[1],
        offset,
        type,
        ...(d[2] !== "" ? { count } : {}),
        ...(alias(typeName) === "bool" ? { bool: true } : {}), // `typedef bool flag;` too
      });
      offset += bytesOf(type) * count;
      align = Math.max(align, fieldAlign);
    }
  }
  if (fields.length === 0) return { unsupported: "it has no fields" };
  return { name, size: roundUp(offset, align), align, fields };
}

const PACKED = "the source has a '#pragma pack', which changes struct layouts the runtime " +
  "does not follow";
const TWICE = "is defined more than once with different layouts (in namespaces or #if " +
  "branches): the runtime cannot tell which one the kernel takes";
/** An attribute after a definition's closing brace: `} __attribute__((packed)) S;`. */
const ATTRIBUTE = /^\s*(?:__attribute__|__declspec|__align__|alignas|\[\[)/;

const known = (entry: StructEntry | undefined) =>
  entry === undefined || "unsupported" in entry ? undefined : entry;

const QUALIFIERS = new Set(["const", "volatile", "struct", "mutable"]);
