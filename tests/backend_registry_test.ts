import assert from "node:assert/strict";
import {
  BackendUnavailableError,
  createClient,
  DestroyedError,
  listDevices,
  NoAdapterError,
} from "../mod.ts";
import {
  backendNames,
  CubeCount,
  type DeviceEntry,
  loadBackend,
  registerBackend,
} from "../backend.ts";
import { opened, SIM_DEVICES, SIMULATED } from "./fixtures/simulated_backend.ts";
import type { SimKernel } from "./fixtures/simulated_server.ts";

const hasWebGpu = (await navigator.gpu?.requestAdapter()) != null;

const fill: SimKernel = {
  id: "sim_fill",
  run([out], scalars, { metadata }) {
    const bytes = scalars.get("u32")!.bytes;
    const value = new DataView(bytes.buffer, bytes.byteOffset, 4).getUint32(0, true);
    new Uint32Array(out.buffer, out.byteOffset, metadata[0]).fill(value);
  },
};

Deno.test("registry: the shipped backends are listed by name, WebGPU first", () => {
  assert.deepEqual(backendNames(), ["webgpu", "cuda"]);
});

Deno.test("registry: a registered backend goes through createClient and listDevices", async () => {
  using _registration = registerBackend(SIMULATED);
  assert.deepEqual(backendNames(), ["webgpu", "cuda", "simulated"]);
  assert.deepEqual(await listDevices({ backend: "simulated" }), SIM_DEVICES);
  // Every registered backend is listed when none is named (CUDA needs --allow-ffi, absent here).
  const all: DeviceEntry[] = await listDevices();
  assert.deepEqual(all.filter((device) => device.backend === "simulated"), SIM_DEVICES);
  assert.ok(all.every((device) => device.id === `${device.backend}:${device.index}`));

  opened.length = 0;
  {
    using client = await createClient({ backend: "simulated", maxStreams: 2 });
    assert.equal(client.server.properties.backend, "simulated");
    assert.equal(opened.length, 1);
    assert.equal(opened[0].device, undefined);
    using out = client.empty(16, "u32");
    client.execute(fill, {
      count: CubeCount.new1d(1),
      buffers: [out],
      scalars: { u32: [7] },
      metadata: { data: new Uint32Array([16]), staticLength: 1 },
    });
    assert.deepEqual([...await client.read(out)], new Array(16).fill(7));
  }
  // A device by id, and by entry: the backend comes from the device.
  // Typed overloads want a registered backend named; at run time the device alone says it.
  using byId = await createClient({ device: "simulated:1" } as unknown as { backend: string });
  assert.equal(opened[1].device, SIM_DEVICES[1]);
  using byEntry = await createClient({ backend: "simulated", device: SIM_DEVICES[0] });
  assert.equal(opened[2].device, SIM_DEVICES[0]);
  assert.notEqual(byId.server, byEntry.server);
  await assert.rejects(
    createClient({ backend: "simulated", device: "simulated:2" }),
    (error: Error) =>
      error instanceof RangeError &&
      /lists 2 devices \(simulated:0, simulated:1\)/.test(error.message),
  );
  await assert.rejects(
    createClient({ backend: "webgpu", device: SIM_DEVICES[0] } as never),
    RangeError,
  );
});

Deno.test("registry: registration is checked and ends with its disposal", async () => {
  assert.throws(() => registerBackend({ ...SIMULATED, name: "webgpu" }), RangeError);
  assert.throws(() => registerBackend({ ...SIMULATED, name: "Not A Name" }), TypeError);
  assert.throws(() => registerBackend({ ...SIMULATED, load: undefined as never }), TypeError);
  const registration = registerBackend(SIMULATED);
  registration[Symbol.dispose]();
  assert.deepEqual(backendNames(), ["webgpu", "cuda"]);
  await assert.rejects(
    createClient({ backend: "simulated" }),
    (error: Error) =>
      error instanceof RangeError && error.message.includes('"webgpu", "cuda"') &&
      error.message.includes('got "simulated"'),
  );
  // A loader whose description names another backend is refused, not run under the wrong name.
  using _liar = registerBackend({
    name: "liar",
    requiresDeno: false,
    load: () => loadBackend("webgpu"),
  });
  await assert.rejects(loadBackend("liar"), TypeError);
});

Deno.test("registry: malformed device ids and objects are TypeErrors naming options.device", async () => {
  for (const device of ["webgpu", "webgpu:-1", "webgpu:01", "cuda:x", ""]) {
    await assert.rejects(
      createClient({ device } as never),
      (error: Error) => error instanceof TypeError && error.message.includes("options.device"),
      device,
    );
  }
  await assert.rejects(
    createClient({ device: { backend: "webgpu" } } as never),
    (error: Error) => error instanceof TypeError && error.message.includes("with no id"),
  );
  await assert.rejects(createClient("webgpu" as never), TypeError);
});

Deno.test("registry: CUDA without --allow-ffi is BACKEND_UNAVAILABLE saying so", async () => {
  // This file runs without --allow-ffi (tools/run_tests.sh gives FFI to tests/cuda_* only).
  for (
    const attempt of [
      () => createClient({ backend: "cuda" }),
      () => listDevices({ backend: "cuda" }),
    ]
  ) {
    await assert.rejects(attempt(), (error: Error) => {
      assert.ok(error instanceof BackendUnavailableError, String(error));
      assert.equal(error.code, "BACKEND_UNAVAILABLE");
      assert.match(error.message, /--allow-ffi/);
      return true;
    });
  }
  await assert.rejects(createClient({ device: "cuda:0" }), BackendUnavailableError);
});

Deno.test({
  name: "registry: a WebGPU adapter by id, with a numeric vendor id where the vendor is a number",
  ignore: !hasWebGpu,
  async fn() {
    const adapters = await listDevices({ backend: "webgpu" });
    assert.ok(adapters.length > 0);
    for (const [index, adapter] of adapters.entries()) {
      assert.equal(adapter.id, `webgpu:${index}`);
      assert.equal(adapter.index, index);
      if (/^\d+$/.test(adapter.vendor)) assert.equal(adapter.vendorId, Number(adapter.vendor));
      else {assert.equal(
          typeof adapter.vendorId === "number" || adapter.vendorId === undefined,
          true,
        );}
    }
    const last = adapters.at(-1)!;
    using client = await createClient({ device: last.id });
    assert.equal(client.server.properties.backend, "webgpu");
    using x = client.createWithData(new Float32Array([1, 2, 3]));
    assert.deepEqual([...await client.read(x)], [1, 2, 3]);
    await assert.rejects(
      createClient({ device: `webgpu:${adapters.length}` as `webgpu:${number}` }),
      RangeError,
    );
    client.destroy();
    assert.throws(() => client.createWithData(new Float32Array(1)), DestroyedError);
    void NoAdapterError;
  },
});
