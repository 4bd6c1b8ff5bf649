/**
 * Byte helpers shared by the tests: typed values to bytes and back, and the code of an error.
 *
 * @module
 */

import { ComputeError } from "../backend.ts";

/** Little-endian bytes of u32 values. */
export const u32 = (values: number[]): Uint8Array => new Uint8Array(new Uint32Array(values).buffer);
/** Little-endian bytes of f32 values. */
export const f32 = (values: number[]): Uint8Array =>
  new Uint8Array(new Float32Array(values).buffer);
/** The u32 values of bytes (copied, so any offset works). */
export const asU32 = (bytes: Uint8Array): number[] => [...new Uint32Array(bytes.slice().buffer)];
/** The f32 values of bytes (copied, so any offset works). */
export const asF32 = (bytes: Uint8Array): number[] => [...new Float32Array(bytes.slice().buffer)];
/** The literal code of a `ComputeError`, or the error as a string. */
export const code = (error: unknown): string =>
  error instanceof ComputeError ? error.code : String(error);
/** One metadata word holding a length. */
export const meta = (n: number): { data: Uint32Array; staticLength: number } => ({
  data: new Uint32Array([n]),
  staticLength: 1,
});
