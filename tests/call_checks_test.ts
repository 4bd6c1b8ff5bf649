/**
 * Calls refused at the call on WebGPU (tests/_call_check_cases.ts): unknown `execute` and helper
 * options, and helpers given something that is not a client.
 */
import assert from "node:assert/strict";
import { createClient, listDevices, type WgslKernel } from "../mod.ts";
import { callCheckCases } from "./_call_check_cases.ts";

const adapter = await navigator.gpu?.requestAdapter();

const addOne: WgslKernel = {
  id: "call_checks_add_one",
  source: `@group(0) @binding(0) var<storage, read_write> v: array<f32>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3u) {
  if (g.x < arrayLength(&v)) { v[g.x] = v[g.x] + 1.0; }
}`,
};

Deno.test({
  name: "unknown execute and helper options, and helpers given no client: TypeErrors at the call",
  ignore: adapter === null || adapter === undefined,
  async fn() {
    using client = await createClient({ adapter: adapter! });
    await callCheckCases(client, addOne);
  },
});

Deno.test({
  name: "createClient refuses a misspelt option (backed: a WebGPU client instead of CUDA)",
  ignore: adapter === null || adapter === undefined,
  async fn() {
    await assert.rejects(
      createClient({ backed: "cuda" } as never),
      /createClient \(webgpu\): unknown option "backed" \(the options are memory, device, adapter/,
    );
    await assert.rejects(createClient({ maxStream: 2 } as never), TypeError);
    using client = await createClient({ adapter: adapter!, maxStreams: 2 });
    assert.equal(client.server.properties.backend, "webgpu");
  },
});

Deno.test({
  name: "listDevices and compile refuse a misspelt option",
  ignore: adapter === null || adapter === undefined,
  async fn() {
    // `backed` listed every backend's devices; `override` compiled the variant without them.
    await assert.rejects(
      listDevices({ backed: "webgpu" } as never),
      /listDevices: unknown option "backed" \(the options are backend, library\)/,
    );
    using client = await createClient({ adapter: adapter! });
    await assert.rejects(
      client.compile(addOne, { override: {} } as never),
      /compile: unknown option "override" \(the options are overrides\)/,
    );
    await client.compile(addOne, { overrides: {} });
  },
});
