/**
 * WGSL types as the runtime needs them: sizes, alignments, strides and struct member offsets,
 * normalized from `wgsl_reflect`'s type objects, plus the layout rules of the uniform address
 * space that `wgsl_reflect` does not check.
 *
 * The layout is computed here by WGSL's rules (§ Memory layout), never taken from the parser:
 * `wgsl_reflect` 1.6 ignores an `@align` inside a nested struct (`struct O { @align(32) x: f32 }`
 * placed after a vec4f reads at 16, not 32: params were packed where the shader does not read)
 * and in array strides, and its struct size ignores a last member's `@size`.
 *
 * @module
 */

import { unmangle } from "./_wgsl_source.ts";

/** A host-shareable WGSL type with its layout. */
export type WgslType =
  | { readonly kind: "scalar"; readonly name: string; readonly scalar: WgslScalar }
  | {
    readonly kind: "vector";
    readonly name: string;
    readonly scalar: WgslScalar;
    readonly components: number;
  }
  | {
    readonly kind: "matrix";
    readonly name: string;
    readonly scalar: WgslScalar;
    readonly columns: number;
    readonly rows: number;
  }
  | { readonly kind: "atomic"; readonly name: string; readonly scalar: WgslScalar }
  | {
    readonly kind: "array";
    readonly name: string;
    readonly element: WgslType;
    /** Element count; 0 for a runtime-sized array. */
    readonly count: number;
    readonly stride: number;
  }
  | {
    readonly kind: "struct";
    readonly name: string;
    readonly members: readonly WgslMember[];
    /** `AlignOf`: the largest member alignment, `@align` attributes included. */
    readonly align: number;
    /** `SizeOf`: the end of the last member (`@size` included) rounded up to `align`. */
    readonly size: number;
  }
  | { readonly kind: "other"; readonly name: string };

/** A scalar type a kernel parameter may have. */
export type WgslScalar = "f32" | "i32" | "u32" | "f16" | "bool";

/** A struct member at its byte offset. */
export interface WgslMember {
  readonly name: string;
  readonly offset: number;
  readonly size: number;
  readonly type: WgslType;
  /** Its `@align(n)`, if written. */
  readonly align?: number;
  /** Its `@size(n)`, if written. */
  readonly explicitSize?: number;
}

const SUFFIX: Record<string, WgslScalar> = { f: "f32", i: "i32", u: "u32", h: "f16" };
const SCALAR_SIZE: Record<WgslScalar, number> = { f32: 4, i32: 4, u32: 4, f16: 2, bool: 4 };

/** The subset of `wgsl_reflect`'s `TypeInfo` read here. */
export interface ReflectTypeInfo {
  readonly name: string;
  readonly size: number;
  readonly isArray: boolean;
  readonly isStruct: boolean;
  readonly format?: ReflectTypeInfo | null;
  readonly count?: number;
  readonly stride?: number;
  readonly members?: readonly {
    readonly name: string;
    readonly type: ReflectTypeInfo;
    /** The member's attributes: `@align(n)` and `@size(n)` (their arguments already numbers). */
    readonly attributes?: readonly { readonly name: string; readonly value: unknown }[] | null;
  }[];
}

/** Normalizes a `wgsl_reflect` type (aliases already resolved by the parser). */
export function normalizeType(info: ReflectTypeInfo): WgslType {
  if (info.isStruct) {
    const members: WgslMember[] = [];
    let end = 0;
    let align = 1;
    for (const m of info.members ?? []) {
      const type = normalizeType(m.type);
      const explicitAlign = attribute(m.attributes, "align");
      const explicitSize = attribute(m.attributes, "size");
      const memberAlign = explicitAlign ?? alignOf(type);
      const offset = roundUp(memberAlign, end);
      const size = explicitSize ?? sizeOf(type);
      members.push({
        name: unmangle(m.name),
        offset,
        size,
        type,
        align: explicitAlign,
        explicitSize,
      });
      end = offset + size;
      align = Math.max(align, memberAlign);
    }
    return { kind: "struct", name: unmangle(info.name), members, align, size: roundUp(align, end) };
  }
  if (info.isArray && info.format) {
    const element = normalizeType(info.format);
    const count = info.count ?? 0;
    return {
      kind: "array",
      name: `array<${element.name}${count ? `, ${count}` : ""}>`,
      element,
      count,
      stride: roundUp(alignOf(element), sizeOf(element)),
    };
  }
  const name = info.name;
  const format = info.format?.name as WgslScalar | undefined;
  if (["f32", "i32", "u32", "f16", "bool"].includes(name)) {
    return { kind: "scalar", name, scalar: name as WgslScalar };
  }
  if (name === "atomic" && format) {
    return { kind: "atomic", name: `atomic<${format}>`, scalar: format };
  }
  const vector = /^vec([234])([fiuh]?)$/.exec(name);
  if (vector) {
    const scalar = SUFFIX[vector[2]] ?? format;
    if (scalar) {
      return {
        kind: "vector",
        name: `vec${vector[1]}<${scalar}>`,
        scalar,
        components: Number(vector[1]),
      };
    }
  }
  const matrix = /^mat([234])x([234])([fh]?)$/.exec(name);
  if (matrix) {
    const scalar = SUFFIX[matrix[3]] ?? format;
    if (scalar) {
      return {
        kind: "matrix",
        name: `mat${matrix[1]}x${matrix[2]}<${scalar}>`,
        scalar,
        columns: Number(matrix[1]),
        rows: Number(matrix[2]),
      };
    }
  }
  return { kind: "other", name };
}

/** `AlignOf(T)` in the storage address space. */
export function alignOf(type: WgslType): number {
  switch (type.kind) {
    case "scalar":
    case "atomic":
      return SCALAR_SIZE[type.scalar];
    case "vector":
      return SCALAR_SIZE[type.scalar] * (type.components === 2 ? 2 : 4);
    case "matrix":
      return SCALAR_SIZE[type.scalar] * (type.rows === 2 ? 2 : 4);
    case "array":
      return alignOf(type.element);
    case "struct":
      return type.align;
    case "other":
      return 4;
  }
}

/** `SizeOf(T)`; a runtime-sized array counts one element (WebGPU's minimum binding size). */
export function sizeOf(type: WgslType): number {
  switch (type.kind) {
    case "scalar":
    case "atomic":
      return SCALAR_SIZE[type.scalar];
    case "vector":
      return SCALAR_SIZE[type.scalar] * type.components;
    case "matrix":
      return type.columns * alignOf(type);
    case "array":
      return Math.max(1, type.count) * type.stride;
    case "struct":
      return type.size;
    case "other":
      return 0;
  }
}

/**
 * The first violation of the uniform address space's layout rules in `type`, or `undefined`.
 * (WGSL: array strides are multiples of 16; struct and array members start at multiples of 16;
 * a member after a struct starts at least `roundUp(16, SizeOf(S))` after it.)
 */
export function uniformLayoutProblem(type: WgslType, path: string): string | undefined {
  return rulesProblem(type, path) ?? nagaLayoutProblem(type, path);
}

function rulesProblem(type: WgslType, path: string): string | undefined {
  if (type.kind === "array") {
    if (type.stride % 16 !== 0) {
      return `${path}: ${type.name} has an element stride of ${type.stride} bytes; the uniform ` +
        `address space needs a multiple of 16 (use vec4 elements or a struct with @size(16))`;
    }
    return rulesProblem(type.element, `${path}[]`);
  }
  if (type.kind !== "struct") return undefined;
  let previous: WgslMember | undefined;
  for (const member of type.members) {
    const where = `${path}.${member.name}`;
    const nested = member.type.kind === "struct" || member.type.kind === "array";
    if (nested && member.offset % 16 !== 0) {
      return `${where}: ${member.type.name} starts at byte ${member.offset}; the uniform address ` +
        `space needs a multiple of 16 (add @align(16))`;
    }
    if (previous?.type.kind === "struct") {
      const end = previous.offset + roundUp(16, sizeOf(previous.type));
      if (member.offset < end) {
        return `${where} starts at byte ${member.offset}, inside the 16-byte-rounded struct ` +
          `${path}.${previous.name} that ends at byte ${end} in the uniform address space`;
      }
    }
    const problem = rulesProblem(member.type, where);
    if (problem !== undefined) return problem;
    previous = member;
  }
  return undefined;
}

/**
 * Where wgpu's WGSL compiler (naga) lays `type` out otherwise than WGSL's rules: naga does not
 * let an `@align` inside a struct raise the struct's own alignment (gfx-rs/wgpu#4377), so a
 * member of such a struct type sits at a lower offset there than in Dawn/Tint. The runtime packs
 * params at one offset; on one of the two the shader would read another, so such a uniform is
 * refused, naming the member and the `@align` that makes both agree.
 */
function nagaLayoutProblem(type: WgslType, path: string): string | undefined {
  if (type.kind === "array") return nagaLayoutProblem(type.element, `${path}[]`);
  if (type.kind !== "struct") return undefined;
  let end = 0;
  for (const member of type.members) {
    const where = `${path}.${member.name}`;
    const naga = roundUp(member.align ?? nagaAlign(member.type), end);
    if (naga !== member.offset) {
      return `${where} (${member.type.name}) is at byte ${member.offset} by WGSL's layout ` +
        `rules but at byte ${naga} in wgpu's compiler, which does not let an @align inside a ` +
        `struct align the struct itself (gfx-rs/wgpu#4377): write @align(${
          alignOf(member.type)
        }) on ${where} so every WebGPU implementation places it alike`;
    }
    const problem = nagaLayoutProblem(member.type, where);
    if (problem !== undefined) return problem;
    end = member.offset + member.size;
  }
  return undefined;
}

/** A type's alignment as naga computes it: a struct's from its member types only. */
function nagaAlign(type: WgslType): number {
  if (type.kind === "struct") return Math.max(1, ...type.members.map((m) => nagaAlign(m.type)));
  if (type.kind === "array") return nagaAlign(type.element);
  return alignOf(type);
}

/**
 * The scalar every element of a storage type holds (`array<vec4f>`: f32, `atomic<u32>`: u32),
 * or `undefined` when the type holds a struct (checked by size only).
 */
export function elementScalar(type: WgslType): WgslScalar | undefined {
  switch (type.kind) {
    case "scalar":
    case "vector":
    case "matrix":
    case "atomic":
      return type.scalar;
    case "array":
      return elementScalar(type.element);
    default:
      return undefined;
  }
}

/** The element stride of a runtime-sized array type, else 0 (a fixed-size type). */
export function runtimeStride(type: WgslType): number {
  return type.kind === "array" && type.count === 0 ? type.stride : 0;
}

/** A member's `@align(n)` or `@size(n)` argument, if it has one. */
function attribute(
  attributes: readonly { readonly name: string; readonly value: unknown }[] | null | undefined,
  name: "align" | "size",
): number | undefined {
  const value = attributes?.find((a) => a.name === name)?.value;
  return value === undefined ? undefined : Number(String(value).replace(/[iu]$/, ""));
}

/** Rounds `n` up to a multiple of `k`. */
export function roundUp(k: number, n: number): number {
  return Math.ceil(n / k) * k;
}
