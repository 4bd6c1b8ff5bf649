/**
 * Optional NVRTC (`libnvrtc.so`) through Deno FFI: compiles CUDA C to PTX at run time, for
 * kernels given as `source` rather than `ptx`. NVRTC is a separate library the driver does not
 * ship; without it such kernels are `UNSUPPORTED` (naming what was looked for), and PTX kernels
 * are unaffected. A compile error is a `COMPILATION` error carrying NVRTC's log and the line of
 * its first error.
 *
 * @module
 */

import { readPermittedEnv } from "../../core/config.ts";
import { CompilationError, RuntimeError, UnsupportedError } from "../../core/errors.ts";

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
} as const satisfies Deno.ForeignLibraryInterface;

/** The environment variable that overrides NVRTC's path. */
export const NVRTC_LIBRARY_ENV = "GPUCOMPUTE_NVRTC_LIBRARY";
const NVRTC_ERROR_COMPILATION = 6;

type Library = Deno.DynamicLibrary<typeof NVRTC_SYMBOLS>;
/** Opened once per path and never closed (see `_ffi.ts` for why). */
const opened = new Map<string, Library>();
const encoder = new TextEncoder();
const cstring = (text: string) => encoder.encode(text + "\0");

/** The paths tried for NVRTC, in order. */
export function nvrtcCandidates(library?: string): string[] {
  if (library !== undefined) return [library];
  const fromEnv = readPermittedEnv(NVRTC_LIBRARY_ENV);
  if (fromEnv) return [fromEnv];
  return ["libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12"];
}

/** An opened NVRTC. */
export class Nvrtc {
  readonly path: string;
  readonly #lib: Library;

  private constructor(path: string, lib: Library) {
    this.path = path;
    this.#lib = lib;
  }

  /** Opens the first candidate that loads; `UNSUPPORTED` naming every path when none does. */
  static open(library?: string): Nvrtc {
    const tried = nvrtcCandidates(library);
    let last: unknown;
    for (const path of tried) {
      try {
        let lib = opened.get(path);
        if (lib === undefined) opened.set(path, lib = Deno.dlopen(path, NVRTC_SYMBOLS));
        return new Nvrtc(path, lib);
      } catch (error) {
        if (error instanceof Deno.errors.NotCapable) throw error;
        last = error;
      }
    }
    throw new UnsupportedError(
      `Compiling CUDA C at run time needs NVRTC, which is not installed (looked for ` +
        `${tried.join(", ")}: ${last instanceof Error ? last.message : String(last)}); ` +
        `give the kernel as PTX instead`,
      "UNSUPPORTED",
      { cause: last },
    );
  }

  /**
   * Compiles `source` (named `name` in messages) for `arch` (e.g. `compute_75`) and returns the
   * PTX; `COMPILATION` with NVRTC's log on a compile error.
   */
  compile(kernelId: string, source: string, name: string, arch: string): string {
    const s = this.#lib.symbols;
    const handle = new BigUint64Array(1);
    this.#check(
      s.nvrtcCreateProgram(handle, cstring(source), cstring(name), 0, null, null),
      "nvrtcCreateProgram",
    );
    const program = Deno.UnsafePointer.create(handle[0]);
    try {
      const options = [cstring(`--gpu-architecture=${arch}`)];
      const pointers = new BigUint64Array(
        options.map((o) => BigInt(Deno.UnsafePointer.value(Deno.UnsafePointer.of(o)))),
      );
      const result = s.nvrtcCompileProgram(program, options.length, pointers);
      void options; // the option strings must stay alive through the call
      if (result === NVRTC_ERROR_COMPILATION) {
        const log = this.#read(program, s.nvrtcGetProgramLogSize, s.nvrtcGetProgramLog).trim();
        const line = /\((\d+)\): error/.exec(log);
        throw new CompilationError(kernelId, log, line ? Number(line[1]) : undefined);
      }
      this.#check(result, "nvrtcCompileProgram");
      return this.#read(program, s.nvrtcGetPTXSize, s.nvrtcGetPTX);
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
    throw new RuntimeError("DRIVER", `${call} failed with ${name} (${result})`);
  }
}
