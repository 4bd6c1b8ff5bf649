/**
 * `cuModuleLoadDataEx` with the JIT's error log, and the `COMPILATION` errors of a module the
 * driver refuses: the driver's result and text, what ptxas said (its log names the line), and
 * for `CUDA_ERROR_UNSUPPORTED_PTX_VERSION` / `CUDA_ERROR_NO_BINARY_FOR_GPU` the driver's CUDA
 * version against what the PTX needs. A module whose `.const` variables (CUDA C's `__constant__`)
 * have no initializer is loaded with a warning: nothing can write them (there is no
 * `cudaMemcpyToSymbol`), so they read zeros.
 *
 * @module
 */

import { CompilationError } from "../../../core/errors.ts";
import {
  CUDA_ERROR_NO_BINARY_FOR_GPU,
  CUDA_ERROR_UNSUPPORTED_PTX_VERSION,
  CUDA_SUCCESS,
  type CudaDriver,
  type CudaDriverError,
} from "../_ffi.ts";
import { describeMismatch } from "../_ptx_version.ts";
import { runtimeLogger, warnVisibly } from "../../../core/logging.ts";

const CU_JIT_ERROR_LOG_BUFFER = 5;
const CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6;
const LOG_BYTES = 16 * 1024;
const OPTIONS = new Int32Array([CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES]);
const encoder = new TextEncoder();

/** A module the driver loaded, or why it did not. */
export type Loaded =
  | { readonly module: Deno.PointerValue }
  | { readonly error: CudaDriverError; readonly log: string };

/** Loads PTX text (or any image `cuModuleLoadDataEx` takes) with the JIT's error log. */
export function loadModule(driver: CudaDriver, ptx: string, name: string): Loaded {
  const log = new Uint8Array(LOG_BYTES);
  // optionValues are pointer-sized: the buffer's address, then its size (the driver writes back
  // how much of it it filled).
  const values = new BigUint64Array([
    BigInt(Deno.UnsafePointer.value(Deno.UnsafePointer.of(log))),
    BigInt(LOG_BYTES),
  ]);
  const out = new BigUint64Array(1);
  const result = driver.symbols.cuModuleLoadDataEx(
    out,
    encoder.encode(ptx + "\0"),
    OPTIONS.length,
    OPTIONS,
    values,
  );
  if (result === CUDA_SUCCESS) {
    warnUnwrittenConstants(ptx, name);
    return { module: Deno.UnsafePointer.create(out[0]) };
  }
  const end = log.indexOf(0);
  return {
    error: driver.error(result, `cuModuleLoadDataEx(${name})`),
    log: new TextDecoder().decode(end < 0 ? log : log.subarray(0, end)).trim(),
  };
}

/** A `.const` declaration (not `.extern`) without `= ...`: its name. */
const UNINITIALIZED_CONST =
  /^[ \t]*(?:\.(?:visible|weak)\s+)?\.const\s[^;={}]*?([A-Za-z_$][\w$]*)\s*(?:\[\d*\]\s*)*;/gm;

/** Warns (once per message) of `__constant__` variables nothing initializes (module doc). */
function warnUnwrittenConstants(ptx: string, name: string): void {
  if (!ptx.includes(".const")) return;
  const names = [...ptx.matchAll(UNINITIALIZED_CONST)].map((match) => match[1]);
  if (names.length === 0) return;
  warnVisibly(
    runtimeLogger("server"),
    `Module ${name} has __constant__ variables without an initializer (${names.join(", ")}): ` +
      "they read zeros, as nothing can write them (no cudaMemcpyToSymbol); pass values the " +
      "host chooses in params or a buffer",
  );
}

/** Whether the driver refused the module for its version or architecture (NVRTC may help). */
export function isMismatch(result: number): boolean {
  return result === CUDA_ERROR_UNSUPPORTED_PTX_VERSION || result === CUDA_ERROR_NO_BINARY_FOR_GPU;
}

/** What a refused load reports. */
export interface LoadFailure {
  /** The kernel's name in messages. */
  readonly kernel: string;
  /** The text that was loaded. */
  readonly ptx: string;
  /** The failure. */
  readonly loaded: { readonly error: CudaDriverError; readonly log: string };
  /** The driver's `cuDriverGetVersion`. */
  readonly driverVersion: number;
  /** The device's compute capability. */
  readonly computeCapability: readonly [number, number];
  /** What else was tried, or what the user can do (appended). */
  readonly note?: string;
}

/** The `COMPILATION` error of a refused load, with the line of ptxas's first error. */
export function loadError(failure: LoadFailure): CompilationError {
  const { error, log } = failure.loaded;
  const parts = [error.message];
  if (isMismatch(error.result)) {
    parts.push(
      `: ${describeMismatch(failure.ptx, failure.driverVersion, failure.computeCapability)}`,
    );
  }
  if (failure.note) parts.push(`; ${failure.note}`);
  if (log) parts.push(`\n${log}`);
  const line = /, line (\d+);/.exec(log);
  return new CompilationError(failure.kernel, parts.join(""), line ? Number(line[1]) : undefined, {
    cause: error,
  });
}
