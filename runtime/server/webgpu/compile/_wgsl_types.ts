/**
 * WGSL types as the runtime needs them: sizes, alignments, strides and struct member offsets,
 * normalized from `wgsl_reflect`'s type objects, plus the layout rules of the uniform address
 * space that `wgsl_reflect` does not check.
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
  | { readonly kind: "struct"; readonly name: string; readonly members: readonly WgslMember[] }
  | { readonly kind: "other"; readonly name: string };

/** A scalar type a kernel parameter may have. */
export type WgslScalar = "f32" | "i32" | "u32" | "f16" | "bool";

/** A struct member at its byte offset. */
export interface WgslMember {
  readonly name: string;
  readonly offset: number;
  readonly size: number;
  readonly type: WgslType;
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
    readonly offset: number;
    readonly size: number;
    readonly type: ReflectTypeInfo;
  }[];
}

/** Normalizes a `wgsl_reflect` type (aliases already resolved by the parser). */
export function normalizeType(info: ReflectTypeInfo): WgslType {
  if (info.isStruct) {
    return {
      kind: "struct",
      name: unmangle(info.name),
      members: (info.members ?? []).map((m) => ({
        name: unmangle(m.name),
        offset: m.offset,
        size: m.size,
        type: normalizeType(m.type),
      })),
    };
  }
  if (info.isArray && info.format) {
    const element = normalizeType(info.format);
    const count = info.count ?? 0;
    return {
      kind: "array",
      name: `array<${element.name}${count ? `, ${count}` : ""}>`,
      element,
      count,
      stride: info.stride ?? sizeOf(element),
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
      return Math.max(1, ...type.members.map((m) => alignOf(m.type)));
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
    case "struct": {
      const last = type.members.at(-1);
      const end = last === undefined ? 0 : last.offset + sizeOf(last.type);
      return roundUp(alignOf(type), end);
    }
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
  if (type.kind === "array") {
    if (type.stride % 16 !== 0) {
      return `${path}: ${type.name} has an element stride of ${type.stride} bytes; the uniform ` +
        `address space needs a multiple of 16 (use vec4 elements or a struct with @size(16))`;
    }
    return uniformLayoutProblem(type.element, `${path}[]`);
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
    const problem = uniformLayoutProblem(member.type, where);
    if (problem !== undefined) return problem;
    previous = member;
  }
  return undefined;
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

/** Rounds `n` up to a multiple of `k`. */
export function roundUp(k: number, n: number): number {
  return Math.ceil(n / k) * k;
}
