/**
 * Packs named kernel parameters into the bytes of the kernel's `var<uniform>` bindings, at the
 * offsets reflected from the WGSL (whose uniform layout rules `_reflect.ts` has checked).
 *
 * With one uniform of struct type, `params` are its fields by name; otherwise (several uniforms,
 * or one of a scalar, vector or array type) they are the uniform variables by name. Every field
 * must be given, no other may be, and every value must fit its WGSL type: the first violation is
 * a `KernelArgumentError` naming the field (`params.inner.scale`).
 *
 * @module
 */

import { KernelArgumentError } from "../../core/errors.ts";
import type { KernelParams, ParamValue } from "../../core/kernel.ts";
import { describe } from "../../core/_validate.ts";
import type { ReflectedBinding } from "./_reflect.ts";
import { alignOf, roundUp, sizeOf, type WgslType } from "./_wgsl_types.ts";

/** The bytes of one uniform binding. */
export interface PackedUniform {
  readonly binding: number;
  readonly bytes: Uint8Array;
}

const F32_MAX = 3.4028234663852886e38;
const F16_MAX = 65504;

/** Packs `params` into one byte array per uniform binding (each a multiple of 16 bytes). */
export function packParams(
  kernel: string,
  uniforms: readonly ReflectedBinding[],
  params: KernelParams | undefined,
): PackedUniform[] {
  if (params !== undefined && (typeof params !== "object" || params === null)) {
    throw new KernelArgumentError(kernel, "params", `must be an object, got ${describe(params)}`);
  }
  const given = params ?? {};
  if (uniforms.length === 0) {
    const names = Object.keys(given);
    if (names.length === 0) return [];
    throw new KernelArgumentError(
      kernel,
      `params.${names[0]}`,
      "was given but the WGSL declares no var<uniform> to hold params",
    );
  }
  const only = uniforms.length === 1 ? uniforms[0] : undefined;
  if (only !== undefined && only.type.kind === "struct") {
    const bytes = new Uint8Array(roundUp(16, only.minSize));
    writeStruct(new Context(kernel, bytes), only.type, 0, given, "params");
    return [{ binding: only.binding, bytes }];
  }
  const fields = uniforms.map((u) => ({ name: u.name, offset: 0, type: u.type }));
  checkNames(kernel, fields.map((f) => f.name), given, "params", "uniform variables");
  return uniforms.map((uniform) => {
    const bytes = new Uint8Array(roundUp(16, uniform.minSize));
    write(
      new Context(kernel, bytes),
      uniform.type,
      0,
      given[uniform.name],
      `params.${uniform.name}`,
    );
    return { binding: uniform.binding, bytes };
  });
}

class Context {
  readonly view: DataView;
  constructor(readonly kernel: string, bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer);
  }
  fail(path: string, problem: string): never {
    throw new KernelArgumentError(this.kernel, path, problem);
  }
}

function checkNames(
  kernel: string,
  names: readonly string[],
  value: { readonly [name: string]: ParamValue },
  path: string,
  what: string,
): void {
  for (const key of Object.keys(value)) {
    if (!names.includes(key)) {
      throw new KernelArgumentError(
        kernel,
        `${path}.${key}`,
        `is not one of the ${what} (${names.join(", ")})`,
      );
    }
  }
}

function writeStruct(
  context: Context,
  type: Extract<WgslType, { kind: "struct" }>,
  base: number,
  value: ParamValue | undefined,
  path: string,
): void {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    context.fail(
      path,
      `must be an object with the fields of struct ${type.name}, got ${describe(value)}`,
    );
  }
  const record = value as { readonly [name: string]: ParamValue };
  checkNames(
    context.kernel,
    type.members.map((m) => m.name),
    record,
    path,
    `fields of struct ${type.name}`,
  );
  for (const member of type.members) {
    write(
      context,
      member.type,
      base + member.offset,
      record[member.name],
      `${path}.${member.name}`,
    );
  }
}

function write(
  context: Context,
  type: WgslType,
  offset: number,
  value: ParamValue | undefined,
  path: string,
): void {
  if (value === undefined) {
    context.fail(path, `is missing (${type.name} at byte ${offset})`);
  }
  switch (type.kind) {
    case "scalar":
      return writeScalar(context, type.scalar, offset, value, path);
    case "vector":
      return writeList(
        context,
        type.components,
        type.name,
        value,
        path,
        (item, i, at) =>
          writeScalar(
            context,
            type.scalar,
            offset + i * sizeOf({ ...type, kind: "scalar" }),
            item,
            at,
          ),
      );
    case "matrix": {
      const column = alignOf(type);
      const scalar = sizeOf({ kind: "scalar", name: type.scalar, scalar: type.scalar });
      return writeList(
        context,
        type.columns * type.rows,
        `${type.name} (column-major)`,
        value,
        path,
        (item, i, at) =>
          writeScalar(
            context,
            type.scalar,
            offset + Math.floor(i / type.rows) * column + (i % type.rows) * scalar,
            item,
            at,
          ),
      );
    }
    case "array":
      if (type.count === 0) {
        context.fail(path, `is a runtime-sized array, which a uniform cannot hold`);
      }
      return writeList(
        context,
        type.count,
        type.name,
        value,
        path,
        (item, i, at) => write(context, type.element, offset + i * type.stride, item, at),
      );
    case "struct":
      return writeStruct(context, type, offset, value, path);
    default:
      context.fail(path, `has type ${type.name}, which params cannot fill`);
  }
}

function writeList(
  context: Context,
  length: number,
  typeName: string,
  value: ParamValue,
  path: string,
  each: (item: ParamValue, index: number, path: string) => void,
): void {
  if (!Array.isArray(value) && !ArrayBuffer.isView(value)) {
    context.fail(
      path,
      `must be an array of ${length} values (${typeName}), got ${describe(value)}`,
    );
  }
  const list = value as ArrayLike<ParamValue>;
  if (list.length !== length) {
    context.fail(path, `must have ${length} values (${typeName}), got ${list.length}`);
  }
  for (let i = 0; i < length; i++) each(list[i], i, `${path}[${i}]`);
}

function writeScalar(
  context: Context,
  scalar: string,
  offset: number,
  value: ParamValue | undefined,
  path: string,
): void {
  const view = context.view;
  if (typeof value === "bigint" && (scalar === "u32" || scalar === "i32")) value = Number(value);
  if (typeof value !== "number") {
    context.fail(path, `must be a number (${scalar}), got ${describe(value)}`);
  }
  switch (scalar) {
    case "f32":
      if (Number.isFinite(value) && Math.abs(value) > F32_MAX) {
        context.fail(path, `is ${value}, beyond the largest f32 (${F32_MAX})`);
      }
      return view.setFloat32(offset, value, true);
    case "f16":
      if (Number.isFinite(value) && Math.abs(value) > F16_MAX) {
        context.fail(path, `is ${value}, beyond the largest f16 (${F16_MAX})`);
      }
      return view.setFloat16(offset, value, true);
    case "u32":
      if (!Number.isInteger(value) || value < 0 || value > 0xffff_ffff) {
        context.fail(path, `must be an integer in [0, 4294967295] (u32), got ${value}`);
      }
      return view.setUint32(offset, value, true);
    case "i32":
      if (!Number.isInteger(value) || value < -0x8000_0000 || value > 0x7fff_ffff) {
        context.fail(path, `must be an integer in [-2147483648, 2147483647] (i32), got ${value}`);
      }
      return view.setInt32(offset, value, true);
    default:
      context.fail(path, `has type ${scalar}, which params cannot fill`);
  }
}
