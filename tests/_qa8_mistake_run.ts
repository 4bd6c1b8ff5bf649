/**
 * QA wave 8, the mistakes table's harness: the handles and kernels every mistaken call works on
 * (the same on a WebGPU and a CUDA client), what came of a call in words that must be equal on
 * both backends (the error's class and `code`, and whether it came at the call, from the promise
 * or only at the read after it), and the check that the client still runs a correct launch.
 *
 * @module
 */
import type { ComputeClient, Handle, WgslKernel } from "../mod.ts";
import type { CudaKernel } from "../runtime/server/cuda/mod.ts";
import type { KernelMetadata } from "../backend.ts";
import { ADD_CUDA, ADD_WGSL } from "./_client_programs.ts";

/** `y[i] = x[i] * s + f32(a)` for `i < n` over f32, with an i32, an f32 and a u32 param. */
export const MIX_WGSL: WgslKernel = {
  source: `
struct P { a: i32, s: f32, n: u32 }
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@group(0) @binding(2) var<uniform> p: P;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3u) {
  if (id.x < p.n) { y[id.x] = x[id.x] * p.s + f32(p.a); }
}`,
};

/** {@linkcode MIX_WGSL} in CUDA C (NVRTC). */
export const MIX_CUDA: CudaKernel = {
  source: `extern "C" __global__ void mix(const float* x, float* y, int a, float s, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] * s + (float)a;
}`,
};

/** What a mistaken call works on; made fresh for every call. */
export interface MistakeEnv {
  readonly client: ComputeClient;
  /** The other backend's client. */
  readonly other: ComputeClient;
  /** `y[i] = x[i] + c` for `i < n` over u32 (`buffers: [x, y]`, `params: { c, n }`). */
  readonly add: KernelMetadata;
  /** {@linkcode MIX_WGSL} or {@linkcode MIX_CUDA}. */
  readonly mix: KernelMetadata;
  /** u32 [1, 2, 3, 4]. */
  readonly u: Handle<"u32">;
  /** u32 [0, 0, 0, 0]. */
  readonly v: Handle<"u32">;
  /** f32 [1, 2, 3, 4]. */
  readonly f: Handle<"f32">;
  /** f32 [0, 0, 0, 0]. */
  readonly g: Handle<"f32">;
  /** i32 [-1, 2, -3, 4]. */
  readonly i: Handle<"i32">;
  /** A disposed u32 handle of 4. */
  readonly gone: Handle<"u32">;
  /** A disposed f32 handle of 4. */
  readonly goneF: Handle<"f32">;
  /** A u32 handle of 4 of the other client. */
  readonly foreign: Handle<"u32">;
  /** Another client of the same backend and device. */
  readonly sibling: ComputeClient;
  /** A u32 handle [5, 6, 7, 8] of `sibling`. */
  readonly kin: Handle<"u32">;
}

/** The env of `client` (disposed by the caller with {@linkcode disposeEnv}). */
export function makeEnv(
  client: ComputeClient,
  other: ComputeClient,
  sibling: ComputeClient,
): MistakeEnv {
  const cuda = client.server.properties.backend === "cuda";
  const gone = client.createWithData(new Uint32Array(4));
  gone.dispose();
  const goneF = client.createWithData(new Float32Array(4));
  goneF.dispose();
  return {
    client,
    other,
    add: (cuda ? ADD_CUDA : ADD_WGSL) as KernelMetadata,
    mix: (cuda ? MIX_CUDA : MIX_WGSL) as KernelMetadata,
    u: client.createWithData(new Uint32Array([1, 2, 3, 4])),
    v: client.zeros(4, "u32"),
    f: client.createWithData(new Float32Array([1, 2, 3, 4])),
    g: client.zeros(4, "f32"),
    i: client.createWithData(new Int32Array([-1, 2, -3, 4])),
    gone,
    goneF,
    foreign: other.createWithData(new Uint32Array([9, 8, 7, 6])),
    sibling,
    kin: sibling.createWithData(new Uint32Array([5, 6, 7, 8])),
  };
}

/** Disposes what {@linkcode makeEnv} made. */
export function disposeEnv(env: MistakeEnv): void {
  for (const h of [env.u, env.v, env.f, env.g, env.i, env.foreign, env.kin]) h.dispose();
}

/** What came of a call: `key` is compared between backends, `message` is the error's. */
export interface Outcome {
  readonly key: string;
  readonly message: string;
}

const LIMIT_MS = 5000;

async function settled<T>(value: T): Promise<Awaited<T>> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("NEVER SETTLED")), LIMIT_MS);
  });
  try {
    return await Promise.race([value, late]);
  } finally {
    clearTimeout(timer);
  }
}

function errorKey(error: unknown): string {
  if (!(error instanceof Error)) return `non-error ${String(error)}`;
  if (error.message === "NEVER SETTLED") return "never settled";
  const { code, argument } = error as { code?: unknown; argument?: unknown };
  // A KernelArgumentError names its argument in a field: the same on every backend.
  const named = argument === undefined ? "" : ` (${String(argument)})`;
  return `${error.constructor.name}${code === undefined ? "" : ` ${String(code)}`}${named}`;
}

const isHandle = (value: unknown): value is Handle =>
  typeof value === "object" && value !== null && "withOffsetStart" in value && "dtype" in value;

function show(value: unknown): string {
  if (!ArrayBuffer.isView(value)) return String(value);
  const list = Array.from(value as unknown as ArrayLike<number | bigint>, String);
  return `${value.constructor.name}[${list.join(",")}]`;
}

/**
 * Runs `call` on `env` and says what came of it: a handle it returns is read and disposed, an
 * object of handles too; a call with no result is followed by a read of `env.v` and `env.g` (a
 * launch's error may come only there).
 */
export async function outcome(
  env: MistakeEnv,
  call: (env: MistakeEnv) => unknown,
): Promise<Outcome> {
  let value: unknown;
  try {
    value = call(env);
  } catch (error) {
    return { key: `throws at the call: ${errorKey(error)}`, message: String(error) };
  }
  try {
    value = await settled(value);
  } catch (error) {
    return { key: `rejects: ${errorKey(error)}`, message: String(error) };
  }
  try {
    return { key: `ok: ${await resultOf(env, value)}`, message: "" };
  } catch (error) {
    return { key: `the read after it fails: ${errorKey(error)}`, message: String(error) };
  }
}

async function resultOf(env: MistakeEnv, value: unknown): Promise<string> {
  const { client } = env;
  if (isHandle(value)) {
    try {
      return `${value.dtype}:${show(await settled(client.read(value)))}`;
    } finally {
      value.dispose();
    }
  }
  if (value === undefined) {
    const [v, g] = await settled(client.readMany([env.v, env.g]));
    return `v=${show(v)} g=${show(g)}`;
  }
  if (typeof value === "object" && value !== null && !ArrayBuffer.isView(value)) {
    const parts: string[] = [];
    for (const [name, part] of Object.entries(value)) {
      if (!isHandle(part)) {
        parts.push(`${name}=${show(part)}`);
        continue;
      }
      try {
        parts.push(`${name}=${show(await settled(client.read(part)))}`);
      } finally {
        part.dispose();
      }
    }
    return `{${parts.join(" ")}}`;
  }
  return show(value);
}

/** Whether `client` still runs `add` exactly: "usable", or what went wrong. */
export async function usable(client: ComputeClient, add: KernelMetadata): Promise<string> {
  try {
    using x = client.createWithData(new Uint32Array([1, 2, 3, 4, 5]));
    using y = client.zeros(5, "u32");
    client.execute(add as never, { threads: 5, buffers: [x, y], params: { c: 10, n: 5 } });
    const got = show(await settled(client.read(y)));
    return got === "Uint32Array[11,12,13,14,15]" ? "usable" : `not usable: read ${got}`;
  } catch (error) {
    return `not usable: ${errorKey(error)} ${error}`;
  }
}
