/**
 * Memory usage figures of a server or pool.
 *
 * @module
 */

import { formatBytes } from "../core/format_bytes.ts";

/**
 * How much memory is reserved from storage and how much of it is in use.
 *
 * @example
 * ```ts
 * import { formatMemoryUsage, type MemoryUsage } from "@gpucompute/runtime/backend";
 * const usage: MemoryUsage = { numberAllocs: 2, bytesInUse: 96, bytesPadding: 32, bytesReserved: 1024 };
 * console.log(formatMemoryUsage(usage));
 * ```
 */
export interface MemoryUsage {
  /** Live slices (reserved and not yet returned to their pool). */
  readonly numberAllocs: number;
  /** Bytes asked for by live slices. */
  readonly bytesInUse: number;
  /** Bytes added to live slices by alignment. */
  readonly bytesPadding: number;
  /** Bytes held from storage in pages, used or not. */
  readonly bytesReserved: number;
}

/**
 * Usage with every figure at zero.
 *
 * @example
 * ```ts
 * import { EMPTY_MEMORY_USAGE } from "@gpucompute/runtime/backend";
 * console.log(EMPTY_MEMORY_USAGE.bytesInUse, Object.isFrozen(EMPTY_MEMORY_USAGE)); // 0 true
 * ```
 */
export const EMPTY_MEMORY_USAGE: MemoryUsage = Object.freeze({
  numberAllocs: 0,
  bytesInUse: 0,
  bytesPadding: 0,
  bytesReserved: 0,
});

/**
 * The sum of several usages.
 *
 * @example
 * ```ts
 * import { combineMemoryUsage, EMPTY_MEMORY_USAGE } from "@gpucompute/runtime/backend";
 * console.log(combineMemoryUsage([EMPTY_MEMORY_USAGE, EMPTY_MEMORY_USAGE]).numberAllocs); // 0
 * ```
 */
export function combineMemoryUsage(usages: Iterable<MemoryUsage>): MemoryUsage {
  let numberAllocs = 0, bytesInUse = 0, bytesPadding = 0, bytesReserved = 0;
  for (const usage of usages) {
    numberAllocs += usage.numberAllocs;
    bytesInUse += usage.bytesInUse;
    bytesPadding += usage.bytesPadding;
    bytesReserved += usage.bytesReserved;
  }
  return { numberAllocs, bytesInUse, bytesPadding, bytesReserved };
}

/**
 * One line of text: allocations, bytes in use, padding and reserved.
 *
 * @example
 * ```ts
 * import { EMPTY_MEMORY_USAGE, formatMemoryUsage } from "@gpucompute/runtime/backend";
 * console.log(formatMemoryUsage(EMPTY_MEMORY_USAGE));
 * ```
 */
export function formatMemoryUsage(usage: MemoryUsage): string {
  return `${usage.numberAllocs} allocations, ${formatBytes(usage.bytesInUse)} in use, ` +
    `${formatBytes(usage.bytesPadding)} padding, ${formatBytes(usage.bytesReserved)} reserved`;
}
