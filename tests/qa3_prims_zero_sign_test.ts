/**
 * QA wave 3 on WebGPU: f32 max and min of `reduce` and `scan` order -0 below +0 (llvmpipe's WGSL
 * `max` and `min` returned the second operand of equal ones, so `reduce` max of [0, -0] was -0
 * and `scan` min of [-0, 0] ended in +0, where CUDA gave +0 and -0).
 */
import assert from "node:assert/strict";
import { createClient } from "../mod.ts";
import { checkZeroSigns } from "./_qa3_prims_cases.ts";

const adapter = await navigator.gpu?.requestAdapter();
const ignore = adapter === null || adapter === undefined; // no WebGPU adapter on this machine

Deno.test({
  name: "reduce and scan on WebGPU: f32 max of -0 and +0 is +0, min -0, on every path",
  ignore,
  async fn() {
    using client = await createClient({ adapter: adapter! });
    await checkZeroSigns(client);
  },
});

Deno.test("f32 max and min pick by bits, with no float max, min or == on the values", async () => {
  // llvmpipe keeps subnormals, so the cases above pass there either way; a device that flushes
  // them (NVIDIA's Vulkan driver) needs the selection these kernels' text must keep.
  const { operatorProgram } = await import("../runtime/kernels/_reduce_kernels.ts");
  const { scanRowsKernel } = await import("../runtime/kernels/scan/_scan_wgsl.ts");
  for (const op of ["max", "min"] as const) {
    for (
      const text of [
        operatorProgram(op, "f32", false).combine,
        scanRowsKernel(op, "f32", false).source,
      ]
    ) {
      assert.doesNotMatch(text, new RegExp(`\\b${op}\\(a, b\\)|a == b`), text);
      assert.match(text, /select\(a, b, /, text);
    }
  }
});
