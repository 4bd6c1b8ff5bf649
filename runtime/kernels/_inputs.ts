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
 * The handles of `declared` from `given`, in declaration order: `RangeError` for a missing one,
 * `TypeError` for one of another element type.
 */
export function namedInputs(
  kernel: string,
  declared: readonly (readonly [string, ElementType])[],
  given: { readonly [name: string]: Handle },
): Handle[] {
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
}

/**
 * The element count the `inputs` share (4-byte elements), or `fallback` when there is none:
 * `RangeError` naming the first input of another length.
 */
export function commonLength(
  kernel: string,
  inputs: readonly (readonly [string, Handle])[],
  fallback: number,
): number {
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
