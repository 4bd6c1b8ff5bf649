/**
 * Muting a dependency that prints to the console.
 *
 * @module
 */

import type { Logger } from "../../core/logging.ts";

/**
 * Runs `fn` (synchronous) with `console.error`, `console.warn` and `console.log` muted, and
 * passes what it printed to `logger` at debug level: for a dependency that prints to the console
 * (`wgsl_reflect` reports each WGSL construct its evaluator does not know with `console.error`,
 * though the runtime handles them), which a library must not do to its user's console.
 *
 * @example
 * ```ts ignore
 * import { quietly } from "./_quiet_console.ts";
 * import { runtimeLogger } from "../../core/logging.ts";
 * const n = quietly(runtimeLogger("server"), () => {
 *   console.error("noise"); // goes to the logger, not the console
 *   return 4;
 * });
 * console.log(n); // 4
 * ```
 */
export function quietly<T>(logger: Logger, fn: () => T): T {
  const { error, warn, log } = console;
  const keep = (...args: unknown[]) =>
    logger.debug("{dependency}", { dependency: args.map(String).join(" ") });
  console.error = console.warn = console.log = keep;
  try {
    return fn();
  } finally {
    Object.assign(console, { error, warn, log });
  }
}
