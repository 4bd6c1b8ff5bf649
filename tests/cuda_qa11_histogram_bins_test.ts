/**
 * QA wave 11 on CUDA (the simulated driver; the kernels compile with NVRTC): `histogram` takes as
 * many bins as the device's largest buffer holds u32 counts, host edges or not, and refuses one
 * more naming the maximum, as on WebGPU (`_qa11_histogram_bins_cases.ts`).
 */
import { createClient } from "../mod.ts";
import { NVRTC_LIBRARY_ENV } from "../runtime/server/cuda/compile/_nvrtc.ts";
import { checkBinsLimit, SMALL_BUFFERS } from "./_qa11_histogram_bins_cases.ts";
import { nvrtcName, nvrtcSkip } from "./_cuda_nvrtc.ts";
import { SIM_LIBRARY } from "./fixtures/cuda_sim.ts";

Deno.test({
  name: nvrtcName(
    "qa11 histogram on CUDA: bins up to the largest buffer's u32 counts (host edges too); one " +
      "more is a BufferTooBigError naming the maximum",
  ),
  ignore: nvrtcSkip !== undefined,
  async fn() {
    using client = await createClient({
      backend: "cuda",
      library: SIM_LIBRARY,
      nvrtcLibrary: Deno.env.get(NVRTC_LIBRARY_ENV),
      ...SMALL_BUFFERS,
    });
    await checkBinsLimit(client);
  },
});
