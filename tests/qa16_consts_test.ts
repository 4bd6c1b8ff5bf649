/**
 * QA wave 16 on WebGPU: an i32 hex literal (`0x7fi`, valid WGSL) reaches the device; the
 * runtime's reflection parser (`wgsl_reflect`) could not read one, so the kernel was refused.
 */
import assert from "node:assert/strict";
import { createClient, CubeCount, elementwise } from "../mod.ts";

const adapter = await navigator.gpu?.requestAdapter();
const ignore = adapter === null || adapter === undefined; // no WebGPU adapter on this machine

Deno.test({
  name: "WGSL with an i32 hex literal (0x7fi) compiles and runs on WebGPU",
  ignore,
  async fn() {
    using client = await createClient();
    using x = client.createWithData(new Int32Array([1, -2]));
    using out = elementwise({
      inputs: { x: "i32" },
      expression: "x + 0x7fi - 0X10i + (0x7fffffffi & 0xffi)",
      output: "i32",
    }).run(client, { x });
    assert.deepEqual(
      await client.read(out),
      new Int32Array([1 + 127 - 16 + 255, -2 + 127 - 16 + 255]),
    );
    using a = client.createWithData(new Uint32Array(2));
    await client.execute(
      {
        source: `@group(0) @binding(0) var<storage, read_write> a: array<u32>;
const K = 0x10i;
@compute @workgroup_size(1) fn main() { a[0] = u32(K + 0x7Fi); a[1] = 0x7fu; }`,
      },
      { count: CubeCount.new1d(1), buffers: [a] },
    );
    assert.deepEqual(await client.read(a), new Uint32Array([143, 127]));
  },
});
