/**
 * Optional NVRTC (`libnvrtc.so`) through Deno FFI: compiles CUDA C to PTX at run time, for
 * kernels given as `source` rather than `ptx`, and as the fallback of kernels given as both when
 * the driver rejects their PTX's version. NVRTC is a separate library the driver does not ship;
 * without it such kernels are `UNSUPPORTED` (naming what was looked for), and PTX kernels are
 * unaffected. A compile error is a `COMPILATION` error carrying NVRTC's log and the line of its
 * first error, its message with a note where the source needs a header or a host macro that
 * NVRTC lacks (`_nvrtc_hint.ts`).
 *
 * NVRTC writes PTX of its own toolkit's ISA (NVRTC 13.0 writes `.version 9.0`), which a driver of
 * an older CUDA version rejects like any newer PTX. So the search prefers an NVRTC no newer than
 * the driver: `libnvrtc.so.<driver's major>` and older majors first, each opened library's
 * `nvrtcVersion` compared with `cuDriverGetVersion`; a newer one (the oldest found) is used only
 * when nothing else is (its PTX is then likely refused, with a message naming both versions).
 *
 * @module
 */

import { readPermittedEnv } from "../../../core/config.ts";
import { nvrtcHint } from "./_nvrtc_hint.ts";
import { CompilationError, DriverError, UnsupportedError } from "../../../core/errors.ts";
import { cudaVersionName } from "../_ptx_version.ts";

const R = "i32" as const;
const NVRTC_SYMBOLS = {
  nvrtcVersion: { parameters: ["buffer", "buffer"], result: R },
  nvrtcCreateProgram: {
    parameters: ["buffer", "buffer", "buffer", "i32", "pointer", "pointer"],
    result: R,
  },
  nvrtcCompileProgram: { parameters: ["pointer", "i32", "buffer"], result: R },
  nvrtcGetProgramLogSize: { parameters: ["pointer", "buffer"], result: R },
  nvrtcGetProgramLog: { parameters: ["pointer", "buffer"], result: R },
  nvrtcGetPTXSize: { parameters: ["pointer", "buffer"], result: R },
  nvrtcGetPTX: { parameters: ["pointer", "buffer"], result: R },
  nvrtcDestroyProgram: { parameters: ["buffer"], result: R },
  nvrtcGetErrorString: { parameters: ["i32"], result: "pointer" },
  // template instances by name (`k<float>`): NVRTC 8.0 and newer
  nvrtcAddNameExpression: { parameters: ["pointer", "buffer"], result: R, optional: true },
  nvrtcGetLoweredName: { parameters: ["pointer", "buffer", "buffer"], result: R, optional: true },
  // the architectures it compiles for: NVRTC 11.2 and newer
  nvrtcGetNumSupportedArchs: { parameters: ["buffer"], result: R, optional: true },
  nvrtcGetSupportedArchs: { parameters: ["buffer"], result: R, optional: true },
} as const satisfies Deno.ForeignLibraryInterface;

/** The environment variable that overrides NVRTC's path. */
export const NVRTC_LIBRARY_ENV = "GPUCOMPUTE_NVRTC_LIBRARY";
const NVRTC_ERROR_INVALID_OPTION = 5;
const NVRTC_ERROR_COMPILATION = 6;
const NVRTC_ERROR_BUILTIN_OPERATION_FAILURE = 7;
/** The oldest NVRTC major searched for: the backend needs a CUDA 11 driver at least. */
const OLDEST_MAJOR = 11;

type Library = Deno.DynamicLibrary<typeof NVRTC_SYMBOLS>;
/** Opened once per path and never closed (see `_ffi.ts` for why), with its version. */
const opened = new Map<string, { lib: Library; version: number }>();
/** PTX compiled in this process, by library path, architecture, name, name expressions, source. */
const compiledPtx = new Map<string, Compiled>();

/** NVRTC's PTX and the mangled names of the name expressions it was asked for. */
export interface Compiled {
  /** The PTX. */
  readonly ptx: string;
  /** Each name expression (`k<float>`) to its `.entry` name in the PTX. */
  readonly lowered: ReadonlyMap<string, string>;
}
const encoder = new TextEncoder();
const cstring = (text: string) => encoder.encode(text + "\0");

/**
 * The paths tried for NVRTC, in order of preference: the given path(s), else the environment
 * variable, else the versioned names from the driver's CUDA major down, then `libnvrtc.so`.
 */
export function nvrtcCandidates(
  library?: string | readonly string[],
  driverVersion = 13000,
): string[] {
  if (library !== undefined) return typeof library === "string" ? [library] : [...library];
  const fromEnv = readPermittedEnv(NVRTC_LIBRARY_ENV);
  if (fromEnv) return [fromEnv];
  const names: string[] = [];
  for (let major = Math.floor(driverVersion / 1000); major >= OLDEST_MAJOR; major--) {
    names.push(`libnvrtc.so.${major}`);
  }
  return [...names, "libnvrtc.so"];
}

/** Options of {@linkcode Nvrtc.open}. */
export interface NvrtcOpenOptions {
  /** The driver's `cuDriverGetVersion`: an NVRTC no newer is preferred. */
  readonly driverVersion?: number;
}

/** An opened NVRTC. */
export class Nvrtc {
  /** The path it was opened from. */
  readonly path: string;
  /** `nvrtcVersion` as `1000 * major + 10 * minor` (12020 for NVRTC 12.2). */
  readonly version: number;
  /** True when the driver is older than this NVRTC: the PTX it writes is likely refused. */
  readonly newerThanDriver: boolean;
  readonly #lib: Library;
  #archs?: readonly number[];

  private constructor(path: string, opened: { lib: Library; version: number }, newer: boolean) {
    this.path = path;
    this.version = opened.version;
    this.newerThanDriver = newer;
    this.#lib = opened.lib;
  }

  /**
   * Opens the first candidate that loads and is no newer than the driver, else the oldest that
   * loads (the likeliest to write PTX the driver takes); `UNSUPPORTED` naming every path (and
   * why) when none loads.
   */
  static open(library?: string | readonly string[], options: NvrtcOpenOptions = {}): Nvrtc {
    const { driverVersion } = options;
    const tried = nvrtcCandidates(library, driverVersion);
    const reasons: string[] = [];
    let newer: [string, { lib: Library; version: number }] | undefined;
    let last: unknown;
    for (const path of tried) {
      try {
        let entry = opened.get(path);
        if (entry === undefined) opened.set(path, entry = open(path));
        if (driverVersion === undefined || entry.version <= driverVersion) {
          return new Nvrtc(path, entry, false);
        }
        if (newer === undefined || entry.version < newer[1].version) newer = [path, entry];
        reasons.push(
          `${path} is NVRTC ${version(entry.version)}, newer than the driver's ` +
            cudaVersionName(driverVersion),
        );
      } catch (error) {
        if (error instanceof Deno.errors.NotCapable) throw error;
        last = error;
        reasons.push(`${path}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    if (newer !== undefined) return new Nvrtc(newer[0], newer[1], true);
    throw new UnsupportedError(
      `Compiling CUDA C at run time needs NVRTC, which is not installed (looked for ` +
        `${tried.join(", ")}: ${reasons.join("; ")}); install NVIDIA's NVRTC (the CUDA ` +
        `toolkit, or Debian's libnvrtc12 from non-free) and set ${NVRTC_LIBRARY_ENV} to its ` +
        `libnvrtc.so, or give the kernel as PTX instead`,
      "UNSUPPORTED",
      { cause: last },
    );
  }

  /**
   * The `--gpu-architecture` to compile for a device of compute capability `cc` (`[9, 0]`):
   * `compute_90` where this NVRTC supports it; where the device is newer than every architecture
   * this NVRTC knows, its newest (PTX is forward-compatible: the driver JIT-compiles it for the
   * newer device); where it is older than every one (CUDA 13's NVRTC dropped compute_50 to
   * compute_72), `COMPILATION` naming what this NVRTC supports. An NVRTC that cannot list its
   * architectures (before 11.2) gets the device's own.
   */
  archFor(kernelId: string, cc: readonly number[]): string {
    const wanted = cc[0] * 10 + (cc[1] ?? 0);
    const supported = this.supportedArchs();
    if (supported.length === 0 || supported.includes(wanted)) return `compute_${wanted}`;
    const older = supported.filter((a) => a <= wanted);
    if (older.length > 0) return `compute_${older[older.length - 1]}`;
    throw new CompilationError(
      kernelId,
      `NVRTC ${version(this.version)} (${this.path}) compiles for compute_${supported[0]} to ` +
        `compute_${supported[supported.length - 1]}, not for this device's compute_${wanted}: ` +
        `use an NVRTC of an older CUDA toolkit (set ${NVRTC_LIBRARY_ENV}), or give the kernel ` +
        `as PTX`,
    );
  }

  /** The architectures this NVRTC compiles for, ascending (`[75, 80, ...]`); empty if unknown. */
  supportedArchs(): readonly number[] {
    if (this.#archs !== undefined) return this.#archs;
    const { nvrtcGetNumSupportedArchs: count, nvrtcGetSupportedArchs: list } = this.#lib.symbols;
    const n = new Int32Array(1);
    if (count === null || list === null || count(n) !== 0 || n[0] <= 0) return this.#archs = [];
    const archs = new Int32Array(n[0]);
    return this.#archs = list(archs) === 0 ? [...archs].sort((a, b) => a - b) : [];
  }

  /** Programs NVRTC compiled (or failed to) in this process: what the kept PTX saved shows here. */
  static programs = 0;

  /**
   * Compiles `source` (named `name` in messages) for `arch` (e.g. `compute_75`) and returns the
   * PTX; `COMPILATION` with NVRTC's log on a compile error. The PTX is kept for the process, per
   * library, architecture, name and source (NVRTC's output depends on nothing else): several
   * servers, clients or devices of one architecture compile a kernel once.
   */
  compile(kernelId: string, source: string, name: string, arch: string): string {
    return this.compileNamed(kernelId, source, name, arch, []).ptx;
  }

  /**
   * As {@linkcode compile}, with the mangled names of C++ name expressions (`k<float>`, a
   * template kernel's instance, which NVRTC then instantiates): `COMPILATION` when this NVRTC
   * cannot lower names or an expression names nothing.
   */
  compileNamed(
    kernelId: string,
    source: string,
    name: string,
    arch: string,
    expressions: readonly string[],
    options: readonly string[] = [],
  ): Compiled {
    const key = `${this.path}\0${arch}\0${name}\0${expressions.join("\0")}\0\0${
      options.join("\0")
    }\0\0${source}`;
    let compiled = compiledPtx.get(key);
    if (compiled === undefined) {
      Nvrtc.programs++;
      compiled = this.#compile(kernelId, source, name, arch, expressions, options);
      compiledPtx.set(key, compiled);
    }
    return compiled;
  }

  #compile(
    kernelId: string,
    source: string,
    name: string,
    arch: string,
    expressions: readonly string[],
    extra: readonly string[],
  ): Compiled {
    const s = this.#lib.symbols;
    const handle = new BigUint64Array(1);
    this.#check(
      s.nvrtcCreateProgram(handle, cstring(source), cstring(name), 0, null, null),
      "nvrtcCreateProgram",
    );
    const program = Deno.UnsafePointer.create(handle[0]);
    try {
      const { nvrtcAddNameExpression: add, nvrtcGetLoweredName: get } = s;
      if (expressions.length > 0 && (add === null || get === null)) {
        throw new CompilationError(
          kernelId,
          `${this.path} cannot lower C++ names (no nvrtcAddNameExpression): launch ` +
            `${expressions.join(", ")} through an extern "C" __global__ wrapper instead`,
        );
      }
      for (const e of expressions) this.#check(add!(program, cstring(e)), "nvrtcAddNameExpression");
      const options = [cstring(`--gpu-architecture=${arch}`), ...extra.map(cstring)];
      const pointers = new BigUint64Array(
        options.map((o) => BigInt(Deno.UnsafePointer.value(Deno.UnsafePointer.of(o)))),
      );
      const result = s.nvrtcCompileProgram(program, options.length, pointers);
      void options; // the option strings must stay alive through the call
      if (result === NVRTC_ERROR_COMPILATION) {
        const log = this.#read(program, s.nvrtcGetProgramLogSize, s.nvrtcGetProgramLog).trim();
        // the first error in the source itself (not in NVRTC's map of name expressions)
        const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
        const line = new RegExp(`^${escaped}\\((\\d+)\\): (?:catastrophic )?error`, "m").exec(log);
        const error = new CompilationError(kernelId, log, line ? Number(line[1]) : undefined);
        const hint = nvrtcHint(log);
        if (hint !== undefined) error.message += `\n${hint}`;
        throw error;
      }
      if (result === NVRTC_ERROR_INVALID_OPTION) {
        throw new CompilationError(
          kernelId,
          `NVRTC ${version(this.version)} refused an option of ` +
            `[--gpu-architecture=${arch}${
              extra.map((o) => `, ${o}`).join("")
            }] (nvrtcCompileProgram: ` +
            `NVRTC_ERROR_INVALID_OPTION): see NVRTC's documentation of supported compile options`,
        );
      }
      this.#check(result, "nvrtcCompileProgram");
      const lowered = new Map<string, string>();
      for (const e of expressions) {
        const out = new BigUint64Array(1);
        this.#check(get!(program, cstring(e), out), `nvrtcGetLoweredName(${e})`);
        const at = Deno.UnsafePointer.create(out[0]);
        if (at !== null) lowered.set(e, Deno.UnsafePointerView.getCString(at));
      }
      return { ptx: this.#read(program, s.nvrtcGetPTXSize, s.nvrtcGetPTX), lowered };
    } finally {
      s.nvrtcDestroyProgram(handle);
    }
  }

  #read(
    program: Deno.PointerValue,
    size: (p: Deno.PointerValue, out: BigUint64Array) => number,
    get: (p: Deno.PointerValue, out: Uint8Array) => number,
  ): string {
    const length = new BigUint64Array(1);
    this.#check(size(program, length), "nvrtc size query");
    const bytes = new Uint8Array(Number(length[0]));
    this.#check(get(program, bytes), "nvrtc read");
    const end = bytes.indexOf(0);
    return new TextDecoder().decode(end < 0 ? bytes : bytes.subarray(0, end));
  }

  #check(result: number, call: string): void {
    if (result === 0) return;
    const text = this.#lib.symbols.nvrtcGetErrorString(result);
    const name = text === null ? `nvrtcResult ${result}` : Deno.UnsafePointerView.getCString(text);
    const hint = result === NVRTC_ERROR_BUILTIN_OPERATION_FAILURE
      ? ": NVRTC could not load its builtins library (libnvrtc-builtins.so), which it opens by " +
        "name: put the folder holding it on LD_LIBRARY_PATH"
      : "";
    throw new DriverError(`${call} failed with ${name} (${result})${hint}`);
  }
}

function open(path: string): { lib: Library; version: number } {
  const lib = Deno.dlopen(path, NVRTC_SYMBOLS);
  const major = new Int32Array(1), minor = new Int32Array(1);
  const result = lib.symbols.nvrtcVersion(major, minor);
  // A library that cannot say its version is taken as it is (version 0: never "newer").
  return { lib, version: result === 0 ? major[0] * 1000 + minor[0] * 10 : 0 };
}

function version(v: number): string {
  return `${Math.floor(v / 1000)}.${Math.floor((v % 1000) / 10)}`;
}
