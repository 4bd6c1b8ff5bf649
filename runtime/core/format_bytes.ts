/**
 * Byte counts as error messages and logs print them.
 *
 * @module
 */

const UNITS = ["B", "KiB", "MiB", "GiB", "TiB"];

/**
 * Formats a byte count with binary units, as error messages and logs print it.
 *
 * @example
 * ```ts
 * import { formatBytes } from "@gpucompute/runtime/backend";
 * console.log(formatBytes(3 * 1024 * 1024)); // "3 MiB"
 * ```
 */
export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (Math.abs(value) >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  const text = Number.isInteger(value) ? String(value) : value.toFixed(2).replace(/\.?0+$/, "");
  return `${text} ${UNITS[unit]}`;
}
