/**
 * The bad-input catalogue's harness: the client and handles every case works on, the builders of
 * bad launches, and the run (each case's typed error, then an exact computation on the same
 * client). The cases are in `_bad_input_*_cases.ts`.
 */
import assert from "node:assert/strict";
import { type ComputeClient, CubeCount, type Handle } from "../mod.ts";
import { ComputeError } from "../backend.ts";
import type { WebGpuServer, WgslKernel } from "../runtime/server/webgpu/mod.ts";
import { increment } from "./_wgsl_kernels.ts";

/** Its info binding needs 32 bytes: one u32 scalar fills only 16. */
export const bigInfo: WgslKernel = {
  ...increment,
  id: "big_info",
  source: `struct Big { a: vec4u, b: vec4u }
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@group(0) @binding(1) var<storage, read> info: array<Big>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3u) {
  if (id.x < arrayLength(&out)) { out[id.x] = info[0].b.x; }
}`,
};

/** What every case works on. */
export interface Env {
  readonly client: ComputeClient<WgslKernel>;
  readonly server: WebGpuServer;
  /** 64 u32 counters, incremented by every correct computation. */
  readonly data: Handle;
  /** 4 bytes. */
  readonly small: Handle;
  /** 12 bytes (3 u32). */
  readonly odd: Handle;
  /** 4 f32. */
  readonly floats: Handle<"f32">;
  /** 4 i32. */
  readonly ints: Handle<"i32">;
  /** 256 u8. */
  readonly bytes: Handle<"u8">;
}

/** A case: what to do, and the error it must get (a class, or a ComputeError code). */
export type Case = readonly [
  name: string,
  act: (env: Env) => unknown,
  expected: typeof TypeError | typeof RangeError | string,
];

/** Passes a bad value where the types would refuse it. */
export const any = (value: unknown): never => value as never;
/** A launch of `increment` on `env.data` with `options` (and `kernel`) replaced. */
export const bad = (
  env: Env,
  options: Record<string, unknown>,
  kernel: unknown = increment,
): void =>
  env.client.execute(
    any(kernel),
    any({ count: CubeCount.newSingle(), buffers: [env.data], ...options }),
  );
/** A launch with these scalars. */
export const scalars = (s: unknown): (env: Env) => void => (env: Env): void =>
  bad(env, { scalars: s });
/** A launch with this cube count. */
export const count = (c: unknown): (env: Env) => void => (env: Env): void => bad(env, { count: c });
/** A launch with these buffers. */
export const buffers = (b: (env: Env) => unknown): (env: Env) => void => (env: Env): void =>
  bad(env, { buffers: b(env) });
/** A launch of `increment` patched (a new kernel id each time). */
export const kernel = (patch: Record<string, unknown>): (env: Env) => void => (env: Env): void =>
  bad(env, {}, {
    ...increment,
    id: `bad_${Object.keys(patch).join("_")}_${Math.random()}`,
    ...patch,
  });
/** A handle disposed once nothing pins it. */
export const disposed = (env: Env): Handle => {
  const doomed = env.client.createWithData(new Uint32Array(4));
  env.client.flush(); // nothing queued pins it any more
  doomed.dispose();
  return doomed;
};
/** `increment` with another id and source. */
export const wgsl = (id: string, source: string): WgslKernel => ({ ...increment, id, source });

/** Makes the handles of the cases on a client. */
export function environment(client: ComputeClient<WgslKernel>): Env & Disposable {
  const env = {
    client,
    server: client.server as WebGpuServer,
    data: client.createWithData(new Uint32Array(64)),
    small: client.createWithData(new Uint32Array(1)),
    odd: client.createWithData(new Uint32Array(3)),
    floats: client.createWithData(new Float32Array(4)),
    ints: client.createWithData(new Int32Array(4)),
    bytes: client.createWithData(new Uint8Array(256)),
  };
  const handles = [env.data, env.small, env.odd, env.floats, env.ints, env.bytes];
  return { ...env, [Symbol.dispose]: () => handles.forEach((handle) => handle.dispose()) };
}

/**
 * Runs the cases as steps: each must fail with its error, then the same client increments every
 * counter of `env.data` exactly once more.
 */
export async function runCatalogue(
  t: Deno.TestContext,
  env: Env,
  cases: readonly Case[],
): Promise<void> {
  let expected = 0;
  for (const [name, act, error] of cases) {
    await t.step(name, async () => {
      let thrown: unknown = undefined;
      try {
        await act(env);
      } catch (e) {
        thrown = e;
      }
      if (typeof error === "string") {
        assert.ok(thrown instanceof ComputeError, `expected ${error}, got ${thrown}`);
        assert.equal(thrown.code, error, String(thrown));
      } else {
        assert.ok(thrown instanceof error, `expected ${error.name}, got ${thrown}`);
      }
      // The correct computation that follows every case.
      env.client.execute(increment, { count: CubeCount.newSingle(), buffers: [env.data] });
      expected++;
      assert.deepEqual([...await env.client.read(env.data, Uint32Array)], Array(64).fill(expected));
    });
  }
}
