import assert from "node:assert/strict";
import type { ScalarArgument, StorageType } from "../backend.ts";
import { ComputeClient, CubeCount, UnsupportedError } from "../mod.ts";
import { serverConformance, TRACE_STEP } from "./server_conformance.ts";
import { type SimKernel, SimulatedServer } from "./fixtures/simulated_server.ts";

// The simulated server runs the same contract suite as every real backend, with host kernels of
// the same semantics as the WGSL ones (tests/_wgsl_kernels.ts) and the same cube size.
const CUBE_SIZE = 64;

const scalar = (scalars: ReadonlyMap<StorageType, ScalarArgument>, type: StorageType) => {
  const binding = scalars.get(type);
  assert.ok(binding, `the launch has no ${type} scalar`);
  return new DataView(binding.bytes.buffer, binding.bytes.byteOffset, binding.bytes.byteLength);
};

const fill: SimKernel = {
  id: "sim_fill",
  run([out], scalars, { metadata }) {
    const value = scalar(scalars, "u32").getUint32(0, true);
    new Uint32Array(out.buffer, out.byteOffset, metadata[0]).fill(value);
  },
};

const scaleAdd: SimKernel = {
  id: "sim_scale_add",
  run([a, b, out], scalars, { metadata }) {
    const s = scalar(scalars, "f32").getFloat32(0, true);
    const n = metadata[0];
    const view = (bytes: Uint8Array) => new Float32Array(bytes.buffer, bytes.byteOffset, n);
    const [x, y, z] = [view(a), view(b), view(out)];
    for (let i = 0; i < n; i++) z[i] = x[i] * s + y[i];
  },
};

const increment: SimKernel = {
  id: "sim_increment",
  run([a], _scalars, { cubes }) {
    const words = new Uint32Array(a.buffer, a.byteOffset, a.byteLength / 4);
    const invocations = Math.min(words.length, cubes[0] * cubes[1] * cubes[2] * CUBE_SIZE);
    for (let i = 0; i < invocations; i++) words[i] += 1;
  },
};

Deno.test("SimulatedServer conforms to the ComputeServer contract", async (t) => {
  await serverConformance(t, {
    createServer: () => Promise.resolve(new SimulatedServer({ maxStreams: 4 })),
    kernels: { fill, scaleAdd, increment },
    cubeSize: CUBE_SIZE,
    skip: {
      [TRACE_STEP]: "the simulated server records no traces (optional in the contract)",
    },
  });
});

Deno.test("SimulatedServer refuses what it cannot honour: named buffers, samplers, overrides", async () => {
  using client = new ComputeClient(new SimulatedServer({ maxStreams: 4 }));
  using a = client.createWithData(new Uint32Array([1, 2]));
  const count = CubeCount.new1d(1);
  const refused: [string, Record<string, unknown>, RegExp][] = [
    ["bufferNames", { buffers: { a } }, /by position only/],
    ["samplers", { buffers: [a], samplers: [{ magFilter: "linear" }] }, /no samplers/],
    ["overrides", { buffers: [a], overrides: { N: 1 } }, /no override constants/],
  ];
  for (const [what, options, message] of refused) {
    assert.throws(
      () => client.execute(increment, { count, ...options }),
      (e) => e instanceof UnsupportedError && message.test(e.message),
      what,
    );
  }
  // Nothing ran, and the client is still usable.
  client.execute(increment, { count, buffers: [a] });
  assert.deepEqual(await client.read(a), new Uint32Array([2, 3]));
});
