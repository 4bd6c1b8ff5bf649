/**
 * The client's reusable launch record and the cube count of an `execute` call.
 *
 * @module
 */

import { KernelArguments } from "../core/kernel_arguments.ts";
import { CubeCount } from "../core/cube_count.ts";
import type { KernelMetadata, KernelParams } from "../core/kernel.ts";
import type { KernelLaunch } from "../server/server.ts";

const SINGLE: CubeCount = CubeCount.newSingle();

/** What `execute` options say about the count (see `ExecuteOptions`). */
export interface LaunchCount {
  readonly threads?: number | readonly [number, number?, number?];
  readonly count?: CubeCount;
}

/** A `threads` cube count being filled in. */
export type ThreadsCount = { kind: "threads"; x: number; y: number; z: number };

/**
 * The client's reusable launch: filled by `execute`, read by the server during the call only (the
 * contract of `ComputeServer.execute`), then cleared so it keeps nothing alive.
 */
export class LaunchRecord<K extends KernelMetadata> implements KernelLaunch<K> {
  kernel: K = undefined!;
  count: CubeCount = SINGLE;
  readonly args: KernelArguments = new KernelArguments();
  params: KernelParams | undefined = undefined;
  /** The `threads` count that `count` points to for `threads` launches. */
  readonly threads: ThreadsCount = { kind: "threads", x: 1, y: 1, z: 1 };

  /** Drops every reference of the last launch. */
  clear(): void {
    this.args.clear();
    this.count = SINGLE; // a caller's count may hold a binding
    this.kernel = undefined!;
    this.params = undefined;
  }
}

/**
 * The cube count of a launch: `count` checked, or `threads` written into `into` (a record of the
 * caller's, reused: the server reads counts during `execute` only).
 */
export function cubeCount(options: LaunchCount, into: ThreadsCount): CubeCount {
  const { threads, count } = options;
  if ((threads === undefined) === (count === undefined)) {
    throw new TypeError("execute needs exactly one of threads or count");
  }
  if (count !== undefined) return CubeCount.check(count);
  if (typeof threads === "number") return threadsCount(into, threads, 1, 1);
  if (!Array.isArray(threads)) {
    throw new TypeError(`threads must be a number or [x, y, z], got ${typeof threads}`);
  }
  return threadsCount(into, threads[0] ?? 1, threads[1] ?? 1, threads[2] ?? 1);
}

/** `CubeCount.threads(x, y, z)` (same checks) written into `into`. */
function threadsCount(into: ThreadsCount, x: number, y: number, z: number): CubeCount {
  CubeCount.threads(x, y, z); // checks; the engine elides the unused result
  into.x = x;
  into.y = y;
  into.z = z;
  return into;
}
