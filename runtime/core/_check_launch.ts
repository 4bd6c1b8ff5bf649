/**
 * The backend-neutral check of a kernel launch built by hand: every backend runs it first in
 * `execute`, so a malformed launch throws `TypeError` / `RangeError` before anything is enqueued.
 *
 * @module
 */

import { KernelArguments } from "./kernel_arguments.ts";
import { CubeCount } from "./cube_count.ts";
import { HandleRef } from "./handle.ts";
import { describe } from "./_validate.ts";

const MODES: readonly unknown[] = ["checked", "unchecked", undefined];

/** What the check reads of a launch (the contract's `KernelLaunch`, seen structurally). */
export interface LaunchShape {
  readonly args: unknown;
  readonly count: unknown;
  readonly mode?: unknown;
}

/** Checks the launch object, its arguments and buffers, its cube count and its mode. */
export function checkLaunchShape(launch: LaunchShape): void {
  if (typeof launch !== "object" || launch === null) {
    throw new TypeError(`launch must be a KernelLaunch, got ${describe(launch)}`);
  }
  if (!(launch.args instanceof KernelArguments)) {
    throw new TypeError(`launch.args must be a KernelArguments, got ${describe(launch.args)}`);
  }
  const buffers = launch.args.buffers;
  for (let i = 0; i < buffers.length; i++) {
    if (!(buffers[i] instanceof HandleRef)) {
      throw new TypeError(`launch buffer ${i} must be a HandleRef, got ${describe(buffers[i])}`);
    }
  }
  CubeCount.check(launch.count as CubeCount);
  if (!MODES.includes(launch.mode)) {
    throw new RangeError(`mode must be "checked" or "unchecked", got ${describe(launch.mode)}`);
  }
}
