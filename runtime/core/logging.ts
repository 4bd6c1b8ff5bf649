/**
 * Log categories of the runtime, through LogTape. The library only creates loggers and logs at
 * LogTape levels with structured properties; the application decides what to see by calling
 * LogTape's `configure()` (the library never does, and no runtime option gates it).
 *
 * | category | level | what |
 * | --- | --- | --- |
 * | `["gpucompute", "stream"]` | `info` | a stream's queued work is executed early because another stream needs its memory (`streams`, `stream`); an event wait between streams (`origin`, `stream`) |
 * | `["gpucompute", "stream"]` | `debug` | why: the memory shared across streams (`origin`, `memory`, `stream`, `cursor`) |
 * | `["gpucompute", "stream"]` | `warning` | a GC wait failed and left a stream unhealthy; GC tasks pile up on a backend without synchronous waits; `withStream` given an async function where only its synchronous part is scoped (browsers; once) |
 * | `["gpucompute", "memory"]` | `info` | a pool page allocated or freed (`page`, `size`, `pool`) |
 * | `["gpucompute", "tune"]` | `info` | a key is tuned (`set`, `key`); its winner and the top three times (`fastest`, `top`) |
 * | `["gpucompute", "tune"]` | `warning` | a tuning run failed; a corrupt or unwritable cache (file or IndexedDB: also on `console.warn`, once, while LogTape is not configured); a reference output that could not be read |
 *
 * Sub-categories inherit their parent's configuration: a logger on `["gpucompute"]` sees all.
 *
 * @example See every runtime log on the console
 * ```ts ignore
 * import { configure, getConsoleSink } from "@logtape/logtape";
 * await configure({
 *   sinks: { console: getConsoleSink() },
 *   loggers: [{ category: ["gpucompute"], lowestLevel: "debug", sinks: ["console"] }],
 * });
 * ```
 *
 * @module
 */

import { getConfig, getLogger } from "@logtape/logtape";

/**
 * The root category of every runtime logger.
 *
 * @example
 * ```ts
 * import { LOG_CATEGORY } from "@gpucompute/runtime/backend";
 * console.log([LOG_CATEGORY, "stream"]); // ["gpucompute", "stream"]: a LogTape category
 * ```
 */
export const LOG_CATEGORY = "gpucompute";

/**
 * The sub-categories the runtime logs under.
 *
 * @example
 * ```ts
 * import type { LogSubject } from "@gpucompute/runtime/backend";
 * const subject: LogSubject = "memory";
 * ```
 */
export type LogSubject = "stream" | "memory" | "server" | "tune";

/**
 * Structured properties of a record, or a function computing them only when it is emitted.
 *
 * @example
 * ```ts
 * import type { LogProperties } from "@gpucompute/runtime/backend";
 * const lazy: LogProperties = () => ({ streams: [1, 2] });
 * ```
 */
export type LogProperties = Record<string, unknown> | (() => Record<string, unknown>);

/**
 * What the runtime logs through: the part of a LogTape `Logger` it uses (any LogTape logger is
 * one). Messages are templates whose `{placeholders}` name properties.
 *
 * @example
 * ```ts
 * import type { Logger } from "@gpucompute/runtime/backend";
 * const quiet: Logger = { debug() {}, info() {}, warn() {} };
 * ```
 */
export interface Logger {
  /** Logs at `debug`. */
  debug(message: string, properties?: LogProperties): void;
  /** Logs at `info`. */
  info(message: string, properties?: LogProperties): void;
  /** Logs at `warning`. */
  warn(message: string, properties?: LogProperties): void;
}

/**
 * The LogTape logger of a subject: category `["gpucompute", subject]`.
 *
 * @example
 * ```ts
 * import { runtimeLogger } from "@gpucompute/runtime/backend";
 * const log = runtimeLogger("stream");
 * log.info("Waiting on stream {origin} from stream {stream}", { origin: 1, stream: 2 });
 * ```
 */
export function runtimeLogger(subject: LogSubject): Logger {
  return getLogger([LOG_CATEGORY, subject]);
}

const noticed = new Set<string>();

/**
 * Warns through `logger`, and, when the application has not configured LogTape (so the record
 * would go nowhere), also once per message on `console.warn`: for the few warnings a user must
 * see on the first run without setting logging up (a tune cache that cannot persist).
 *
 * @example
 * ```ts
 * import { runtimeLogger, warnVisibly } from "@gpucompute/runtime/backend";
 * warnVisibly(runtimeLogger("tune"), "No write permission for /tmp/x: tuning results stay in memory");
 * ```
 */
export function warnVisibly(logger: Logger, message: string): void {
  logger.warn("{message}", { message });
  if (getConfig() !== null || noticed.has(message)) return;
  noticed.add(message);
  console.warn(`gpucompute: ${message}`);
}
