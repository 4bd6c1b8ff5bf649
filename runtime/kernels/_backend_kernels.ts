/**
 * The one place where the helpers and primitives meet a backend: which kernel text a client
 * takes (WGSL on WebGPU, CUDA C on CUDA, chosen once per client), the CUDA C frame of a generated
 * kernel (its signature, its params, the WGSL scalar built-ins CUDA lacks), and the launch that
 * hands a generated kernel's named params to the backend.
 *
 * A generated CUDA kernel takes, in order, a pointer per buffer (as the WGSL binds its storage
 * buffers) and then each named param as a 32-bit word (the internal argument layout: metadata
 * words, see `runtime/server/cuda/launch/launcher.ts`); the frame turns the words back into a
 * local `params` struct, so a CUDA body reads `params.n` as the WGSL does. An `elementwise` kernel
 * takes its params as typed C parameters by their names instead (`typedParams`), passed by name,
 * so that a captured graph's `replay({ params })` rewrites them on CUDA as on WebGPU; the other
 * kernels may follow (their bodies declare locals named as some params, and some bind a buffer
 * as another element type than its pointer's, which the named path checks).
 *
 * @module
 */

import type { ComputeClient } from "../client/client.ts";
import type { CubeCount } from "../core/cube_count.ts";
import { KernelArgumentError, UnsupportedError } from "../core/errors.ts";
import { describe } from "../core/_argument_checks.ts";
import type { Handle } from "../core/handles/handle.ts";
import type { KernelParams } from "../core/kernel.ts";
import { fixedParams } from "../server/_fixed_params.ts";
import type { StreamId } from "../core/stream_id.ts";
import type { ElementType } from "./elementwise.ts";
import { runKernel } from "./record_kernels.ts";
import { translateWgslExpression, WGSL_OPERATORS } from "./_wgsl_expression.ts";

/** The backends whose kernel text the helpers generate. */
export type KernelBackend = "webgpu" | "cuda";

/** A generated WGSL kernel: its id (cache key, name in errors) and its source. */
export interface WgslText {
  readonly id: string;
  readonly source: string;
}

/** A generated CUDA C kernel, in the shape the CUDA backend launches (`CudaKernel`). */
export interface CudaText {
  readonly id: string;
  /** CUDA C, compiled once per device by NVRTC through the server's module cache. */
  readonly source: string;
  readonly entryPoint: string;
  readonly blockSize: readonly [number, number, number];
  /** Dynamic shared memory per block, bytes. */
  readonly sharedMemoryBytes?: number;
  /** The params the kernel takes after its pointers, in order. */
  readonly params: readonly (readonly [string, ElementType])[];
  /**
   * Whether the params are typed C parameters by their names ({@linkcode cudaFrame}'s `typed`),
   * passed by name (so a graph's `replay({ params })` rewrites them), not 32-bit words.
   */
  readonly typedParams?: boolean;
}

/** A kernel text of either backend. */
export type BackendText = WgslText | CudaText;

const backends = new WeakMap<ComputeClient, KernelBackend>();

/**
 * The kernel backend of `client` (looked up once per client): `UnsupportedError` naming `what`
 * for a backend without generated kernels.
 */
export function backendOf(client: ComputeClient, what: string): KernelBackend {
  let found = backends.get(client);
  if (found === undefined) {
    const backend = client.server.properties.backend;
    if (backend !== "webgpu" && backend !== "cuda") {
      throw new UnsupportedError(`${what} has no kernel for the ${backend} backend`);
    }
    backends.set(client, found = backend);
  }
  return found;
}

/** C type of an element type. */
export const C_TYPE: Readonly<Record<ElementType, string>> = {
  f32: "float",
  i32: "int",
  u32: "unsigned int",
};

/**
 * `code` converted to `type` as WGSL's `T(e)` converts (the helpers' outputs): an f32 to an
 * integer rounds toward zero and clamps to the type's range as WGSL does (`i32(3e9)` is
 * 2147483520), NaN to 0; C's cast saturates at 2147483647 instead.
 */
export function cudaConvert(type: ElementType, code: string): string {
  return type === "f32" ? `(float)(${code})` : `wgsl_${type}(${code})`;
}

/**
 * The WGSL scalar built-ins that expressions written for the WGSL helpers use, in CUDA C++:
 * the type names as functional casts (`f32(x)`), `select`, `clamp`, `bitcast<T>`, `neg_inf`,
 * `pos_inf`, `nan` (CUDA's math library gives `min`, `max`, `abs`, `sqrt`, `exp`, ... itself).
 */
export const CUDA_PRELUDE = `typedef float f32;
typedef int i32;
typedef unsigned int u32;
template <class T> __device__ __forceinline__ T select(T f, T t, bool c) { return c ? t : f; }
template <class T> __device__ __forceinline__ T clamp(T x, T lo, T hi) { return min(max(x, lo), hi); }
template <class T, class S> __device__ __forceinline__ T bitcast(S s) { union { S s; T t; } u; u.s = s; return u.t; }
__device__ __forceinline__ float neg_inf() { return __int_as_float(0xff800000); }
__device__ __forceinline__ float pos_inf() { return __int_as_float(0x7f800000); }
__device__ __forceinline__ float nan() { return __int_as_float(0x7fc00000); }
__device__ __forceinline__ unsigned int global_block() { return blockIdx.x + blockIdx.y * gridDim.x; }
${WGSL_OPERATORS}`;

/**
 * A WGSL scalar expression as CUDA C++ with WGSL's meaning (`_wgsl_expression.ts`: integer
 * division and shifts, `round`, f32 literals, integer literals typed as the identifiers of
 * `types` beside them: `max(v, 0)`); one it cannot read keeps its text, literal
 * suffixes C lacks (`2i`, `1f`) made C's. The rest is shared syntax (operators, calls, the
 * built-ins of `CUDA_PRELUDE`).
 */
export function cudaExpression(
  wgsl: string,
  types: readonly (readonly [string, ElementType])[] = [],
): string {
  const translated = translateWgslExpression(wgsl, Object.fromEntries(types));
  if (translated !== undefined) return translated;
  return wgsl.replace(/\b(\d+)i\b/g, "$1").replace(/\b(\d+)f\b/g, "$1.0f")
    .replace(/\b(0x[0-9a-fA-F]+)i\b/g, "(int)$1");
}

/** One pointer parameter of a CUDA kernel: its name, element C type, and whether read-only. */
export type CudaBuffer = readonly [name: string, type: string, readOnly: boolean];

/**
 * The head of a generated CUDA kernel: the prelude, `extern "C" __global__ void <entry>(...)`
 * with `buffers` then `params` (as 32-bit words), and the local `params` struct, up to the
 * opening brace of the body.
 */
export function cudaFrame(
  entry: string,
  buffers: readonly CudaBuffer[],
  params: readonly (readonly [string, ElementType])[],
  typed = false,
): string {
  const pointers = buffers.map(([name, type, readOnly]) =>
    `${readOnly ? "const " : ""}${type}* __restrict__ ${name}`
  );
  if (typed) {
    // The params are the kernel's own typed parameters, in scope by their names.
    const typedParams = params.map(([name, type]) => `${C_TYPE[type]} ${name}`);
    return `${CUDA_PRELUDE}
extern "C" __global__ void ${entry}(${[...pointers, ...typedParams].join(", ")}) {`;
  }
  const words = params.map(([name]) => `unsigned int p_${name}`);
  const fields = params.map(([name, type]) => `${C_TYPE[type]} ${name};`).join(" ");
  const values = params.map(([name, type]) =>
    type === "f32" ? `__uint_as_float(p_${name})` : type === "i32" ? `(int)p_${name}` : `p_${name}`
  );
  return `${CUDA_PRELUDE}
extern "C" __global__ void ${entry}(${[...pointers, ...words].join(", ")}) {
  struct Params { ${fields} };
  const Params params = { ${values.join(", ")} };
  (void)params;`;
}

/** What {@linkcode launch} launches: workgroups/blocks (`count`) or invocations (`threads`). */
export interface GeneratedLaunch {
  readonly threads?: number;
  readonly count?: CubeCount;
  readonly buffers: readonly Handle[];
  readonly params?: KernelParams;
  readonly stream?: StreamId;
  /**
   * The params a captured graph's `replay({ params })` may not rewrite: the kernel's own (an
   * element count, a shape). `true`: all of them; the user's params of `elementwise` and
   * `reduction` stay replayable.
   * @default {true}
   */
  readonly fixed?: ReadonlySet<string> | true;
}

const words = new Float32Array(1);
const wordBits = new Uint32Array(words.buffer);

/**
 * A named param as its 32-bit word, checked as WebGPU checks a uniform field (the same values
 * refused, `KernelArgumentError` naming it): an integer in the type's range, an f32 that does
 * not overflow to Infinity (NaN and the infinities given are kept).
 */
function paramWord(kernel: string, name: string, type: ElementType, given: unknown): number {
  const value = typeof given === "bigint" && type !== "f32" ? Number(given) : given;
  if (typeof value === "number") {
    if (type === "f32") {
      words[0] = value;
      if (Number.isFinite(words[0]) || !Number.isFinite(value)) return wordBits[0];
    } else if (Number.isInteger(value)) {
      if (type === "u32" && value >= 0 && value <= 0xffffffff) return value;
      if (type === "i32" && value >= -0x80000000 && value <= 0x7fffffff) return value >>> 0;
    }
  }
  const what = `params.${name}`;
  if (given === undefined) throw new KernelArgumentError(kernel, what, `is missing (${type})`);
  throw new KernelArgumentError(
    kernel,
    what,
    typeof value !== "number"
      ? `must be a number (${type}), got ${describe(given)}`
      : type === "f32"
      ? `is ${value}, beyond the largest f32 (${F32_MAX}): it would be Infinity`
      : `must be an integer in ${
        type === "u32" ? "[0, 4294967295]" : "[-2147483648, 2147483647]"
      }` +
        ` (${type}), got ${describe(given)}`,
  );
}

/** The largest finite f32. */
const F32_MAX = 3.4028234663852886e38;

/**
 * Launches a generated kernel on `client`: a WGSL text with its named params as they are, a
 * CUDA text with its params as 32-bit words in the kernel's order, each checked as WebGPU checks
 * it (`KernelArgumentError` for a missing, unknown or out-of-range one).
 */
export function launch(client: ComputeClient, kernel: BackendText, options: GeneratedLaunch): void {
  const { threads, count, buffers, stream } = options;
  if (!fixedParams.has(kernel)) fixedParams.set(kernel, options.fixed ?? true);
  if (!("params" in kernel) || !("entryPoint" in kernel)) {
    runKernel(client, kernel, { threads, count, buffers, params: options.params, stream });
    return;
  }
  const given = (options.params ?? {}) as Record<string, unknown>;
  for (const name in given) {
    if (Object.hasOwn(given, name) && !kernel.params.some(([p]) => p === name)) {
      throw new KernelArgumentError(
        kernel.id,
        `params.${name}`,
        `is not a param of the kernel (${kernel.params.map(([p]) => p).join(", ")})`,
      );
    }
  }
  const data = new Uint32Array(kernel.params.length);
  kernel.params.forEach(([name, type], k) => {
    data[k] = paramWord(kernel.id, name, type, given[name]);
  });
  if (kernel.typedParams === true) {
    const named = Object.fromEntries(kernel.params.map(([name]) => [name, Number(given[name])]));
    runKernel(client, kernel, { threads, count, buffers, params: named, stream });
    return;
  }
  runKernel(client, kernel, {
    threads,
    count,
    buffers,
    metadata: data.length > 0 ? { data, staticLength: data.length } : undefined,
    stream,
  });
}

/** Kernel-text generators of one primitive by backend, each memoized by key. */
export interface TextProviders {
  readonly webgpu: (key: string) => BackendText;
  readonly cuda: (key: string) => BackendText;
}

/**
 * The per-backend kernel texts of a primitive: `(client, what, key)` gives the text of `key` for
 * the client's backend, generated once per backend and key (the CUDA server compiles a source
 * once per device and caches the module).
 */
export function backendTexts(
  providers: TextProviders,
): (client: ComputeClient, what: string, key: string) => BackendText {
  const caches = { webgpu: new Map<string, BackendText>(), cuda: new Map<string, BackendText>() };
  return (client, what, key) => {
    const backend = backendOf(client, what);
    const cache = caches[backend];
    let found = cache.get(key);
    if (found === undefined) cache.set(key, found = providers[backend](key));
    return found;
  };
}
