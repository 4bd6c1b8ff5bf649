/**
 * QA wave 3 on WebGPU: f32 max and min of `reduce` and `scan` order -0 below +0 (llvmpipe's WGSL
 * `max` and `min` returned the second operand of equal ones, so `reduce` max of [0, -0] was -0
 * and `scan` min of [-0, 0] ended in +0, where CUDA gave +0 and -0).
 */
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
