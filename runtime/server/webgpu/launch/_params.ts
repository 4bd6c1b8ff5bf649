/**
 * Packs named kernel parameters into the bytes of the kernel's `var<uniform>` bindings, at the
 * offsets reflected from the WGSL (whose uniform layout rules `compile/_reflect.ts` has checked).
 *
 * With one uniform of struct type, `params` are its fields by name; otherwise (several uniforms,
 * or one of a scalar, vector or array type) they are the uniform variables by name. Every field
 * must be given, no other may be, and every value must fit its WGSL type: the first violation is
 * a `KernelArgumentError` naming the field (`params.inner.scale`).
 *
 * @module
 */

import { KernelArgumentError } from "../../../core/errors.ts";
import type { KernelParams, ParamValue } from "../../../core/kernel.ts";
import { describe } from "../../../core/_argument_checks.ts";
import type { ReflectedBinding } from "../compile/_reflect.ts";
import { alignOf, roundUp, sizeOf, type WgslType } from "../compile/_wgsl_types.ts";

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
  const given = checkParams(kernel, uniforms, params);
  return uniforms.map((uniform, index) => {
    const bytes = new Uint8Array(uniformSize(uniform));
    writeUniform(kernel, uniforms, index, given, new DataView(bytes.buffer), 0);
    return { binding: uniform.binding, bytes };
  });
}

/** The bytes of a uniform binding: its WGSL size rounded up to 16. */
export function uniformSize(uniform: ReflectedBinding): number {
  return roundUp(16, uniform.minSize);
}

/**
 * Checks the names of `params` against the uniforms (every field given, no other; see the module
 * doc) and returns them (an empty object for `undefined`): `KernelArgumentError` naming the first
 * violation. The values are checked as {@linkcode writeUniform} writes them.
 */
export function checkParams(
  kernel: string,
  uniforms: readonly ReflectedBinding[],
  params: KernelParams | undefined,
): KernelParams {
  if (params !== undefined && (typeof params !== "object" || params === null)) {
    throw new KernelArgumentError(kernel, "params", `must be an object, got ${describe(params)}`);
  }
  const given = params ?? NO_PARAMS;
  if (uniforms.length === 0) {
    for (const name in given) {
      if (!Object.hasOwn(given, name)) continue;
      throw new KernelArgumentError(
        kernel,
        `params.${name}`,
        "was given but the WGSL declares no var<uniform> to hold params",
      );
    }
    return given;
  }
  const only = uniforms.length === 1 ? uniforms[0] : undefined;
  if (only !== undefined && only.type.kind === "struct") {
    // Checked before anything is reserved, so a bad launch leaves no bytes behind.
    checkStruct(kernel, only.type, given, "params");
  } else {
    checkNames(kernel, uniforms.map((u) => u.name), given, "params", "uniform variables");
  }
  return given;
}

/**
 * Writes the bytes of `uniforms[index]` from checked `params` (see {@linkcode checkParams}) at
 * `base` in `view`, whose {@linkcode uniformSize} bytes there are zero; `KernelArgumentError`
 * for a value its WGSL type cannot hold.
 */
export function writeUniform(
  kernel: string,
  uniforms: readonly ReflectedBinding[],
  index: number,
  params: KernelParams,
  view: DataView,
  base: number,
): void {
  const uniform = uniforms[index];
  if (uniforms.length === 1 && uniform.type.kind === "struct") {
    writeStruct(context(kernel, view, base), uniform.type, base, params, "params");
    return;
  }
  write(
    context(kernel, view, base),
    uniform.type,
    base,
    own(params, uniform.name),
    "params",
    uniform.name,
  );
}

const NO_PARAMS: KernelParams = Object.freeze({});

/**
 * `record[name]` when `record` has it itself: a uniform or member named `constructor` or
 * `toString` (valid WGSL) left out of params is missing, not `Object.prototype`'s function.
 */
function own(
  record: { readonly [name: string]: ParamValue },
  name: string,
): ParamValue | undefined {
  return Object.hasOwn(record, name) ? record[name] : undefined;
}

/** The kernel, the view written and the uniform's start in it (for messages). */
interface Context {
  kernel: string;
  view: DataView;
  base: number;
}

// One context reused by every (synchronous, non-reentrant) packing: nothing allocated per launch.
const CONTEXT: Context = { kernel: "", view: new DataView(new ArrayBuffer(0)), base: 0 };

function context(kernel: string, view: DataView, base: number): Context {
  CONTEXT.kernel = kernel;
  CONTEXT.view = view;
  CONTEXT.base = base;
  return CONTEXT;
}

function fail(context: Context, path: string, problem: string): never {
  throw new KernelArgumentError(context.kernel, path, problem);
}

/** Member names of each struct type, computed once. */
const memberNames = new WeakMap<object, readonly string[]>();

function namesOf(type: Extract<WgslType, { kind: "struct" }>): readonly string[] {
  let names = memberNames.get(type);
  if (names === undefined) memberNames.set(type, names = type.members.map((m) => m.name));
  return names;
}

function checkStruct(
  kernel: string,
  type: Extract<WgslType, { kind: "struct" }>,
  value: ParamValue | undefined,
  path: string,
): void {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new KernelArgumentError(
      kernel,
      path,
      `must be an object with the fields of struct ${type.name}, got ${describe(value)}`,
    );
  }
}

function checkNames(
  kernel: string,
  names: readonly string[],
  value: { readonly [name: string]: ParamValue },
  path: string,
  what: string,
  struct?: string,
): void {
  for (const key in value) {
    if (Object.hasOwn(value, key) && !names.includes(key)) {
      throw new KernelArgumentError(
        kernel,
        `${path}.${key}`,
        `is not one of the ${what}${struct === undefined ? "" : ` ${struct}`} (${
          names.join(", ")
        })`,
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
  checkStruct(context.kernel, type, value, path);
  const record = value as { readonly [name: string]: ParamValue };
  checkNames(context.kernel, namesOf(type), record, path, "fields of struct", type.name);
  for (const member of type.members) {
    // Explicit padding (`_pad0: f32`) may be left out: the range is zeroed.
    const field = own(record, member.name);
    if (field === undefined && member.name.startsWith("_")) continue;
    write(context, member.type, base + member.offset, field, path, member.name);
  }
}

/**
 * The name of a value in messages: `path` itself, or its member `key` (a name) or item `key` (an
 * index). Built only where a message or a nested value needs it: a launch writing valid params
 * builds no string.
 */
function pathOf(path: string, key: string | number | undefined): string {
  return key === undefined ? path : typeof key === "number" ? `${path}[${key}]` : `${path}.${key}`;
}

function write(
  context: Context,
  type: WgslType,
  offset: number,
  value: ParamValue | undefined,
  parent: string,
  key?: string | number,
): void {
  if (value === undefined) {
    fail(
      context,
      pathOf(parent, key),
      `is missing (${type.name} at byte ${offset - context.base})`,
    );
  }
  switch (type.kind) {
    case "scalar":
      return writeScalar(context, type.scalar, offset, value, parent, key);
    case "vector": {
      const path = pathOf(parent, key);
      const list = listOf(context, type.components, type.name, value, path);
      const size = sizeOf(type) / type.components; // one component's
      for (let i = 0; i < list.length; i++) {
        writeScalar(context, type.scalar, offset + i * size, list[i], path, i);
      }
      return;
    }
    case "matrix": {
      const path = pathOf(parent, key);
      const column = alignOf(type);
      const scalar = sizeOf({ kind: "scalar", name: type.scalar, scalar: type.scalar });
      const list = listOf(
        context,
        type.columns * type.rows,
        `${type.name} (column-major)`,
        value,
        path,
      );
      for (let i = 0; i < list.length; i++) {
        const at = offset + Math.floor(i / type.rows) * column + (i % type.rows) * scalar;
        writeScalar(context, type.scalar, at, list[i], path, i);
      }
      return;
    }
    case "array": {
      const path = pathOf(parent, key);
      if (type.count === 0) {
        fail(context, path, `is a runtime-sized array, which a uniform cannot hold`);
      }
      const list = listOf(context, type.count, type.name, value, path);
      for (let i = 0; i < list.length; i++) {
        write(context, type.element, offset + i * type.stride, list[i], path, i);
      }
      return;
    }
    case "struct":
      return writeStruct(context, type, offset, value, pathOf(parent, key));
    default:
      fail(context, pathOf(parent, key), `has type ${type.name}, which params cannot fill`);
  }
}

/** `value` as a list of `length` items (an array or a typed array), else a refusal. */
function listOf(
  context: Context,
  length: number,
  typeName: string,
  value: ParamValue,
  path: string,
): ArrayLike<ParamValue> {
  if (!Array.isArray(value) && !ArrayBuffer.isView(value)) {
    fail(
      context,
      path,
      `must be an array of ${length} values (${typeName}), got ${describe(value)}`,
    );
  }
  const list = value as ArrayLike<ParamValue>;
  if (list.length !== length) {
    fail(context, path, `must have ${length} values (${typeName}), got ${list.length}`);
  }
  return list;
}

function writeScalar(
  context: Context,
  scalar: string,
  offset: number,
  value: ParamValue | undefined,
  parent: string,
  key?: string | number,
): void {
  const view = context.view;
  if (typeof value === "bigint" && (scalar === "u32" || scalar === "i32")) value = Number(value);
  if (typeof value !== "number") {
    fail(context, pathOf(parent, key), `must be a number (${scalar}), got ${describe(value)}`);
  }
  switch (scalar) {
    case "f32":
      if (Number.isFinite(value) && !Number.isFinite(Math.fround(value))) {
        fail(
          context,
          pathOf(parent, key),
          `is ${value}, beyond the largest f32 (${F32_MAX}): it would be Infinity`,
        );
      }
      return view.setFloat32(offset, value, true);
    case "f16":
      if (Number.isFinite(value) && !Number.isFinite(Math.f16round(value))) {
        fail(
          context,
          pathOf(parent, key),
          `is ${value}, beyond the largest f16 (${F16_MAX}): it would be Infinity`,
        );
      }
      return view.setFloat16(offset, value, true);
    case "u32":
      if (!Number.isInteger(value) || value < 0 || value > 0xffff_ffff) {
        fail(
          context,
          pathOf(parent, key),
          `must be an integer in [0, 4294967295] (u32), got ${value}`,
        );
      }
      return view.setUint32(offset, value, true);
    case "i32":
      if (!Number.isInteger(value) || value < -0x8000_0000 || value > 0x7fff_ffff) {
        fail(
          context,
          pathOf(parent, key),
          `must be an integer in [-2147483648, 2147483647] (i32), got ${value}`,
        );
      }
      return view.setInt32(offset, value, true);
    default:
      fail(context, pathOf(parent, key), `has type ${scalar}, which params cannot fill`);
  }
}
