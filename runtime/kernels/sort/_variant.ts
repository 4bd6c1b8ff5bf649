/**
 * Which radix sort runs on a client's device: `"serial"` (`_radix.ts`: 8-bit passes, each
 * invocation counting and scattering a run of up to 8,192 consecutive keys, at most ~2,048 runs)
 * on CPU adapters (`../_device_kind.ts`: llvmpipe and the like, where invocations are SIMD lanes
 * of a few threads and long barrier-free runs are fastest); `"tiled"` (`gpu/_tiled.ts`: 8-bit
 * passes over blocks of 1,024 keys, one workgroup of 256 invocations each, counts in workgroup
 * memory and the block sorted there by digit, as many workgroups as blocks) on real GPUs, CUDA
 * included, where the serial sort would run a few thousand threads with 1 KiB of private
 * counters each.
 *
 * Tests force either with {@linkcode setSortVariant} (not exported from the entry points).
 *
 * @module
 */

import type { ComputeClient } from "../../client/client.ts";
import { isCpuAdapter } from "../_device_kind.ts";

/** A radix sort of the module doc. */
export type SortVariant = "serial" | "tiled";

let forced: SortVariant | undefined;

/**
 * Forces every later sort (sort, argsort, topk) onto `variant`, or back to the device's choice
 * (`undefined`); returns the previous setting. For tests.
 */
export function setSortVariant(variant: SortVariant | undefined): SortVariant | undefined {
  if (variant !== undefined && variant !== "serial" && variant !== "tiled") {
    throw new TypeError(`setSortVariant: variant must be "serial", "tiled" or undefined`);
  }
  const previous = forced;
  forced = variant;
  return previous;
}

/** The radix sort that runs on `client` (forced, or by the device: see the module doc). */
export function sortVariant(client: ComputeClient): SortVariant {
  return forced ?? (isCpuAdapter(client) ? "serial" : "tiled");
}
