/**
 * QA wave 11 on WebGPU: `histogram` takes as many bins as the device's largest buffer holds u32
 * counts, host edges or not, and refuses one more naming the maximum (the cases:
 * `_qa11_histogram_bins_cases.ts`; tests/cuda_qa11_histogram_bins_test.ts runs them on CUDA).
 */
import { createClient } from "../mod.ts";
import { checkBinsLimit, SMALL_BUFFERS } from "./_qa11_histogram_bins_cases.ts";

const adapter = await navigator.gpu?.requestAdapter();
const ignore = adapter === null || adapter === undefined; // no WebGPU adapter on this machine

Deno.test({
  name: "qa11 histogram on WebGPU: bins up to the largest buffer's u32 counts (host edges too); " +
    "one more is a BufferTooBigError naming the maximum",
  ignore,
  async fn() {
    using client = await createClient({ adapter: adapter!, ...SMALL_BUFFERS });
    await checkBinsLimit(client);
  },
});
