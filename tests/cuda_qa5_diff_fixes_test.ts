/**
 * QA wave 5: the divergences between WebGPU and CUDA that tests/cuda_qa5_diff_test.ts found in
 * the helpers, each checked on both backends: a blank WGSL expression of an `elementwise` or
 * `reduction` spec (WGSL's `f32()` of nothing is 0: zeros on WebGPU, a compile error on CUDA),
 * and another client's handle given to a helper with bad params (INVALID_HANDLE on WebGPU, the
 * params' `KernelArgumentError` on CUDA), an `elementwise` `length` that is no u32, and a graph's
 * replay with bad params on a stream `waitFor` holds (accepted at the call on both backends, the
 * error at a later read), and a handle of fewer bytes than one element of a typed pointer (CUDA
 * wrote the whole element past it).
 */
import assert from "node:assert/strict";
import {
  type ComputeClient,
  CpuTimelineSignal,
  createClient,
  elementwise,
  InvalidHandleError,
  KernelArgumentError,
  listDevices,
  reduction,
} from "../mod.ts";
import { nvrtcName, nvrtcSkip, simulatedCudaClient } from "./_cuda_nvrtc.ts";
import { ADD_CUDA, ADD_WGSL } from "./_client_programs.ts";

const [adapter] = await listDevices({ backend: "webgpu" });
const ignore = adapter === undefined || nvrtcSkip !== undefined;

async function openBoth(): Promise<[ComputeClient, ComputeClient]> {
  const webgpu = await createClient({ device: adapter! }) as ComputeClient;
  return [webgpu, await simulatedCudaClient()];
}

Deno.test("a blank expression of an elementwise or reduction spec is a RangeError naming it", () => {
  for (const expression of ["", "  \n"]) {
    assert.throws(
      () => elementwise({ inputs: ["x"], expression }),
      RangeError,
      "spec.expression is empty",
    );
    for (const field of ["combine", "identity", "map", "finish"]) {
      const spec = { inputs: ["x"], combine: "a + b", identity: "0.0", [field]: expression };
      assert.throws(() => reduction(spec), RangeError, `spec.${field} is empty`);
    }
  }
  assert.throws(
    () => reduction({ inputs: ["x"], combine: "a + b", identity: 0 as never }),
    TypeError,
  );
  assert.throws(
    () => reduction({ inputs: ["x"], combine: "a + b", identity: "0.0", map: 1 as never }),
    TypeError,
  );
  // the same specs with their expressions run
  reduction({ inputs: ["x"], combine: "a + b", identity: "0.0", map: "x", finish: "r" });
  elementwise({ inputs: ["x"], expression: "x" });
});

Deno.test({
  name: nvrtcName("a helper given another client's handle and bad params: INVALID_HANDLE on both"),
  ignore,
  async fn() {
    const [webgpu, cuda] = await openBoth();
    using _w = webgpu, _c = cuda;
    const shift = elementwise({
      inputs: { x: "u32" },
      params: { a: "u32" },
      expression: "x + a",
      output: "u32",
    });
    for (const [client, other] of [[webgpu, cuda], [cuda, webgpu]]) {
      const name = client.server.properties.backend;
      using foreign = other.createWithData(new Uint32Array([1, 2, 3, 4]));
      for (const params of [{ a: -1 }, { b: 1 }, { a: "1" }, {}]) {
        assert.throws(
          () => shift.run(client, { x: foreign }, { params: params as never }),
          InvalidHandleError,
          `${name} ${JSON.stringify(params)}`,
        );
      }
      using x = client.createWithData(new Uint32Array([1, 2, 3, 4]));
      assert.throws(() => shift.run(client, { x }, { params: { a: -1 } }), KernelArgumentError);
      using y = shift.run(client, { x }, { params: { a: 5 } });
      assert.deepEqual(await client.read(y), new Uint32Array([6, 7, 8, 9]), name);
    }
  },
});

Deno.test({
  name: nvrtcName("elementwise options.length that is no u32 is a RangeError naming it, on both"),
  ignore,
  async fn() {
    const [webgpu, cuda] = await openBoth();
    using _w = webgpu, _c = cuda;
    const iota = elementwise({
      inputs: { m: "raw u32" },
      expression: "m[0] + u32(i)",
      output: "u32",
    });
    for (const [client, other] of [[webgpu, cuda], [cuda, webgpu]]) {
      const name = client.server.properties.backend;
      using m = client.createWithData(new Uint32Array([10, 20]));
      using foreign = other.createWithData(new Uint32Array([1, 2]));
      // it was "threads x" on WebGPU, and the params' or the handle's error first on CUDA
      for (const length of [1.5, -1, 2 ** 32]) {
        for (const inputs of [{ m }, { m: foreign }]) {
          assert.throws(
            () => iota.run(client, inputs, { length, params: { a: 1 } }),
            (e) => e instanceof RangeError && /elementwise: options\.length must/.test(e.message),
            `${name} ${length}`,
          );
        }
      }
      assert.throws(() => iota.run(client, { m }, { length: "3" as never }), TypeError);
      using out = iota.run(client, { m }, { length: 3 });
      assert.deepEqual(await client.read(out), new Uint32Array([10, 11, 12]), name);
    }
  },
});

Deno.test({
  name: nvrtcName(
    "a replay with a bad param on a stream held by waitFor throws at the call, on both",
  ),
  ignore,
  async fn() {
    const [webgpu, cuda] = await openBoth();
    using _w = webgpu, _c = cuda;
    for (const [client, add] of [[webgpu, ADD_WGSL], [cuda, ADD_CUDA]] as const) {
      const name = client.server.properties.backend;
      using x = client.createWithData(new Uint32Array([1, 2, 3, 4]));
      using y = client.zeros(4, "u32");
      const launch = { threads: 4, buffers: [x, y], params: { c: 1, n: 4 } };
      using graph = await client.capture(() => client.execute(add as never, launch));
      const gate = new CpuTimelineSignal();
      client.waitFor(gate, 1); // holds stream 0 in the client
      // it was accepted, and the read after the gate opened failed with the param's error
      for (const c of [-1, 1.5, 2 ** 32, "2"]) {
        assert.throws(() => graph.replay({ params: { c } as never }), KernelArgumentError, name);
      }
      assert.throws(() => graph.replay({ params: { z: 1 } }), KernelArgumentError, name);
      graph.replay({ params: { c: 5 } });
      gate.set(1);
      assert.deepEqual(await client.read(y), new Uint32Array([6, 7, 8, 9]), name);
      graph.replay(); // the last params stay
      graph.replay({ params: { c: 6 } });
      assert.deepEqual(await client.read(y), new Uint32Array([7, 8, 9, 10]), name);
    }
  },
});

Deno.test({
  name: nvrtcName("a handle of fewer bytes than one element is a KernelArgumentError on both"),
  ignore,
  async fn() {
    const [webgpu, cuda] = await openBoth();
    using _w = webgpu, _c = cuda;
    for (const [client, add] of [[webgpu, ADD_WGSL], [cuda, ADD_CUDA]] as const) {
      const name = client.server.properties.backend;
      using x = client.createWithData(new Uint32Array([3, 4]));
      // CUDA wrote a whole u32 into the 1-byte handle (the read gave [10], bytes past it written)
      for (const bytes of [1, 2, 3]) {
        using y = client.createWithData(new ArrayBuffer(bytes));
        assert.throws(
          () =>
            client.execute(add as never, { threads: 1, buffers: [x, y], params: { c: 7, n: 1 } }),
          (e) => e instanceof KernelArgumentError && /has \d bytes/.test(e.message),
          `${name} ${bytes}`,
        );
      }
      using y = client.createWithData(new ArrayBuffer(4));
      client.execute(add as never, { threads: 1, buffers: [x, y], params: { c: 7, n: 1 } });
      assert.deepEqual(await client.read(y, Uint32Array), new Uint32Array([10]), name);
    }
  },
});
