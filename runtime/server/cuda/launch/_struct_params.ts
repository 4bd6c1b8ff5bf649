/**
 * A struct (or vector type) passed by value to a kernel (`compile/_struct_layout.ts`): `params`
 * gives it as an object of its fields by name (`{ m: 4, n: 8 }`; nested structs as objects,
 * array fields as arrays or typed arrays of their exact length, a vector type also as an array
 * `[x, y, z, w]`), each field checked as a scalar parameter is and named in the error
 * (`params.dims.n`), or as its exact bytes (an `ArrayBuffer`, a `Uint8Array` or a `DataView` of
 * `size` bytes: also the only way to fill a PTX `.b8 p[N]` parameter; a wider typed array only
 * where its elements are the fields' type, so an `Int32Array` is no `float4`). Padding bytes are
 * zero.
 *
 * @module
 */

import { KernelArgumentError } from "../../../core/errors.ts";
import type { StorageType } from "../../../core/kernel_arguments.ts";
import { describe } from "../../../core/_argument_checks.ts";
import type { StructLayout } from "../compile/_struct_layout.ts";

/** Encodes one scalar of `type` (`declared` for messages), checked: `_params.ts`'s `encode`. */
export type ScalarEncoder = (
  kernel: string,
  what: string,
  type: StorageType,
  declared: string,
  bool: boolean,
  value: unknown,
) => Uint8Array;

/**
 * Writes `value`, bytes or fields, into `bytes` at `at` (`size` bytes, zeroed first);
 * `KernelArgumentError` naming the field for a missing, unknown or ill-typed one.
 */
export function writeByValue(
  kernel: string,
  what: string,
  declared: string,
  size: number,
  layout: StructLayout | undefined,
  value: unknown,
  bytes: Uint8Array,
  at: number,
  scalar: ScalarEncoder,
): void {
  bytes.fill(0, at, at + size);
  if (value instanceof ArrayBuffer || ArrayBuffer.isView(value)) {
    const view = value instanceof ArrayBuffer
      ? new Uint8Array(value)
      : new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
    const element = elementOf(value);
    const mismatch = layout && element && scalarTypes(layout).find((t) => !sameKind(t, element));
    if (mismatch) {
      // An Int32Array for a float4 would pass its bits as floats: bytes of a typed array are
      // taken where its element type is its fields' own (a Uint8Array or an ArrayBuffer: any).
      throw new KernelArgumentError(
        kernel,
        what,
        `is a ${value.constructor.name}, but ${layout.name} has ${mismatch} fields: pass its ` +
          `fields, a typed array of their type, or its exact bytes (a Uint8Array or an ArrayBuffer)`,
      );
    }
    if (view.byteLength !== size) {
      throw new KernelArgumentError(
        kernel,
        what,
        `has ${view.byteLength} bytes, but '${declared}' takes ${size}`,
      );
    }
    bytes.set(view, at);
    return;
  }
  if (layout === undefined) {
    throw new KernelArgumentError(
      kernel,
      what,
      `is '${declared}', ${size} bytes the runtime knows no fields of: pass them as an ` +
        `ArrayBuffer or a typed array of ${size} bytes, got ${describe(value)}`,
    );
  }
  writeFields(kernel, what, layout, value, bytes, at, scalar);
}

/** A typed array's element type (signless for integers); none for bytes and a DataView. */
function elementOf(value: ArrayBuffer | ArrayBufferView): string | undefined {
  if (value instanceof ArrayBuffer || value instanceof DataView) return undefined;
  const bytes = (value as Uint8Array).BYTES_PER_ELEMENT;
  if (bytes === 1) return undefined;
  const float = value instanceof Float32Array || value instanceof Float64Array ||
    (typeof Float16Array !== "undefined" && value instanceof Float16Array);
  return `${float ? "f" : "i"}${bytes * 8}`;
}

/** Every scalar type a layout holds, nested structs' included. */
function scalarTypes(layout: StructLayout): StorageType[] {
  return layout.fields.flatMap((f) => typeof f.type === "string" ? [f.type] : scalarTypes(f.type));
}

/** A field of `type` holds the element `element` (`i32` takes an Int32Array or a Uint32Array). */
const sameKind = (type: StorageType, element: string) =>
  (type[0] === "f" ? "f" : "i") + type.slice(1) === element;

function writeFields(
  kernel: string,
  what: string,
  layout: StructLayout,
  value: unknown,
  bytes: Uint8Array,
  at: number,
  scalar: ScalarEncoder,
): void {
  const fields = layout.fields;
  const names = fields.map((f) => f.name);
  let given: Record<string, unknown>;
  if (Array.isArray(value) && fields.every((f, i) => f.name === "xyzw"[i])) {
    // A vector type by position: `[x, y, z, w]`.
    if (value.length !== fields.length) {
      throw new KernelArgumentError(
        kernel,
        what,
        `has ${value.length} values, but ${layout.name} has ${fields.length} (${names})`,
      );
    }
    given = Object.fromEntries(names.map((name, i) => [name, value[i]]));
  } else if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    given = value as Record<string, unknown>;
  } else {
    throw new KernelArgumentError(
      kernel,
      what,
      `must be an object of ${layout.name}'s fields (${names.join(", ")}), got ${describe(value)}`,
    );
  }
  for (const key of Object.keys(given)) {
    if (!names.includes(key)) {
      throw new KernelArgumentError(
        kernel,
        `${what}.${key}`,
        `is not a field of ${layout.name} (${names.join(", ")})`,
      );
    }
  }
  for (const field of fields) {
    const path = `${what}.${field.name}`;
    const item = Object.hasOwn(given, field.name) ? given[field.name] : undefined;
    if (item === undefined) {
      throw new KernelArgumentError(kernel, path, `is missing (a field of ${layout.name})`);
    }
    const type = field.type;
    const declared = typeof type === "string" ? type : type.name;
    const one = typeof type === "string" ? Number(/\d+/.exec(type)![0]) / 8 : type.size;
    const write = (v: unknown, where: string, offset: number) => {
      if (typeof type === "string") {
        bytes.set(scalar(kernel, where, type, declared, field.bool === true, v), offset);
      } else {
        // a nested struct or vector type: its fields, or its bytes as one given by value
        writeByValue(kernel, where, type.name, type.size, type, v, bytes, offset, scalar);
      }
    };
    if (field.count === undefined) {
      write(item, path, at + field.offset);
      continue;
    }
    const list = item as ArrayLike<unknown>;
    if (
      !(Array.isArray(item) || ArrayBuffer.isView(item)) || typeof list.length !== "number" ||
      list.length !== field.count
    ) {
      throw new KernelArgumentError(
        kernel,
        path,
        `must be an array of ${field.count} ${declared}, got ${describe(item)}`,
      );
    }
    for (let i = 0; i < field.count; i++) {
      write(list[i], `${path}[${i}]`, at + field.offset + i * one);
    }
  }
}
