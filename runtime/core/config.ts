/**
 * Runtime options: one object with defaults, then environment-variable overrides.
 *
 * Environment variables are read only when `env` permission for that variable is already
 * granted; without it they are skipped silently, so a program without `--allow-env` never fails
 * or prompts. An override that is set but malformed throws a `RangeError` naming the variable.
 *
 * | variable | option |
 * | --- | --- |
 * | `GPU_RUNTIME_MAX_STREAMS` | `maxStreams` |
 * | `GPU_RUNTIME_MAX_TASKS` | `maxTasks` |
 * | `GPU_RUNTIME_STRATEGY` | `strategy` (`interleave` or `sequential`) |
 *
 * They are read when a server is created. Logging is configured with LogTape, not here.
 *
 * @module
 */

import { assertPositiveInteger } from "./_argument_checks.ts";
import { deno } from "./_platform.ts";

/**
 * How the task scheduler merges the queued tasks of several streams into one submission.
 *
 * @example
 * ```ts
 * import { resolveConfig, type SchedulerStrategy } from "@gpucompute/runtime/backend";
 * const strategy: SchedulerStrategy = "sequential";
 * console.log(resolveConfig({ strategy }, () => undefined).strategy); // sequential
 * ```
 */
export type SchedulerStrategy = "interleave" | "sequential";

/**
 * Options of the runtime. Every field is optional.
 *
 * @example
 * ```ts
 * import { resolveConfig } from "@gpucompute/runtime/backend";
 * const config = resolveConfig({ maxStreams: 8, strategy: "sequential" });
 * console.log(config.maxStreams, config.maxTasks);
 * ```
 */
export interface RuntimeOptions {
  /**
   * Number of distinct streams; stream ids map onto them modulo this.
   * @default {8}
   */
  maxStreams?: number;
  /**
   * Tasks a stream buffers before it is executed (task-scheduler backends). Each execution is a
   * submission, whose host cost (a command encoder, a pass, a validation scope) 256 pays half as
   * often as 128 in bursts of up to 256 launches: 1.34-1.42x the host time of raw encoding for
   * 256 dispatches against 1.67-1.82x (docs/benchmarks.md); 128 to 1024 take the same total
   * time. It also bounds how long disposed memory stays pinned by queued tasks.
   * @default {256}
   */
  maxTasks?: number;
  /**
   * How queued tasks of several streams are merged.
   * @default {"interleave"}
   */
  strategy?: SchedulerStrategy;
}

/**
 * Options with every default filled in.
 *
 * @example
 * ```ts
 * import { resolveConfig, type RuntimeConfig } from "@gpucompute/runtime/backend";
 * const config: RuntimeConfig = resolveConfig();
 * ```
 */
export interface RuntimeConfig {
  /** See {@linkcode RuntimeOptions.maxStreams}. */
  readonly maxStreams: number;
  /** See {@linkcode RuntimeOptions.maxTasks}. */
  readonly maxTasks: number;
  /** See {@linkcode RuntimeOptions.strategy}. */
  readonly strategy: SchedulerStrategy;
}

/**
 * Reads one environment variable, or `undefined` when unset or not permitted.
 *
 * @example
 * ```ts
 * import { type EnvReader, resolveConfig } from "@gpucompute/runtime/backend";
 * const env: EnvReader = (name) => name === "GPU_RUNTIME_MAX_STREAMS" ? "2" : undefined;
 * console.log(resolveConfig({}, env).maxStreams); // 2
 * ```
 */
export type EnvReader = (name: string) => string | undefined;

/**
 * Reads a variable only if `env` permission for it is already granted (never prompts).
 *
 * @example
 * ```ts
 * import { readPermittedEnv } from "@gpucompute/runtime/backend";
 * console.log(readPermittedEnv("GPU_RUNTIME_MAX_STREAMS")); // undefined without --allow-env
 * ```
 */
export function readPermittedEnv(name: string): string | undefined {
  if (deno === undefined) return undefined; // a browser: no environment
  try {
    const status = deno.permissions.querySync({ name: "env", variable: name });
    return status.state === "granted" ? deno.env.get(name) : undefined;
  } catch {
    return undefined;
  }
}

const STRATEGIES: readonly SchedulerStrategy[] = ["interleave", "sequential"];

function choice<T extends string>(name: string, value: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(value)) {
    throw new RangeError(`${name} must be one of ${allowed.join(", ")}, got "${value}"`);
  }
  return value as T;
}

function integer(name: string, value: string): number {
  const parsed = /^\d+$/.test(value) ? Number(value) : NaN;
  assertPositiveInteger(Number.isNaN(parsed) ? -1 : parsed, name);
  return parsed;
}

/**
 * Fills defaults, applies the options, then the environment overrides, and validates the result.
 *
 * @example
 * ```ts
 * import { resolveConfig } from "@gpucompute/runtime/backend";
 * const config = resolveConfig({}, (name) => name === "GPU_RUNTIME_MAX_TASKS" ? "64" : undefined);
 * console.log(config.maxTasks); // 64
 * ```
 */
export function resolveConfig(
  options: RuntimeOptions = {},
  env: EnvReader = readPermittedEnv,
): RuntimeConfig {
  const get = (name: string) => env(name)?.trim() || undefined;
  const maxStreamsEnv = get("GPU_RUNTIME_MAX_STREAMS");
  const maxTasksEnv = get("GPU_RUNTIME_MAX_TASKS");
  const strategyEnv = get("GPU_RUNTIME_STRATEGY");
  const config: RuntimeConfig = {
    maxStreams: maxStreamsEnv
      ? integer("GPU_RUNTIME_MAX_STREAMS", maxStreamsEnv)
      : options.maxStreams ?? 8,
    maxTasks: maxTasksEnv ? integer("GPU_RUNTIME_MAX_TASKS", maxTasksEnv) : options.maxTasks ?? 256,
    strategy: strategyEnv
      ? choice("GPU_RUNTIME_STRATEGY", strategyEnv, STRATEGIES)
      : options.strategy ?? "interleave",
  };
  assertPositiveInteger(config.maxStreams, "maxStreams");
  assertPositiveInteger(config.maxTasks, "maxTasks");
  choice("strategy", config.strategy, STRATEGIES);
  return config;
}
