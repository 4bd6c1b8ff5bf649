/**
 * What the user-port tests share (tests/cuda_user_ports_test.ts,
 * tests/cuda_user_ports_edges_test.ts): the two backends they run on, WebGPU (the default
 * adapter) and CUDA (the simulated driver, CUDA C compiled by NVRTC), each with why it is
 * skipped; and a comparison with a CPU reference.
 *
 * @module
 */
import assert from "node:assert/strict";
import { type ComputeClient, createClient } from "../mod.ts";
import { nvrtcSkip, simulatedCudaClient } from "./_cuda_nvrtc.ts";

const adapter = await navigator.gpu?.requestAdapter();

/** A backend of the ports: its name, why it is skipped (or `undefined`), and a client. */
export interface PortBackend {
  readonly name: "webgpu" | "cuda";
  readonly skip: string | undefined;
  readonly open: () => Promise<ComputeClient>;
}

/** WebGPU and CUDA. */
export const backends: readonly PortBackend[] = [
  {
    name: "webgpu",
    skip: adapter ? undefined : "no WebGPU adapter",
    open: () => createClient({ adapter: adapter! }),
  },
  { name: "cuda", skip: nvrtcSkip, open: simulatedCudaClient },
];

/** The test's name on `backend`, with the reason when it is skipped. */
export function portName(backend: PortBackend, name: string): string {
  return `user ports on ${backend.name}: ${name}${
    backend.skip ? ` (skipped: ${backend.skip})` : ""
  }`;
}

/** `got` equals `want` element by element, within `tol` relative (0: exactly, NaN as NaN). */
export function near(
  got: ArrayLike<number>,
  want: ArrayLike<number>,
  tol: number,
  what: string,
): void {
  assert.equal(got.length, want.length, `${what}: length`);
  for (let i = 0; i < want.length; i++) {
    const [g, w] = [got[i], want[i]];
    const ok = g === w ||
      (Number.isNaN(w) ? Number.isNaN(g) : Math.abs(g - w) <= tol * Math.max(1, Math.abs(w)));
    assert.ok(ok, `${what}[${i}]: got ${g}, want ${w}`);
  }
}
