/**
 * Log categories of the runtime, through LogTape. The library only creates loggers: the
 * application decides where logs go by calling LogTape's `configure()` (the library never does).
 *
 * Categories: `["gpucompute", "stream"]`, `["gpucompute", "memory"]`, `["gpucompute", "server"]`.
 * The seed's streaming levels map onto LogTape levels: `basic` messages are `info`, `full`
 * messages are `debug`, and `disabled` emits nothing. Messages are built lazily, only when a sink
 * would receive them.
 *
 * @module
 */

import { getLogger, type Logger } from "@logtape/logtape";
import type { LogVerbosity } from "./config.ts";

/** The root category of every runtime logger. */
export const LOG_CATEGORY = "gpucompute";

/** The categories the runtime logs under. */
export type LogSubject = "stream" | "memory" | "server";

/**
 * A logger for one subject that honours the runtime's verbosity for it.
 *
 * @example
 * ```ts
 * import { RuntimeLogger } from "@gpucompute/runtime/backend";
 * const log = new RuntimeLogger("stream", "basic");
 * log.basic(() => "Waiting on stream 1 from stream 2"); // emitted at info level
 * log.full(() => "not built: verbosity is basic");
 * ```
 */
export class RuntimeLogger {
  readonly #logger: Logger;
  readonly #verbosity: LogVerbosity;

  /** Creates the logger of a subject with a verbosity. */
  constructor(subject: LogSubject, verbosity: LogVerbosity) {
    this.#logger = getLogger([LOG_CATEGORY, subject]);
    this.#verbosity = verbosity;
  }

  /** Logs at `info` unless the verbosity is `disabled`. */
  basic(message: () => string): void {
    if (this.#verbosity === "disabled" || !this.#logger.isEnabledFor("info")) return;
    this.#logger.info("{message}", { message: message() });
  }

  /** Logs at `debug` when the verbosity is `full`. */
  full(message: () => string): void {
    if (this.#verbosity !== "full" || !this.#logger.isEnabledFor("debug")) return;
    this.#logger.debug("{message}", { message: message() });
  }

  /** Logs a warning whatever the verbosity. */
  warn(message: string): void {
    this.#logger.warn("{message}", { message });
  }
}
