/**
 * Argument checks of the client's calls: options objects, handles, element types.
 *
 * @module
 */

import {
  assertDType,
  type DType,
  type TypedArray,
  type TypedArrayConstructor,
} from "../core/dtype.ts";
import { Handle } from "../core/handles/handle.ts";
import { resolveStreamId, type StreamId } from "../core/stream_id.ts";
import { assertKnownKeys, describe } from "../core/_argument_checks.ts";
import { checkReadType } from "./_host_data.ts";
import type { StreamOptions } from "./options.ts";

/**
 * Throws `TypeError` unless `options` is an object, holding only `keys` when they are given (a
 * misspelt option, `strem` or `offest`, would be ignored and the call run without it); `call`
 * names the call in the message.
 */
export function checkOptions(options: unknown, keys?: readonly string[], call?: string): void {
  if (typeof options !== "object" || options === null) {
    throw new TypeError(`options must be an object, got ${describe(options)}`);
  }
  if (keys !== undefined) assertKnownKeys(options, keys, call ?? "options");
}

/** `StreamOptions`' keys. */
export const STREAM_KEYS: readonly string[] = ["stream"];

/** The stream of `options` (`StreamOptions` of `call`, checked), the current one by default. */
export function streamOf(options: StreamOptions | undefined, call: string): StreamId {
  if (options === undefined) return resolveStreamId(undefined);
  checkOptions(options, STREAM_KEYS, call);
  return resolveStreamId(options.stream);
}

/** Throws `TypeError` unless `handle` is a {@linkcode Handle}; `what` names the argument. */
export function checkHandle(handle: unknown, what: string): asserts handle is Handle {
  checkInstance(handle, Handle, what);
}

/** Throws `TypeError` unless `value` is an instance of `type`; `what` names the argument. */
export function checkInstance<T>(
  value: unknown,
  // deno-lint-ignore no-explicit-any
  type: abstract new (...args: any[]) => T,
  what: string,
): asserts value is T {
  if (!(value instanceof type)) {
    throw new TypeError(`${what} must be a ${type.name}, got ${describe(value)}`);
  }
}

/** The element type asked for (f32 by default), checked. */
export function checkedType<D extends DType>(dtype: D | undefined): D {
  if (dtype === undefined) return "f32" as D;
  assertDType(dtype, "dtype");
  return dtype;
}

/** Throws `TypeError` unless `kernel` and `options` of `execute` are objects. */
export function checkExecute(kernel: unknown, options: unknown): void {
  if (typeof kernel !== "object" || kernel === null) {
    throw new TypeError(`kernel must be a kernel object, got ${describe(kernel)}`);
  }
  if (typeof options !== "object" || options === null) {
    throw new TypeError(`execute options must be an object, got ${describe(options)}`);
  }
  // A key `execute` does not take (a typo: `thread`, `param`) would be ignored, the launch run
  // without it: refused, the same on every backend.
  for (const key in options) {
    switch (key) {
      case "threads":
      case "count":
      case "buffers":
      case "params":
      case "stream":
      case "scalars":
      case "metadata":
      case "overrides":
      case "samplers":
        continue;
    }
    throw new TypeError(
      `execute: unknown option ${JSON.stringify(key)} (the options are ${EXECUTE_KEYS})`,
    );
  }
}

/** The keys of `ExecuteOptions`, for messages. */
const EXECUTE_KEYS =
  "threads, count, buffers, params, stream, scalars, metadata, overrides, samplers";

/**
 * The checked arguments of `readMany(handles, type?, options?)`: the type asked for, if any, and
 * the stream.
 */
export function readArgs(
  handles: readonly Handle[],
  type: TypedArrayConstructor<TypedArray> | StreamOptions | undefined,
  options: StreamOptions | undefined,
): { explicit: TypedArrayConstructor<TypedArray> | undefined; stream: StreamId } {
  const explicit = typeof type === "function" ? type : undefined;
  // read(h, undefined, { stream }) names no type but a stream: the options are still read.
  const streamOptions = (typeof type === "function" ? options : type ?? options) ?? {};
  if (!Array.isArray(handles)) {
    throw new TypeError(`handles must be an array of Handle, got ${describe(handles)}`);
  }
  checkOptions(streamOptions, STREAM_KEYS, "read");
  handles.forEach((handle, i) => {
    checkHandle(handle, `handles[${i}]`);
    if (explicit !== undefined) checkReadType(handle, explicit, `handles[${i}]`);
  });
  return { explicit, stream: resolveStreamId(streamOptions.stream) };
}
