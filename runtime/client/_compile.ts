/**
 * `ComputeClient.compile` and `ComputeClient.features`, outside `client.ts`.
 *
 * @module
 */

import { UnsupportedError } from "../core/errors.ts";
import type { KernelMetadata } from "../core/kernel.ts";
import type { ComputeServer } from "../server/server.ts";
import type { ExecuteOptions } from "./options.ts";
import { assertKnownKeys } from "../core/_argument_checks.ts";

/** No features listed. */
export const NO_FEATURES: ReadonlySet<string> = new Set();

/** Compiles `kernel` on `server` now; `UNSUPPORTED` where the backend cannot compile ahead. */
export async function compileAhead<K extends KernelMetadata>(
  server: ComputeServer<K>,
  kernel: K,
  options: Pick<ExecuteOptions, "overrides"> | undefined,
): Promise<void> {
  if (server.compile === undefined) {
    throw new UnsupportedError(`The ${server.properties.backend} backend cannot compile ahead`);
  }
  if (options !== undefined && (typeof options !== "object" || options === null)) {
    throw new TypeError(`compile options must be an object, got ${String(options)}`);
  }
  if (options !== undefined) assertKnownKeys(options, ["overrides"], "compile");
  await (options?.overrides === undefined
    ? server.compile(kernel)
    : server.compile(kernel, { overrides: options.overrides }));
}
