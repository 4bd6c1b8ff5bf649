/**
 * The one place where the helpers and primitives meet a backend: which kernel text a client
 * takes (WGSL on WebGPU, CUDA C on CUDA, chosen once per client), the CUDA C frame of a generated
 * kernel (its signature, its params, the WGSL scalar built-ins CUDA lacks), and the launch that
 * hands a generated kernel's named params to the backend.
 *
 * A generated CUDA kernel takes, in order, a pointer per buffer (as the WGSL binds its storage
 * buffers) and then each named param with its C type, passed by name as on WebGPU (the server
 * packs them by the kernel's signature), so a captured graph's replay may change them; the frame
 * hands them to the body as a `params` struct, so a CUDA body reads `params.n` as the WGSL does.
 * The params a helper sets itself are named to the client (`OWN_PARAMS`): a replay refuses them.
 *
 * @module
 */

import type { ComputeClient } from "../client/client.ts";
import type { CubeCount } from "../core/cube_count.ts";
import { CompilationError, KernelArgumentError, UnsupportedError } from "../core/errors.ts";
import { describe } from "../core/_argument_checks.ts";
import type { Handle } from "../core/handles/handle.ts";
import type { KernelParams } from "../core/kernel.ts";
import type { StreamId } from "../core/stream_id.ts";
import type { ElementType } from "./elementwise.ts";
import { runKernel } from "./record_kernels.ts";
import { type HelperExecuteOptions, OWN_PARAMS } from "../client/_helper_params.ts";
import {
  translateWgslExpression,
  WGSL_OPERATORS,
  WgslExpressionError,
} from "./wgsl/_wgsl_expression.ts";

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
 * built-ins of `CUDA_PRELUDE`). A constant expression is converted to `output` where given, as
 * WGSL's `output(...)` of it (the caller's `cudaConvert` converts another).
 */
export function cudaExpression(
  wgsl: string,
  types: readonly (readonly [string, ElementType])[] = [],
  kernel = "expression",
  output?: ElementType,
): string {
  let translated: string | undefined;
  try {
    translated = translateWgslExpression(wgsl, Object.fromEntries(types), output);
  } catch (error) {
    // What WGSL refuses is refused here too, at the call, with the WebGPU backend's error.
    if (!(error instanceof WgslExpressionError)) throw error;
    throw new CompilationError(kernel, `${JSON.stringify(wgsl)}: ${error.message}`);
  }
  if (translated !== undefined) return translated;
  return wgsl.replace(/\b(\d+)i\b/g, "$1").replace(/\b(\d+)f\b/g, "$1.0f")
    .replace(/\b(0x[0-9a-fA-F]+)i\b/g, "(int)$1");
}

/** One pointer parameter of a CUDA kernel: its name, element C type, and whether read-only. */
export type CudaBuffer = readonly [name: string, type: string, readOnly: boolean];

/**
 * The head of a generated CUDA kernel, up to the opening brace of its body: the prelude, then
 * `extern "C" __global__ void <entry>(...)` taking the `buffers` as untyped pointers (any handle
 * binds, as a WGSL storage buffer takes any; `const void*` for a read-only one) and `params` by
 * name with their C types (the launch passes them by name, as on WebGPU, so a graph replay can
 * change them), which calls the body: a function taking the typed buffers under their names and
 * the params as one `params` struct, so a body reads `params.n` as the WGSL does, and neither a
 * param's name nor a buffer's can clash with the body's own names.
 */
export function cudaFrame(
  entry: string,
  buffers: readonly CudaBuffer[],
  params: readonly (readonly [string, ElementType])[],
): string {
  const pointers = buffers.map(([name, type, readOnly]) =>
    `${readOnly ? "const " : ""}${type}* __restrict__ ${name}`
  );
  const untyped = buffers.map(([, , readOnly], k) => `${readOnly ? "const " : ""}void* _b${k}`);
  const typed = buffers.map(([, type, readOnly], k) =>
    `(${readOnly ? "const " : ""}${type}*)_b${k}`
  );
  const fields = params.map(([name, type]) => `${C_TYPE[type]} ${name};`).join(" ");
  const scalars = params.map(([name, type]) => `${C_TYPE[type]} ${name}`);
  const body = `static __device__ __forceinline__ void ${entry}_body(${
    [...pointers, `const ${entry}_params params`].join(", ")
  })`;
  return `${CUDA_PRELUDE}
struct ${entry}_params { ${fields} };
${body};
extern "C" __global__ void ${entry}(${[...untyped, ...scalars].join(", ")}) {
  ${entry}_body(${
    [...typed, `${entry}_params{ ${params.map(([name]) => name).join(", ")} }`].join(", ")
  });
}
${body} {
  (void)params;`;
}

/** What {@linkcode launch} launches: workgroups/blocks (`count`) or invocations (`threads`). */
export interface GeneratedLaunch {
  readonly threads?: number;
  readonly count?: CubeCount;
  readonly buffers: readonly Handle[];
  /** The helper's own params (`n`, sizes, offsets): a graph replay may not change them. */
  readonly params?: KernelParams;
  /**
   * The caller's params (an `elementwise` or `reduction` spec's), which a graph replay may
   * change; one named as an own param is a `KernelArgumentError`.
   */
  readonly user?: KernelParams;
  readonly stream?: StreamId;
}

const words = new Float32Array(1);

/**
 * Checks a named param of a CUDA text as WebGPU checks a uniform field (the same values
 * refused, `KernelArgumentError` naming it): an integer in the type's range, an f32 that does
 * not overflow to Infinity (NaN and the infinities given are kept).
 */
function checkParam(kernel: string, name: string, type: ElementType, given: unknown): void {
  const value = typeof given === "bigint" && type !== "f32" ? Number(given) : given;
  if (typeof value === "number") {
    if (type === "f32") {
      words[0] = value;
      if (Number.isFinite(words[0]) || !Number.isFinite(value)) return;
    } else if (Number.isInteger(value)) {
      if (type === "u32" && value >= 0 && value <= 0xffffffff) return;
      if (type === "i32" && value >= -0x80000000 && value <= 0x7fffffff) return;
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

/** Whether `params` names `name` (a loop: this runs on every launch). */
function declares(params: CudaText["params"], name: string): boolean {
  for (let k = 0; k < params.length; k++) if (params[k][0] === name) return true;
  return false;
}

/** The caller's params and the helper's own as one object; an own one given is refused. */
function mergeParams(kernel: string, own: KernelParams, user: KernelParams): KernelParams {
  if (typeof user !== "object" || user === null || Array.isArray(user)) {
    throw new KernelArgumentError(kernel, "params", `must be an object, got ${describe(user)}`);
  }
  let given = 0;
  for (const name in user) {
    if (!Object.hasOwn(user, name)) continue;
    given++;
    if (Object.hasOwn(own, name)) {
      throw new KernelArgumentError(
        kernel,
        `params.${name}`,
        "is set by the helper itself, not by its caller (not a param of the spec)",
      );
    }
  }
  // No param of the caller's own (the common case): the helper's, unchanged, without a copy.
  return given === 0 ? own : { ...user, ...own };
}

/**
 * Launches a generated kernel on `client`, its params by name on both backends (a CUDA text's
 * each checked first as WebGPU checks it: `KernelArgumentError` for a missing, unknown or
 * out-of-range one). The helper's own params are named to the client (`OWN_PARAMS`), so a
 * graph replay refuses to change them.
 */
export function launch(client: ComputeClient, kernel: BackendText, options: GeneratedLaunch): void {
  const { threads, count, buffers, stream, user } = options;
  const own = options.params ?? {};
  const params = user === undefined ? own : mergeParams(kernel.id, own, user);
  if ("params" in kernel && "entryPoint" in kernel) {
    // The handles before the params, as WebGPU's launch checks them (another client's memory
    // is INVALID_HANDLE whatever the params get wrong).
    for (let i = 0; i < buffers.length; i++) client.server.checkRef?.(buffers[i].ref());
    const given = params as Record<string, unknown>;
    for (const name in given) {
      if (Object.hasOwn(given, name) && !declares(kernel.params, name)) {
        throw new KernelArgumentError(
          kernel.id,
          `params.${name}`,
          `is not a param of the kernel (${kernel.params.map(([p]) => p).join(", ")})`,
        );
      }
    }
    for (const [name, type] of kernel.params) checkParam(kernel.id, name, type, given[name]);
  }
  const options_: HelperExecuteOptions = {
    threads,
    count,
    buffers,
    params: options.params === undefined && user === undefined ? undefined : params,
    stream,
    [OWN_PARAMS]: own,
  };
  runKernel(client, kernel, options_);
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
