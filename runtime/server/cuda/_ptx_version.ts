/**
 * PTX ISA versions and the drivers that load them. A driver JIT-compiles PTX up to the ISA of its
 * own CUDA version (`.version 9.0` needs CUDA 13.0, r580; 8.0 needs CUDA 12.0, r525; 7.0 needs
 * CUDA 11.0, r450) and answers a newer one with `CUDA_ERROR_UNSUPPORTED_PTX_VERSION`. The table
 * is the PTX ISA document's release history.
 *
 * @module
 */

/** CUDA versions (as `cuDriverGetVersion` reports them) and the newest PTX ISA each loads. */
const RELEASES: readonly (readonly [cuda: number, isa: number])[] = [
  [13010, 91],
  [13000, 90],
  [12090, 88],
  [12080, 87],
  [12070, 86],
  [12050, 85],
  [12040, 84],
  [12030, 83],
  [12020, 82],
  [12010, 81],
  [12000, 80],
  [11080, 78],
  [11070, 77],
  [11060, 76],
  [11050, 75],
  [11040, 74],
  [11030, 73],
  [11020, 72],
  [11010, 71],
  [11000, 70],
  [10020, 65],
  [10010, 64],
  [10000, 63],
];

/** `12020` as `CUDA 12.2`. */
export function cudaVersionName(version: number): string {
  return `CUDA ${Math.floor(version / 1000)}.${Math.floor((version % 1000) / 10)}`;
}

/** An ISA as `10 * major + minor` written `8.2`. */
export function isaName(isa: number): string {
  return `${Math.floor(isa / 10)}.${isa % 10}`;
}

/**
 * The newest PTX ISA a driver of CUDA `version` loads (`10 * major + minor`), and whether the
 * driver is newer than this table (it then loads at least that).
 */
export function maxPtxIsa(version: number): { isa: number; atLeast: boolean } {
  const release = RELEASES.find(([cuda]) => version >= cuda);
  return { isa: release?.[1] ?? 60, atLeast: version > RELEASES[0][0] };
}

/** The first CUDA version whose driver loads PTX of `isa`, or `undefined` past the table. */
export function cudaForPtxIsa(isa: number): number | undefined {
  return RELEASES.findLast(([, known]) => known >= isa)?.[0];
}

/** The `.version` (as `10 * major + minor`) and `.target` of a PTX module's header. */
export interface PtxHeader {
  readonly isa: number | undefined;
  readonly target: string | undefined;
}

/** Reads the header directives of PTX text (comments skipped). */
export function ptxHeader(ptx: string): PtxHeader {
  const text = ptx.slice(0, 4096).replace(/\/\/[^\n]*/g, "");
  const version = /\.version\s+(\d+)\.(\d+)/.exec(text);
  const target = /\.target\s+([\w]+)/.exec(text);
  return {
    isa: version ? Number(version[1]) * 10 + Number(version[2]) : undefined,
    target: target?.[1],
  };
}

/**
 * What a module needs and what the driver offers, for the messages of
 * `CUDA_ERROR_UNSUPPORTED_PTX_VERSION` and `CUDA_ERROR_NO_BINARY_FOR_GPU`.
 */
export function describeMismatch(
  ptx: string,
  driverVersion: number,
  device: readonly [number, number],
): string {
  const { isa, target } = ptxHeader(ptx);
  const { isa: max, atLeast } = maxPtxIsa(driverVersion);
  const driver = `the driver is ${cudaVersionName(driverVersion)} (cuDriverGetVersion ` +
    `${driverVersion}), which loads PTX ISA ${atLeast ? "at least " : "up to "}${isaName(max)}`;
  const needs = isa === undefined ? "no PTX (it has no .version)" : (() => {
    const cuda = cudaForPtxIsa(isa);
    const release = cuda === undefined ? "a newer driver" : `${cudaVersionName(cuda)} or newer`;
    return `PTX ISA ${isaName(isa)} (.version ${isaName(isa)}: ${release})`;
  })();
  const arch = `sm_${device.join("")}`;
  return `the module is ${needs}${target ? ` for ${target}` : ""}; ${driver}, on an ${arch} device`;
}

/**
 * PTX text with its `.version` lowered to `isa` (`"7.0"`), for a driver older than the toolkit
 * that wrote it (nvcc 13 writes ISA 9.0, which drivers before r580 refuse even for code that
 * older ISAs have). Only the header changes: the driver's JIT still checks every instruction
 * against the lowered ISA, so PTX that needs something newer fails to load (a `COMPILATION`
 * error with the JIT's log), never runs differently. A module already at or below `isa` comes
 * back unchanged. The project's own kernels ship lowered this way (`deno task ptx`, which also
 * checks with ptxas that each module assembles at the lowered ISA).
 *
 * @example Load nvcc 13's PTX on a CUDA 12.2 (r535) driver
 * ```ts ignore
 * import { createClient } from "@gpucompute/runtime";
 * import { lowerPtxIsa } from "@gpucompute/runtime/cuda";
 * const ptx = lowerPtxIsa(await Deno.readTextFile("saxpy.ptx"), "8.0"); // nvcc -ptx saxpy.cu
 * using cuda = await createClient({ backend: "cuda" });
 * const n = 1024;
 * using x = cuda.arange(n, "f32");
 * using y = cuda.full(n, 1);
 * // saxpy(const float* x, float* y, float a, unsigned n): PTX params go by position
 * cuda.execute({ ptx }, { threads: n, buffers: [x, y], params: [2, n] });
 * console.log((await cuda.read(y))[3]); // 7
 * ```
 */
export function lowerPtxIsa(ptx: string, isa: string): string {
  if (typeof ptx !== "string") throw new TypeError(`ptx must be a string, got ${typeof ptx}`);
  const wanted = /^(\d)\.(\d)$/.exec(String(isa));
  if (wanted === null) {
    throw new TypeError(`isa must be a PTX ISA version such as "7.0", got ${JSON.stringify(isa)}`);
  }
  const target = Number(wanted[1]) * 10 + Number(wanted[2]);
  if (target < 60) throw new RangeError(`isa must be 6.0 or newer, got ${isa}`);
  const { isa: current } = ptxHeader(ptx);
  if (current === undefined) throw new TypeError("ptx has no .version directive");
  if (current <= target) return ptx;
  return ptx.replace(/\.version\s+\d+\.\d+/, `.version ${isaName(target)}`);
}
