/**
 * The client conformance suite (issue #26): the table of mistakes of `_client_conformance_cases.ts`
 * run through `ComputeClient` on any backend, on an idle stream and on a stream held by `waitFor`.
 * Each case asserts the error class, its code, the argument it names, that it came at the call
 * (thrown synchronously by a synchronous API; rejected before the held calls ran by an
 * asynchronous one), and that an exact computation follows on the same client. Run from
 * tests/client_conformance_webgpu_test.ts, tests/cuda_client_conformance_test.ts and the browser
 * suite (tests/browser/suite_page.ts).
 *
 * @module
 */

import assert from "node:assert/strict";
import { type ComputeClient, ComputeError, CpuTimelineSignal, type Handle } from "../mod.ts";
import type { KernelMetadata } from "../backend.ts";
import {
  type Case,
  type CaseEnv,
  CASES,
  scaleOptions,
  scaleWgsl,
} from "./_client_conformance_cases.ts";

export { CASES, scaleOptions, scaleWgsl };
export type { Case, CaseEnv };

/** What a backend gives the suite. */
export interface ClientConformanceKit<K extends KernelMetadata> {
  /** A new client of the backend (the suite destroys it). */
  readonly createClient: () => Promise<ComputeClient<K>>;
  /** `v[i] *= s` for `i < n`: buffers `[v: f32]`, metadata `[n]`, scalars `{ f32: [s] }`. */
  readonly scale: K;
  /** Whether the kernels declare element types and sizes (WGSL): the `typedKernels` cases. */
  readonly typedKernels: boolean;
  /**
   * Why the helpers' and primitives' cases are skipped on this backend, if they are (the
   * `helpers` cases: `topk`, `histogram`, ... have kernel text for WGSL only for now).
   */
  readonly skipHelpers?: string;
}

/** The subset of `Deno.TestContext` the suite uses (the browser harness gives the same). */
export interface StepContext {
  step(name: string, fn: (t: StepContext) => void | Promise<void>): Promise<boolean>;
  step(
    definition: { name: string; ignore?: boolean; fn: (t: StepContext) => void | Promise<void> },
  ): Promise<boolean>;
}

/** How the stream is when the mistake is made. */
type Path = "idle stream" | "held stream";
const PATHS: readonly Path[] = ["idle stream", "held stream"];

/** Runs every case of the table on the kit's backend, on both paths. */
export async function clientConformance<K extends KernelMetadata>(
  t: StepContext,
  kit: ClientConformanceKit<K>,
): Promise<void> {
  const client = await kit.createClient();
  const other = await kit.createClient();
  const destroyed = await kit.createClient();
  destroyed.destroy();
  try {
    for (const path of PATHS) {
      await t.step(path, async (t) => {
        for (const c of CASES) {
          if (c.typedKernels && !kit.typedKernels) continue;
          const skip = c.helpers && kit.skipHelpers !== undefined
            ? kit.skipHelpers
            : path === "held stream"
            ? c.idleOnly
            : undefined;
          await t.step({
            name: skip === undefined ? c.name : `${c.name} (skipped: ${skip})`,
            ignore: skip !== undefined,
            fn: () => runCase(c, path, { kit, client, other, destroyed }),
          });
        }
      });
    }
    await t.step(
      "a held launch on a handle copied through the host is checked at the call",
      () => heldCopyCase(kit, client, other),
    );
  } finally {
    client.destroy();
    other.destroy();
  }
}

interface Clients<K extends KernelMetadata> {
  readonly kit: ClientConformanceKit<K>;
  readonly client: ComputeClient<K>;
  readonly other: ComputeClient<K>;
  readonly destroyed: ComputeClient<K>;
}

async function runCase<K extends KernelMetadata>(
  c: Case,
  path: Path,
  { kit, client, other, destroyed }: Clients<K>,
): Promise<void> {
  using floats = client.createWithData(new Float32Array([1, 2, 3, 4]));
  using ints = client.createWithData(new Int32Array([1, 2, 3, 4]));
  using foreign = other.createWithData(new Float32Array([5, 6, 7, 8]));
  const disposed = client.createWithData(new Float32Array(4));
  await client.sync(); // nothing queued pins it any more
  disposed.dispose();
  const env = { client, other, destroyed, scale: kit.scale, floats, ints, foreign, disposed };
  // Held: every call on the stream waits for `gate`, set only after the mistake was reported.
  const gate = new CpuTimelineSignal();
  if (path === "held stream") client.waitFor(gate, 1);
  let error: unknown;
  let returned: unknown;
  try {
    returned = c.act(env as unknown as CaseEnv);
  } catch (thrown) {
    error = thrown ?? new Error("threw nothing");
  }
  if (error === undefined && returned instanceof Promise) {
    // An asynchronous API reports the mistake before the held calls run (none has yet).
    const late = Symbol("late");
    let timer: ReturnType<typeof setTimeout> | undefined;
    const settled = await Promise.race([
      returned.then(() => undefined, (rejected) => rejected ?? new Error("rejected nothing")),
      new Promise((resolve) => timer = setTimeout(() => resolve(late), 200)),
    ]);
    clearTimeout(timer);
    if (settled === late) {
      gate.set(1);
      await returned.catch(() => {});
      assert.fail(`${c.name}: not reported at the call (only once the held calls ran)`);
    }
    error = settled;
  }
  gate.set(1);
  if (returned !== undefined && typeof (returned as Handle).dispose === "function") {
    (returned as Handle).dispose();
  }
  checkError(c, error);
  // Both at once (their device round trips overlap); a refused copyTo leaves its destination
  // usable too.
  await Promise.all([exactComputation(kit, client), exactComputation(kit, other)]);
}

function checkError(c: Case, error: unknown): void {
  assert.ok(error !== undefined, `${c.name}: no error`);
  assert.ok(error instanceof c.error, `${c.name}: ${error} is not a ${c.error.name}`);
  if (c.code !== undefined) {
    assert.ok(error instanceof ComputeError, `${c.name}: ${error} is not a ComputeError`);
    assert.equal(error.code, c.code, `${c.name}: ${error}`);
  }
  const argument = (error as { argument?: string }).argument;
  const text = argument ?? (error as Error).message;
  assert.match(text, c.names, `${c.name}: the error does not name the argument: ${error}`);
}

/** The scale kernel on fresh data gives exact values, and the stream has no error left. */
async function exactComputation<K extends KernelMetadata>(
  kit: ClientConformanceKit<K>,
  client: ComputeClient<K>,
): Promise<void> {
  const n = 300;
  using v = client.createWithData(Float32Array.from({ length: n }, (_, i) => i - 100));
  client.execute(kit.scale, scaleOptions(v, n, 3) as never);
  const got = await client.read(v);
  assert.deepEqual([...got], Array.from({ length: n }, (_, i) => (i - 100) * 3));
  await client.sync();
}

/**
 * Issue #26, item 5: `y = a.copyTo(i32Handle, b)` holds `b`'s stream until the copy lands (through
 * the host where the devices cannot copy); a launch on it with a mistake is refused at the call,
 * not by `b`'s next read. Where the copy runs on the devices nothing is held, and the launch is
 * refused at the call too.
 */
async function heldCopyCase<K extends KernelMetadata>(
  kit: ClientConformanceKit<K>,
  a: ComputeClient<K>,
  b: ComputeClient<K>,
): Promise<void> {
  using ints = a.createWithData(new Int32Array([1, 2, 3, 4]));
  using floats = a.createWithData(new Float32Array([1, 2, 3, 4]));
  using y = a.copyTo(ints, b);
  using z = a.copyTo(floats, b);
  if (kit.typedKernels) {
    assert.throws(
      () => b.execute(kit.scale, scaleOptions(y, 4, 2) as never),
      (e) => e instanceof ComputeError && e.code === "KERNEL_ARGUMENT",
    );
  }
  using foreign = a.createWithData(new Float32Array(4));
  assert.throws(
    () => b.execute(kit.scale, scaleOptions(foreign, 4, 2) as never),
    (e) => e instanceof ComputeError && e.code === "INVALID_HANDLE",
  );
  b.execute(kit.scale, scaleOptions(z, 4, 2) as never);
  assert.deepEqual([...await b.read(y)], [1, 2, 3, 4]);
  assert.deepEqual([...await b.read(z)], [2, 4, 6, 8]);
  await exactComputation(kit, b);
  await exactComputation(kit, a);
}
