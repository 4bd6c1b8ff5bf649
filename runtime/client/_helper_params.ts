/**
 * The params a helper or primitive sets itself (an element count, a block size, a seed word...)
 * as opposed to those its caller gave (an `elementwise` spec's params): the helpers launch with
 * the names of their own under {@linkcode OWN_PARAMS}, an `execute` option only they set, and a
 * captured graph refuses a replay that would change one ({@linkcode OwnParams}), on every
 * backend, before anything runs: the caller never gave that param, and a new value would make
 * the helper compute something else than it was asked (`n` smaller than the output: a silently
 * short result).
 *
 * @module
 */

import { KernelArgumentError } from "../core/errors.ts";
import type { KernelMetadata, KernelParams } from "../core/kernel.ts";
import type { KernelLaunch } from "../server/server.ts";
import type { ExecuteOptions } from "./options.ts";

/**
 * Key of the helpers' `execute` option: the params they set themselves (their names are read
 * only when a graph records the launch, not on every launch).
 */
export const OWN_PARAMS: unique symbol = Symbol("gpucompute.ownParams");

/** `execute` options as the helpers give them. */
export type HelperExecuteOptions = ExecuteOptions & {
  readonly [OWN_PARAMS]?: KernelParams;
};

/** The params of a graph's launches that a helper set itself, by name (its kernel's id). */
export class OwnParams {
  readonly #own = new Map<string, string>();

  /** Notes the own params of a recorded `launch` (`options` as given to `execute`). */
  add(launch: KernelLaunch<KernelMetadata>, options: ExecuteOptions): void {
    const own = (options as HelperExecuteOptions)[OWN_PARAMS];
    if (own === undefined) return;
    const id = (launch.kernel as { id?: unknown }).id;
    for (const name of Object.keys(own)) {
      this.#own.set(name, typeof id === "string" ? id : "a helper");
    }
  }

  /** Refuses (`KernelArgumentError`) replay params that name a helper's own param. */
  check(label: string, params: unknown): void {
    if (this.#own.size === 0 || typeof params !== "object" || params === null) return;
    for (const name of Object.keys(params)) {
      const kernel = this.#own.get(name);
      if (kernel === undefined) continue;
      throw new KernelArgumentError(
        label,
        `params.${name}`,
        `is set by the helper kernel '${kernel}' itself, not given by its caller: a replay ` +
          "cannot change it",
      );
    }
  }
}
