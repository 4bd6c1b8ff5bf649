/**
 * QA wave 5, the differential test's harness: runs one call (tests/_qa5_diff_calls.ts) on a client
 * and says what came of it, in words that must be the same on every backend: the result's type
 * and values, or the error's class and `code` and where it came (at the call, from the promise,
 * or at the read after it), or that it never settled.
 *
 * @module
 */
import type { ComputeClient, Handle } from "../mod.ts";
import type { KernelMetadata } from "../backend.ts";
import { type DiffCall, type DiffEnv, SLOTS } from "./_qa5_diff_calls.ts";

/** What came of a call: `key` is compared between backends, `detail` explains it. */
export interface Outcome {
  readonly key: string;
  readonly detail: string;
}

const LIMIT_MS = 5000;

/** `value` awaited, or a rejection saying it never settled. */
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
  const code = (error as { code?: unknown }).code;
  return `${error.constructor.name}${code === undefined ? "" : ` ${String(code)}`}`;
}

const isHandle = (value: unknown): value is Handle =>
  typeof value === "object" && value !== null && "withOffsetStart" in value && "dtype" in value;

function show(array: unknown): string {
  if (!ArrayBuffer.isView(array)) return String(array);
  const values = Array.from(
    array as unknown as ArrayLike<number | bigint>,
    (v) => Object.is(v, -0) ? "-0" : String(v),
  );
  return `${array.constructor.name}[${values.join(",")}]`;
}

/** Reads `handle` on `client` as its own type. */
async function readOf(client: ComputeClient, handle: Handle): Promise<string> {
  return `${handle.dtype}:${show(await settled(client.read(handle)))}`;
}

/** Runs `call` on `env` and says what came of it. */
export async function outcome(env: DiffEnv, call: DiffCall): Promise<Outcome> {
  let value: unknown;
  try {
    value = call.run(env);
  } catch (error) {
    return { key: `throws at the call: ${errorKey(error)}`, detail: String(error) };
  }
  try {
    value = await settled(value);
  } catch (error) {
    return { key: `rejects: ${errorKey(error)}`, detail: String(error) };
  }
  try {
    return { key: `ok: ${await resultOf(env, call, value)}`, detail: "" };
  } catch (error) {
    return { key: `the read after it fails: ${errorKey(error)}`, detail: String(error) };
  }
}

async function resultOf(env: DiffEnv, call: DiffCall, value: unknown): Promise<string> {
  if (isHandle(value)) {
    if (call.keep !== undefined) {
      env.slots[call.keep]?.dispose();
      env.slots[call.keep] = value;
      return await readOf(env.client, value);
    }
    try {
      return await readOf(env.client, value);
    } finally {
      value.dispose();
    }
  }
  if (ArrayBuffer.isView(value)) return show(value);
  if (value === undefined) {
    const handle = call.readSlot === undefined ? undefined : env.slots[call.readSlot];
    return handle === undefined || handle.disposed ? "done" : await readOf(env.client, handle);
  }
  if (typeof value === "object" && value !== null) {
    const parts: string[] = [];
    for (const [name, part] of Object.entries(value)) {
      if (isHandle(part)) {
        try {
          parts.push(`${name}=${await readOf(env.client, part)}`);
        } finally {
          part.dispose();
        }
      } else parts.push(`${name}=${show(part)}`);
    }
    return `{${parts.join(" ")}}`;
  }
  return String(value);
}

/**
 * Whether `webgpu` and `cuda` differ as docs/known_issues.md says they do: WebGPU refuses (at the
 * call) to bind a slice at an offset that is not a multiple of `minStorageBufferOffsetAlignment`,
 * or a handle of 0 bytes, which CUDA binds; a generated kernel that does not compile fails at the
 * call on CUDA, later on WebGPU. The slots may then differ: the program ends there.
 */
export function documented(webgpu: Outcome, cuda: Outcome): boolean {
  if (
    cuda.key === "throws at the call: CompilationError COMPILATION" &&
    (webgpu.key === "the read after it fails: CompilationError COMPILATION" ||
      webgpu.key === "rejects: CompilationError COMPILATION")
  ) {
    // A generated kernel that does not compile: NVRTC says so at the call, WebGPU's compiler
    // only later (docs/known_issues.md), the same error.
    return true;
  }
  if (
    webgpu.key === "throws at the call: CompilationError COMPILATION" &&
    cuda.key === "throws at the call: KernelArgumentError KERNEL_ARGUMENT"
  ) {
    // A kernel whose compile failed before: WebGPU throws the verdict before the params' error.
    return true;
  }
  // A launch inside an async call (profile, capture) rejects where a plain one throws.
  const refused = (key: string) =>
    webgpu.key === `throws at the call: ${key}` || webgpu.key === `rejects: ${key}`;
  const binding =
    (refused("RangeError") && /minStorageBufferOffsetAlignment/.test(webgpu.detail)) ||
    (refused("KernelArgumentError KERNEL_ARGUMENT") && /has 0 bytes/.test(webgpu.detail));
  // CUDA binds them and goes on: to a result, or to a mistake further on (a compile error, a
  // call a capture refuses) that WebGPU did not reach.
  return binding;
}

/** The slots every program starts from, the same on every client. */
export function startSlots(client: ComputeClient): Handle[] {
  return [
    client.createWithData(Uint32Array.from({ length: 16 }, (_, i) => (i * 7) % 5)),
    client.createWithData(Float32Array.from({ length: 16 }, (_, i) => (i * 3) % 7 - 3)),
    client.createWithData(Int32Array.from({ length: 8 }, (_, i) => 4 - i)),
    client.createWithData(new Uint32Array([3, 1, 0, 2])),
  ].slice(0, SLOTS);
}

/** Whether `client` still runs `add` exactly: a string naming what went wrong, or "usable". */
export async function usable(client: ComputeClient, add: KernelMetadata): Promise<string> {
  try {
    using x = client.createWithData(new Uint32Array([1, 2, 3, 4, 5]));
    using y = client.zeros(5, "u32");
    client.execute(add as never, { threads: 5, buffers: [x, y], params: { c: 10, n: 5 } });
    return show(await settled(client.read(y)));
  } catch (error) {
    return `not usable: ${errorKey(error)} ${error}`;
  }
}
