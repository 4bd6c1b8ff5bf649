/**
 * The inputs of a helper kernel's run, checked once for element-wise kernels and reductions
 * alike: present by name, of the declared element type (an untyped handle is read as it), and
 * of one length (raw inputs excepted); and the output given as `out`, of the output's type.
 *
 * @module
 */

import type { Handle } from "../core/handles/handle.ts";
import { ComputeClient } from "../client/client.ts";
import { assertKnownKeys, describe } from "../core/_argument_checks.ts";
import type { ElementType } from "./elementwise.ts";

/**
 * The handles of `declared` from `given`, in declaration order: `RangeError` for a missing one
 * or one the kernel does not declare (as an unknown param is refused), `TypeError` for one of
 * another element type.
 */
export function namedInputs(
  kernel: string,
  declared: readonly (readonly [string, ElementType])[],
  given: { readonly [name: string]: Handle },
): Handle[] {
  if (given === null || typeof given !== "object") {
    throw new TypeError(`${kernel}: inputs must be an object of handles by name, got ${given}`);
  }
  for (const name of Object.keys(given)) {
    if (!isDeclared(declared, name)) {
      throw new RangeError(
        `${kernel} has no input "${name}" (its inputs: ${declared.map(([i]) => i).join(", ")})`,
      );
    }
  }
  return declared.map(([input, type]) => {
    const handle = given[input];
    if (handle === undefined) throw new RangeError(`Missing ${kernel} input "${input}"`);
    checkIsHandle(handle, kernel, `input "${input}"`);
    if (handle.dtype !== type && handle.dtype !== "bytes") {
      throw new TypeError(`${kernel} input "${input}" is ${handle.describe()}, not ${type}`);
    }
    return handle;
  });
}

/**
 * Refuses an `out` handle of another element type than the kernel's output (`TypeError`), as
 * {@linkcode namedInputs} refuses an input: the kernel would write its elements' bits into it
 * (on CUDA, nothing else checks it).
 */
export function checkOutput(kernel: string, out: Handle | undefined, type: ElementType): void {
  if (out !== undefined && out.dtype !== type && out.dtype !== "bytes") {
    throw new TypeError(`${kernel} output "out" is ${out.describe()}, not ${type}`);
  }
  if (out !== undefined && out.size() % 4 !== 0) {
    throw new RangeError(
      `${kernel} output "out" must hold whole 4-byte elements: ${out.describe()}`,
    );
  }
}

/** Whether `name` is one of `declared` (a loop: this runs on every launch). */
function isDeclared(declared: readonly (readonly [string, ElementType])[], name: string): boolean {
  for (let k = 0; k < declared.length; k++) if (declared[k][0] === name) return true;
  return false;
}

/**
 * The element count the `inputs` share (4-byte elements), or `fallback` when there is none:
 * `RangeError` naming the first input of another length, or one of a partial element.
 */
export function commonLength(
  kernel: string,
  inputs: readonly (readonly [string, Handle])[],
  fallback: number,
): number {
  for (const [input, handle] of inputs) {
    if (handle.size() % 4 !== 0) {
      // An untyped handle of 6 bytes would make a length of 1.5 elements.
      throw new RangeError(
        `${kernel} input "${input}" must hold whole 4-byte elements: ${handle.describe()}`,
      );
    }
  }
  if (inputs.length === 0) return fallback;
  const [first, handle] = inputs[0];
  const n = handle.size() / 4;
  for (const [input, other] of inputs) {
    if (other.size() !== n * 4) {
      throw new RangeError(
        `${kernel} input "${input}" has ${other.size() / 4} elements, "${first}" has ${n}`,
      );
    }
  }
  return n;
}

/** `TypeError` naming `argument` of `what` unless `value` is a handle (not a typed array...). */
export function checkIsHandle(value: unknown, what: string, argument: string): void {
  const handle = value as Partial<Handle> | null;
  if (handle === null || typeof handle !== "object" || typeof handle.describe !== "function") {
    throw new TypeError(`${what}: ${argument} must be a handle, got ${describe(value)}`);
  }
}

/**
 * Refuses, at the call of helper `what`, a `client` that is not a `ComputeClient` (a handle, a
 * plain object, `undefined`: each failed deep inside before, with a message naming none of them)
 * and `options` that are not an object or hold a key not in `keys` (a typo such as `descend`
 * was ignored, the call ran without it): `TypeError`s naming the argument.
 */
export function checkCall(
  what: string,
  client: unknown,
  options: unknown,
  keys: readonly string[],
): void {
  if (!(client instanceof ComputeClient)) {
    throw new TypeError(
      `${what}: client must be a ComputeClient (from createClient), got ${describe(client)}`,
    );
  }
  if (options !== undefined) assertKnownKeys(options, keys, what);
}

/** Whether two handles' bytes overlap (views of one allocation: clones, `as`, offsets). */
export function overlaps(a: Handle, b: Handle): boolean {
  if (a.slice.record !== b.slice.record) return false;
  const [a0, a1] = bytesOf(a);
  const [b0, b1] = bytesOf(b);
  return a0 < b1 && b0 < a1;
}

/**
 * Refuses (`RangeError` naming both) an output `written` whose memory overlaps one of `read`,
 * which invocations read while others write it: the result would depend on the device's order
 * (a race). Where `inPlace` holds for an input, an output that starts at the input's first byte
 * is allowed (element `i` of both is read, then written, by one invocation).
 */
export function checkNoOverlap(
  kernel: string,
  written: readonly [string, Handle],
  read: readonly (readonly [string, Handle, boolean?])[],
): void {
  const [writtenName, out] = written;
  for (const [name, handle, inPlace] of read) {
    if (!overlaps(out, handle)) continue;
    if (inPlace === true && bytesOf(out)[0] === bytesOf(handle)[0]) continue;
    throw new RangeError(
      `${kernel}: ${writtenName} shares memory with ${name} (${handle.describe()}), which is ` +
        `read while ${writtenName} is written: ` +
        (inPlace === true ? "only the same elements may be written in place; " : "") +
        "write to another handle",
    );
  }
}

function bytesOf(handle: Handle): [number, number] {
  return [handle.offsetStart ?? 0, handle.fullSize - (handle.offsetEnd ?? 0)];
}

/**
 * Checks the WGSL expression `spec[field]` of a helper's spec: a string (`TypeError`) that is not
 * blank (`RangeError`: WGSL reads `f32()` of nothing as 0, so an empty expression gave zeros on
 * WebGPU, a compile error on CUDA). `optional`: may be left out.
 */
export function checkExpression(spec: unknown, field: string, optional = false): void {
  const text = (spec as Record<string, unknown> | undefined)?.[field];
  if (optional && text === undefined) return;
  if (typeof text !== "string") throw new TypeError(`spec.${field} must be a string`);
  if (text.trim() === "") throw new RangeError(`spec.${field} is empty: give a WGSL expression`);
}
