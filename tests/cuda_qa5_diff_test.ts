/**
 * QA wave 5: a differential test of the two backends through the public client API. Random call
 * sequences (tests/_qa5_diff_calls.ts) with bad arguments mixed in run on a WebGPU client
 * (llvmpipe) and a CUDA client (the simulated driver, NVRTC for the primitives); every step must
 * give the same result, or the same error class and `code` at the same point (at the call, from
 * the promise, or at the read after it), and both clients must stay usable. The differences
 * docs/known_issues.md lists (WebGPU binds no unaligned slice and no empty handle) end a program.
 * Also the focused checks of the divergences it found.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  type ComputeClient,
  createClient,
  InvalidHandleError,
  KernelArgumentError,
  listDevices,
  sort,
} from "../mod.ts";
import type { KernelMetadata } from "../backend.ts";
import { ADD_CUDA, ADD_WGSL } from "./_client_programs.ts";
import { nvrtcName, nvrtcSkip, simulatedCudaClient } from "./_cuda_nvrtc.ts";
import { diffCall, type DiffEnv } from "./_qa5_diff_calls.ts";
import { moreCall } from "./_qa5_diff_more.ts";
import { documented, outcome, startSlots, usable } from "./_qa5_diff_run.ts";

const [adapter] = await listDevices({ backend: "webgpu" });
const ignore = adapter === undefined || nvrtcSkip !== undefined;

async function openBoth(): Promise<[ComputeClient, ComputeClient]> {
  const webgpu = await createClient({ device: adapter! }) as ComputeClient;
  return [webgpu, await simulatedCudaClient()];
}

Deno.test({
  name: nvrtcName("random call sequences with bad arguments: WebGPU and CUDA agree step by step"),
  ignore,
  async fn() {
    const [webgpu, cuda] = await openBoth();
    using _w = webgpu, _c = cuda;
    using foreignOfWebgpu = webgpu.createWithData(new Uint32Array([9, 8, 7, 6]));
    using foreignOfCuda = cuda.createWithData(new Uint32Array([9, 8, 7, 6]));
    const program = fc.array(fc.oneof({ weight: 2, arbitrary: diffCall }, moreCall), {
      minLength: 4,
      maxLength: 25,
    });
    await fc.assert(
      fc.asyncProperty(program, async (calls) => {
        const envs: [DiffEnv, DiffEnv] = [
          {
            client: webgpu,
            add: ADD_WGSL,
            slots: startSlots(webgpu),
            foreign: foreignOfCuda,
            other: cuda,
          },
          {
            client: cuda,
            add: ADD_CUDA,
            slots: startSlots(cuda),
            foreign: foreignOfWebgpu,
            other: webgpu,
          },
        ];
        try {
          for (const [i, call] of calls.entries()) {
            const w = await outcome(envs[0], call), c = await outcome(envs[1], call);
            if (w.key !== c.key && documented(w, c)) break;
            assert.equal(
              c.key,
              w.key,
              `step ${i}: ${call.name}\n  webgpu: ${w.key} ${w.detail}\n  cuda: ${c.key} ${c.detail}`,
            );
            assert.ok(!w.key.includes("never settled"), `step ${i}: ${call.name} never settled`);
          }
        } finally {
          for (const env of envs) for (const h of env.slots) h?.dispose();
        }
        const expected = "Uint32Array[11,12,13,14,15]";
        assert.equal(await usable(webgpu, ADD_WGSL as KernelMetadata), expected);
        assert.equal(await usable(cuda, ADD_CUDA as KernelMetadata), expected);
      }),
      { numRuns: 45 },
    );
  },
});

/** `execute(add)` on `client` with another client's handle and a wrong buffer count. */
function foreignAndShort(client: ComputeClient, add: KernelMetadata, other: ComputeClient) {
  using foreign = other.createWithData(new Uint32Array(4));
  client.execute(add as never, { threads: 4, buffers: [foreign], params: { c: 1, n: 4 } });
}

Deno.test({
  name: nvrtcName("another client's handle is INVALID_HANDLE before the params, on both backends"),
  ignore,
  async fn() {
    const [webgpu, cuda] = await openBoth();
    using _w = webgpu, _c = cuda;
    for (
      const [client, add, other] of [[webgpu, ADD_WGSL, cuda], [cuda, ADD_CUDA, webgpu]] as const
    ) {
      const name = client.server.properties.backend;
      assert.throws(() => foreignAndShort(client, add, other), InvalidHandleError, name);
      // with params missing too
      using foreign = other.createWithData(new Uint32Array(4));
      using y = client.zeros(4, "u32");
      assert.throws(
        () => client.execute(add as never, { threads: 4, buffers: [foreign, y] }),
        InvalidHandleError,
        name,
      );
      // the same launch with its own handles is the params' error, then runs when right
      using x = client.createWithData(new Uint32Array([1, 2, 3, 4]));
      assert.throws(
        () => client.execute(add as never, { threads: 4, buffers: [x, y], params: { c: 1 } }),
        KernelArgumentError,
      );
      client.execute(add as never, { threads: 4, buffers: [x, y], params: { c: 1, n: 4 } });
      assert.deepEqual(await client.read(y), new Uint32Array([2, 3, 4, 5]), name);
    }
  },
});

Deno.test({
  name: nvrtcName("sort pairs with disposed values is INVALID_HANDLE at the call on both backends"),
  ignore,
  async fn() {
    const [webgpu, cuda] = await openBoth();
    using _w = webgpu, _c = cuda;
    for (const client of [webgpu, cuda]) {
      const name = client.server.properties.backend;
      // keys at an unaligned offset: WebGPU refuses to bind them, but the values' disposal comes
      // first (it was the binding's RangeError on WebGPU, INVALID_HANDLE on CUDA)
      using base = client.createWithData(new Int32Array([0, 3, 1, 2, 0]));
      using keys = base.withOffsetStart(4);
      const values = client.createWithData(new Int32Array([10, 11, 12, 13]));
      values.dispose();
      assert.throws(() => sort(client, keys, { values }), InvalidHandleError, name);
      using live = client.createWithData(new Int32Array([10, 11, 12, 13]));
      using copy = client.copyTo(keys, client);
      using sorted = sort(client, copy, { values: live });
      assert.deepEqual(await client.read(sorted.keys), new Int32Array([0, 1, 2, 3]), name);
      assert.deepEqual(await client.read(sorted.values), new Int32Array([13, 11, 12, 10]), name);
    }
  },
});
