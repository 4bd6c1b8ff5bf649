/**
 * What the primitives of `histogram/`, `scatter/`, `random/` and `linalg/` share: argument checks
 * that name the argument, the index arithmetic of launches that must stay under llvmpipe's loop
 * limit, and an output that is disposed when its launch throws. (The kernel text of the client's
 * backend is chosen in `_backend_kernels.ts`.)
 *
 * @module
 */

import type { ComputeClient } from "../client/client.ts";
import type { Handle } from "../core/handles/handle.ts";
import type { StreamId } from "../core/stream_id.ts";
import type { ElementType } from "./elementwise.ts";

/** A kernel's text for one backend: its id (cache key, name in errors) and its source. */
export interface KernelText {
  readonly id: string;
  readonly source: string;
}

/** Invocations per workgroup of the primitives' one-dimensional kernels (fastest on llvmpipe). */
export const WORKGROUP = 64;

/**
 * Most iterations of one invocation's loops. Quirk: Mesa's llvmpipe stops an invocation's loops
 * after 65,535 iterations in all, silently; the kernels here stay far below and add workgroups.
 */
export const LOOP_LIMIT = 4096;

/**
 * The element type of `handle`, which must be one of `allowed` (an untyped handle is read as
 * the first of them) and whole 4-byte elements: `TypeError` naming `argument` otherwise.
 */
export function elementType(
  handle: Handle,
  argument: string,
  what: string,
  allowed: readonly ElementType[],
): ElementType {
  if (handle === null || typeof handle !== "object" || typeof handle.size !== "function") {
    throw new TypeError(`${what}: ${argument} must be a handle, got ${String(handle)}`);
  }
  const dtype = handle.dtype === "bytes" ? allowed[0] : handle.dtype;
  if (!(allowed as readonly string[]).includes(dtype)) {
    throw new TypeError(
      `${what}: ${argument} must hold ${allowed.join(" or ")} elements, got ${handle.describe()}`,
    );
  }
  if (handle.size() % 4 !== 0) {
    throw new RangeError(
      `${what}: ${argument} must hold whole 4-byte elements: ${handle.describe()}`,
    );
  }
  return dtype as ElementType;
}

/** `value` as a count: `RangeError` naming `argument` unless a safe integer >= `min`. */
export function count(value: unknown, argument: string, what: string, min = 0): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < min) {
    throw new RangeError(`${what}: ${argument} must be an integer >= ${min}, got ${String(value)}`);
  }
  return value;
}

/** `value` as a finite number: `RangeError` naming `argument` otherwise. */
export function finite(value: unknown, argument: string, what: string): number {
  if (typeof value !== "number" || !Number.isFinite(value)) {
    throw new RangeError(`${what}: ${argument} must be a finite number, got ${String(value)}`);
  }
  return value;
}

/**
 * Runs `launch` with a fresh output of `length` elements of `dtype` (zeroed with `zero`) and
 * returns it; disposes it if `launch` throws.
 */
export function withOutput<D extends ElementType>(
  client: ComputeClient,
  length: number,
  dtype: D,
  options: { readonly stream?: StreamId; readonly zero?: boolean },
  launch: (out: Handle<D>) => void,
): Handle<D> {
  const { stream } = options;
  const out = options.zero
    ? client.zeros(length, dtype, { stream })
    : client.empty(length, dtype, { stream });
  try {
    launch(out);
  } catch (error) {
    out.dispose();
    throw error;
  }
  return out;
}

/**
 * Chunks of at most {@linkcode LOOP_LIMIT} items for `n` items spread over about `target`
 * invocations: how many items each invocation loops over (`per`), and how many invocations
 * (`invocations`). At least one invocation.
 */
export function chunked(n: number, target: number): { per: number; invocations: number } {
  const per = Math.min(LOOP_LIMIT, Math.max(1, Math.ceil(n / Math.max(1, target))));
  return { per, invocations: Math.max(1, Math.ceil(n / per)) };
}
