/**
 * Kernel signatures read from the program text, for launches that pass `buffers` and `params` as
 * on WebGPU: which parameters are pointers (filled by buffers, in order) and which are scalars
 * (filled by `params`), with their types.
 *
 * - **CUDA C** (`{ source }`): every `extern "C"` `__global__` function (declared `extern "C"`
 *   itself or inside an `extern "C" { ... }` block), with its parameters' names and C types:
 *   `float`, `double`, `__half`/`half`, `__nv_bfloat16`, `char`/`short`/`int`/`long`/`long long`
 *   signed and unsigned, the `<stdint.h>` names, `size_t`, `bool`; pointers to those (or `void`),
 *   `const T*` being read-only. `long` is 64-bit (LP64, as on Linux). A struct or vector type by
 *   value is kept with `type: undefined` and its layout (`struct`, `_struct_layout.ts`); a type
 *   the runtime cannot pass (a reference, a struct it cannot lay out) is refused at the launch.
 *   `typedef`/`using` aliases of those types (and of one pointer: `const fptr a` is a `float*
 *   const`, writable; `_c_types.ts`), enums (as their underlying type) and a template
 *   instance's type arguments (`k<float>`: `T a` is a `float`) are resolved; an alias defined
 *   twice as different types (under `#if`) is not. A `#define` naming a type (`#define real
 *   float`) is an alias too, unless a `-D` option redefines it (`_resolve_kernel.ts`); one naming a
 *   kernel's specifiers (`#define KERNEL extern "C" __global__`) is written out; other kernels a
 *   `#define` declares are not read. Integer specifiers come in any order (`long unsigned int`),
 *   an array parameter is its pointer (`float a[]`), `__grid_constant__` is ignored; `#if 0`
 *   branches, comments and string literals are skipped (`_c_source.ts`). A `static` kernel (or one
 *   of an anonymous namespace) in an `extern "C"` block is C++-linkage: NVRTC mangles its name.
 *   {@linkcode cxxSignatures} reads the other, C++-linkage `__global__` functions (not templates)
 *   the same way: their PTX names are mangled (`_Z6kernelPfi`), found by `_cxx_entry.ts`.
 * - **PTX** (`{ ptx }`): every `.entry` with its `.param` list (none for `.entry k { ... }`,
 *   which PTX allows, as for `.entry k () { ... }`). PTX keeps no C types: a `.u64`
 *   parameter is a pointer when the kernel converts it with `cvta.to.global` (what `nvcc` and
 *   NVRTC write) or uses it as an address (itself, or moved or added to), is declared `.ptr`, or
 *   is never loaded; one that only does integer work (an offset, a stride, a value) is a 64-bit
 *   integer. `.u32`/`.b32` holds `int` as well as `unsigned` (nvcc writes `.u32` for both), so
 *   it takes either range. Names are PTX's (`saxpy_param_2`): PTX kernels take `params` by
 *   position. `__launch_bounds__(N)` (CUDA C) or `.maxntid N` (PTX) is kept as `maxThreads`.
 *
 * @module
 */

import type { StorageType } from "../../../core/kernel_arguments.ts";
import { vectorType } from "./_vector_types.ts";
import { type StructEntry, structTypes, vectorLayout } from "./_struct_layout.ts";
import {
  externBlocks,
  kernelHeads,
  kernelMacros,
  PRAGMA_PACK,
  stripComments,
} from "./_c_source.ts";
import {
  arrayAsPointer,
  baseType,
  C_TYPES,
  defineAliases,
  expandPointerAlias,
  IGNORED,
  pointerAliases,
  SPECIFIERS,
} from "./_c_types.ts";

/**
 * One kernel parameter.
 *
 * @example
 * ```ts ignore
 * import { CudaDevice, type KernelParam, ModuleCache } from "@gpucompute/runtime/cuda";
 * using device = CudaDevice.open();
 * const source = `extern "C" __global__ void scale(const float* v, float s) {}`;
 * const params: readonly KernelParam[] = new ModuleCache(device.driver).resolve({ source })
 *   .signature?.params ?? [];
 * for (const p of params) console.log(p.kind, p.name, p.kind === "pointer" ? p.readOnly : p.type);
 * // pointer v true
 * // scalar s f32
 * ```
 */
export type KernelParam =
  | {
    readonly kind: "pointer";
    readonly name: string;
    /** The pointee's element type; `undefined` for `void*` (any handle). */
    readonly element: StorageType | undefined;
    /** `const T*`: the kernel only reads it. */
    readonly readOnly: boolean;
    /** The declaration as written, for messages. */
    readonly declared: string;
    /** Elements per pointee of a CUDA vector type (`float4*`: 4 f32); absent for 1. */
    readonly lanes?: number;
  }
  | {
    readonly kind: "scalar";
    readonly name: string;
    /** The value's type; `undefined` for one the runtime cannot pass. */
    readonly type: StorageType | undefined;
    /** PTX `.u32`/`.b32`/`.b64`: the sign is unknown, both ranges are taken. */
    readonly signless?: boolean;
    /** C `bool`: a byte that must hold 0 or 1. */
    readonly bool?: boolean;
    /** The declaration as written, for messages. */
    readonly declared: string;
    /** Byte size (known even when `type` is not: a PTX `.b8 x[N]`). */
    readonly size: number;
    /** A struct or vector type by value (`type` is undefined): its layout, or why not passed. */
    readonly struct?: StructEntry;
  };

/**
 * One entry point and its parameters.
 *
 * @example
 * ```ts ignore
 * import { CudaDevice, type KernelSignature, ModuleCache } from "@gpucompute/runtime/cuda";
 * using device = CudaDevice.open();
 * const source = `extern "C" __global__ void scale(float* v, float s, unsigned n) {}`;
 * const { signature } = new ModuleCache(device.driver).resolve({ source });
 * const named: KernelSignature | undefined = signature;
 * console.log(named?.name, named?.params.length); // scale 3
 * ```
 */
export interface KernelSignature {
  /** The entry point (`extern "C"` name, or PTX `.entry`). */
  readonly name: string;
  /** Parameters in order. */
  readonly params: readonly KernelParam[];
  /** Where params come from: names (CUDA C) or positions (PTX). */
  readonly language: "cuda" | "ptx";
  /** `__launch_bounds__`, or the product of `.maxntid` x, y, z: threads per block at most. */
  readonly maxThreads?: number;
  /** PTX `.reqntid` x, y, z: the one block shape launches may have (and the default one). */
  readonly requiredBlock?: readonly [number, number, number];
  /** A C++-linkage `__global__` function: its PTX `.entry` name is mangled. */
  readonly cxx?: boolean;
  /** A C++ function of a namespace: its qualified name (`ops::k`; `name` is `k`). */
  readonly qualified?: string;
  /** A template `__global__` function's instance (`name` is `k<float>`), lowered by NVRTC. */
  readonly template?: boolean;
}

/** A storage type's byte size: its bit width (`f16`, `bf16`, `u64`...) over 8. */
const sizeOf = (type: StorageType): number => Number(/\d+/.exec(type)![0]) / 8;

/** The words of the type names above, and qualifiers: never a parameter's name. */
const TYPE_WORDS = new Set([
  ...Object.keys(C_TYPES).flatMap((t) => t.split(" ")),
  ...IGNORED,
  "int",
  "const",
]);

const MAX_INT = 2 ** 31 - 1;

/** `typedef float real;` and `using real = float;`: the aliases of the types above. */
function typeAliases(text: string): Map<string, string> {
  const aliases = new Map<string, string>(), seen = new Map<string, string>();
  const conflicting = new Set<string>();
  const found = text.matchAll(
    /\btypedef\s+([A-Za-z_][\w ]*?)\s+([A-Za-z_]\w*)\s*;|\busing\s+([A-Za-z_]\w*)\s*=\s*([A-Za-z_][\w ]*?)\s*;/g,
  );
  for (const m of found) {
    const [name, type] = m[2] !== undefined ? [m[2], m[1]] : [m[3], m[4]];
    const base = baseType(type.trim().split(/\s+/).filter((w) => w !== "const"));
    const known = aliases.get(base) ?? (base in C_TYPES ? base : undefined);
    if (name in C_TYPES) continue;
    // defined twice as different types (under `#if`/`#else`): unknown, refused at a launch
    if (seen.has(name) && seen.get(name) !== (known ?? "")) conflicting.add(name);
    seen.set(name, known ?? "");
    if (known !== undefined) aliases.set(name, known);
  }
  // an enum is passed as its underlying type (`int` unless given: `enum class E : uint8_t`); C's
  // `typedef enum [tag] { ... } name;` names it too
  const enums = text.matchAll(
    /\b(typedef\s+)?enum\s+(?:class\s+|struct\s+)?([A-Za-z_]\w*\s*)?(?::\s*([\w ]+?))?\s*\{([^}]*)\}\s*([A-Za-z_]\w*)?/g,
  );
  for (const m of enums) {
    const [, typedef, tag, under, body, declarator] = m;
    const names = [tag?.trim(), typedef ? declarator : undefined].filter((n) => n !== undefined);
    // no type given, a value past an int's (`= 0x100000000LL`) makes it a `long`: unknown here
    const wide = under === undefined && [...body.matchAll(/\b(0[xX][\da-fA-F]+|\d+)\w*/g)]
      .some(([literal, digits]) =>
        /l/i.test(literal.slice(digits.length)) || Number(digits) > MAX_INT
      );
    const base = under === undefined ? "int" : baseType(under.trim().split(/\s+/));
    const known = wide ? undefined : aliases.get(base) ?? (base in C_TYPES ? base : undefined);
    for (const name of names) {
      if (known === undefined || seen.has(name)) conflicting.add(name);
      else aliases.set(name, known), seen.set(name, known);
    }
  }
  for (const name of conflicting) aliases.delete(name);
  return aliases;
}

/** The `extern "C"` `__global__` functions of CUDA C. */
export function cudaSignatures(source: string): KernelSignature[] {
  return globalFunctions(source, "c");
}

/**
 * The C++-linkage `__global__` functions of CUDA C (neither `extern "C"` nor templates), whose
 * PTX names are mangled; marked `cxx`.
 */
export function cxxSignatures(source: string): KernelSignature[] {
  return globalFunctions(source, "cxx");
}

/**
 * The template `__global__` functions of CUDA C, by their names without arguments; marked `cxx`
 * and `template` (an instance, `k<float>`, is named to NVRTC as a name expression). Parameters of
 * a template type (`T* x`, `T v`) have no element or scalar type.
 */
export function templateSignatures(
  source: string,
  args?: readonly string[],
): KernelSignature[] {
  return globalFunctions(source, "template", args);
}

/** `text` split at the commas outside brackets (`()`, `[]`, `{}`, and `<>` when `angles`). */
export function splitTopLevel(text: string, angles = false): string[] {
  const parts: string[] = [];
  let depth = 0, start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if ("([{".includes(c) || (angles && c === "<")) depth++;
    else if (")]}".includes(c) || (angles && c === ">")) depth--;
    else if (c === "," && depth === 0) parts.push(text.slice(start, i)), start = i + 1;
  }
  return [...parts, text.slice(start)];
}

/**
 * The type parameters of a `template <...>` header bound to an instance's arguments (or their
 * defaults) that name a type the runtime knows: `template <typename T, int N>` and `float, 4`
 * give `T` = `float`.
 */
function templateTypes(header: string, args: readonly string[], aliases: Map<string, string>) {
  const bound = new Map(aliases);
  splitTopLevel(header, true).forEach((part, i) => {
    const m = /^\s*(?:typename|class)\s+([A-Za-z_]\w*)\s*(?:=\s*([\s\S]+))?$/.exec(part);
    const value = args[i] ?? m?.[2];
    if (m === null || value === undefined) return;
    const words = value.trim().split(/\s+/).filter((w) => w !== "const")
      .map((w) => bound.get(w) ?? w); // a default may name an earlier parameter
    const type = baseType(words);
    if (type in C_TYPES) bound.set(m[1], type);
  });
  return bound;
}

/** The launch attributes of a `__global__` function, any number before or after its `void`. */
const ATTRIBUTES = String
  .raw`(?:(?:__launch_bounds__|__maxnreg__|__cluster_dims__|__attribute__)\s*\((?:[^()]|\([^()]*\))*\)\s*)*`;

function globalFunctions(
  source: string,
  kind: "c" | "cxx" | "template",
  args?: readonly string[],
): KernelSignature[] {
  const wantC = kind === "c";
  // `#define KERNEL extern "C" __global__`: the kernels it declares are read as written out
  const live = stripComments(source, true);
  const text = kernelHeads(kernelMacros(stripComments(source), live)); // `void __global__`
  const blocks = externBlocks(text);
  const spaces = externBlocks(text, /\bnamespace\s+([A-Za-z_][\w:]*)\s*\{/g);
  const anonymous = externBlocks(text, /\bnamespace\s*\{/g);
  // `#define real float` names a type as `typedef float real;` does
  const aliases = typeAliases(`${text}\n${defineAliases(live)}`);
  const pointers = pointerAliases(text); // `typedef float* fptr;`
  const structs = structTypes(
    text,
    (name) => C_TYPES[baseType((aliases.get(name) ?? name).split(" "))],
    { packed: PRAGMA_PACK.test(source), alias: (name) => aliases.get(name) ?? name, spaces },
  );
  const found: KernelSignature[] = [];
  const pattern = new RegExp(
    String.raw`(extern\s+"C"\s+)?__global__\s+(?:static\s+)?(${ATTRIBUTES})(?:static\s+)?void\s+` +
      String.raw`(${ATTRIBUTES})([A-Za-z_]\w*)\s*\(((?:[^()]|\((?:[^()]|\([^()]*\))*\))*)\)\s*\{`,
    "g",
  );
  for (const match of text.matchAll(pattern)) {
    const at = match.index!;
    // a template's instances have no name the runtime can know
    const before = text.slice(
      Math.max(text.lastIndexOf(";", at), text.lastIndexOf("}", at)) + 1,
      at,
    );
    // a static kernel, or one of an anonymous namespace (internal linkage), keeps its mangled
    // name in an extern "C" block
    const isStatic = /\bstatic\b/.test(before + match[0].slice(0, match[0].indexOf("("))) ||
      anonymous.some(([s, e]) => at > s && at < e);
    const externC = match[1] !== undefined ||
      (!isStatic && blocks.some(([s, e]) => at > s && at < e));
    if (externC !== wantC) continue;
    if (!wantC && /\btemplate\s*</.test(before) !== (kind === "template")) continue;
    const bounds = /__launch_bounds__\s*\(([^)]*)\)/.exec(match[2] + match[3])?.[1];
    const maxThreads = bounds === undefined ? undefined : Number(bounds.split(",")[0].trim());
    const list = match[5].trim();
    // an instance's type arguments bind the template's type parameters (`T a` is a float)
    const header = args && /\btemplate\s*<([\s\S]*)>/.exec(before)?.[1];
    const types = header ? templateTypes(header, args, aliases) : aliases;
    const params = list === "" || list === "void" ? [] : splitTopLevel(list).map((p, i) => {
      const param = cParam(expandPointerAlias(p, pointers), i, types, structs);
      return { ...param, declared: p.trim().replace(/\s+/g, " ") };
    });
    const outer = spaces.filter(([s, e]) => at > s && at < e).map(([, , name]) => name);
    found.push({
      name: match[4],
      ...(outer.length > 0 ? { qualified: [...outer, match[4]].join("::") } : {}),
      params,
      language: "cuda",
      ...(wantC ? {} : { cxx: true }),
      ...(kind === "template" ? { template: true } : {}),
      ...(Number.isInteger(maxThreads) && maxThreads! > 0 ? { maxThreads } : {}),
    });
  }
  return found;
}

/** What a parameter's declaration may carry that names no type nor the parameter. */
const ATTRIBUTE_LIKE = /\[\[.*?\]\]|__attribute__\s*\(\((?:[^()]|\([^()]*\))*\)\)|=.*$/g;

/** One C parameter declaration. */
function cParam(
  text: string,
  index: number,
  aliases: Map<string, string>,
  structs: ReadonlyMap<string, StructEntry>,
): KernelParam {
  const declared = text.trim().replace(/\s+/g, " ");
  // `[[maybe_unused]]`, `__attribute__((unused))` and a default argument (`float eps = 1e-5f`)
  // name no type
  const tokens = declared.replace(ATTRIBUTE_LIKE, " ").match(/[A-Za-z_]\w*|\*|&|\[/g) ?? [];
  const words: string[] = arrayAsPointer(tokens.map((w) => aliases.get(w) ?? w), declared);
  const star = words.indexOf("*");
  const last = words[words.length - 1];
  // An unnamed parameter (`int`, `unsigned int`) ends with a word of its type.
  // `int half`: a type name the runtime knows (NVRTC not, without its header) names the parameter
  const before = baseType(words.slice(0, -1).filter((w) => w !== "const"));
  const named = words.length > 1 && /^[A-Za-z_]/.test(last) &&
    (!TYPE_WORDS.has(last) || (!SPECIFIERS.has(last) && !IGNORED.has(last) && before in C_TYPES));
  const name = named ? last : `param_${index}`;
  if (words.includes("&")) {
    return { kind: "scalar", name, type: undefined, declared, size: 0 };
  }
  if (star >= 0) {
    const base = words.slice(0, star);
    // `T**` points to pointers (8-byte words): `const T**` may still write them, `const T* const*`
    // may not. (`T**` took T handles and was read-only for the ordering with a `const T`.)
    const levels = words.slice(star).filter((w) => !IGNORED.has(w));
    const inner = levels.slice(0, levels.lastIndexOf("*"));
    const deep = inner.includes("*");
    const readOnly = base.includes("const") &&
      inner.every((w, i) => w !== "*" || inner[i + 1] === "const");
    const typeName = deep ? "uint64_t" : baseType(base.filter((w) => w !== "const"));
    const element = typeName === "void" ? undefined : C_TYPES[typeName];
    const vector = element === undefined ? vectorType(typeName) : undefined;
    if (vector !== undefined) {
      // `float4*` took any handle: a u16 one, or one ending in part of a float4 (read past it).
      const [lanes, type] = [vector[1], vector[0]];
      return { kind: "pointer", name, element: type, readOnly, declared, lanes };
    }
    if (typeName !== "void" && element === undefined) {
      // A pointer to a struct or another type: any handle, bytes as they are.
      return { kind: "pointer", name, element: undefined, readOnly, declared };
    }
    return { kind: "pointer", name, element, readOnly, declared };
  }
  const typeName = baseType((named ? words.slice(0, -1) : words).filter((w) => w !== "const"));
  const type = C_TYPES[typeName];
  // `ns::S s`: a struct of a namespace by its qualified name
  const qualified = /[A-Za-z_]\w*(?:\s*::\s*[A-Za-z_]\w*)+/.exec(declared)?.[0].replace(/\s/g, "");
  const struct = type === undefined
    ? structs.get(qualified ?? typeName) ?? vectorLayout(typeName)
    : undefined;
  const size = type !== undefined ? sizeOf(type) : struct && "size" in struct ? struct.size : 0;
  return {
    kind: "scalar",
    name,
    type,
    ...(typeName === "bool" ? { bool: true } : {}),
    declared,
    size,
    ...(struct !== undefined ? { struct } : {}),
  };
}

export { ptxSignatures } from "./_ptx_signature.ts";

/**
 * The one signature of a module when it has one entry point (or the one named `entryPoint`);
 * `undefined` when there is none or several and no name.
 */
export function pickSignature(
  signatures: readonly KernelSignature[],
  entryPoint: string | undefined,
): KernelSignature | undefined {
  if (entryPoint !== undefined) {
    // `ops::k`: a kernel of a namespace (the source's signatures are unqualified), when unique
    const named = signatures.filter((s) => s.name === entryPoint.split("::").pop());
    return signatures.find((s) => s.name === entryPoint || s.qualified === entryPoint) ??
      (named.length === 1 ? named[0] : undefined);
  }
  return signatures.length === 1 ? signatures[0] : undefined;
}
