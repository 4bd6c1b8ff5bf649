/**
 * A kernel that is valid only as declared under Chrome's Tint (a workgroup barrier under a branch
 * on a `var<storage, read>` value: uniform as declared, non-uniform widened to `read_write`), run
 * with its read-only inputs and its output as slices of one pool page, so that the client must
 * copy the read-only slices (`launch/_read_only_copies.ts`) where it runs the declared module.
 * Checked against a CPU reference. Shared by the Deno test and the browser group.
 *
 * @module
 */

import assert from "node:assert/strict";
import { CubeCount, type WebGpuClient, type WgslKernel } from "../mod.ts";
import type { WebGpuServer } from "../runtime/server/webgpu/mod.ts";

/** `y[i] += x[64 w + 63 - l]` through workgroup memory when `mode[0] == 1`, else `y[i] = x[i]`. */
export const tileReverse: WgslKernel = {
  id: "tests.tile_reverse",
  source: /* wgsl */ `
@group(0) @binding(0) var<storage, read> mode: array<u32>;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read_write> y: array<f32>;
var<workgroup> tile: array<f32, 64>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) l: u32, @builtin(workgroup_id) w: vec3u) {
  let i = w.x * 64u + l;
  if (mode[0] == 1u) {
    tile[l] = x[i];
    workgroupBarrier();
    y[i] = y[i] + tile[63u - l];
  } else {
    y[i] = x[i];
  }
}`,
};

const groups = 4, n = 64 * groups;

/** The CPU reference of one launch. */
function reference(mode: number, x: Float32Array, y: Float32Array): void {
  for (let i = 0; i < n; i++) {
    const w = Math.floor(i / 64), l = i % 64;
    y[i] = mode === 1 ? Math.fround(y[i] + x[w * 64 + 63 - l]) : x[i];
  }
}

/**
 * Runs `tileReverse` with its inputs and output on one page, alternating which handle is read
 * and which written, and compares both with the CPU.
 */
export async function runTileReverse(client: WebGpuClient): Promise<void> {
  using mode = client.createWithData(new Uint32Array([1]));
  using a = client.createWithData(Float32Array.from({ length: n }, (_, i) => (i * 37) % 101 - 50));
  using b = client.createWithData(Float32Array.from({ length: n }, (_, i) => i / 8));
  const server = client.server as WebGpuServer;
  const page = (h: typeof a | typeof mode) => server.getResource(h.ref(), 0).resource;
  assert.equal(page(mode), page(b), "the inputs and the output are slices of one page");
  assert.equal(page(a), page(b));
  const cpuA = Float32Array.from({ length: n }, (_, i) => (i * 37) % 101 - 50);
  const cpuB = Float32Array.from({ length: n }, (_, i) => i / 8);
  const count = CubeCount.new1d(groups);
  for (let r = 0; r < 3; r++) {
    client.execute(tileReverse, { count, buffers: [mode, a, b] });
    reference(1, cpuA, cpuB);
    client.execute(tileReverse, { count, buffers: [mode, b, a] }); // reads what it just wrote
    reference(1, cpuB, cpuA);
  }
  client.write(mode, new Uint32Array([0]));
  client.execute(tileReverse, { count, buffers: [mode, a, b] });
  reference(0, cpuA, cpuB);
  const [gotA, gotB] = await client.readMany([a, b], Float32Array);
  assert.deepEqual(gotA, cpuA);
  assert.deepEqual(gotB, cpuB);
}
