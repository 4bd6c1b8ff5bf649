/**
 * QA wave 3 on WebGPU: `histogram` counts as its docs say at the edges f32 computes. A value went
 * to the scaled guess corrected by one bin, so where f32 rounds several edges to one value (a
 * range a few ulps wide per bin) it landed in the wrong bin (16777218 in bin 4 of 7 over
 * [16777216, 16777220], where the docs' edges put it in bin 5). One bin over a range wider than
 * the largest f32 (`[-3e38, 3e38]`) was refused with a KernelArgumentError about its own width.
 */
import { createClient } from "../mod.ts";
import {
  checkEdgeProperty,
  checkNarrowBins,
  checkWideHistogram,
} from "./_qa3_prims_histogram_cases.ts";

const adapter = await navigator.gpu?.requestAdapter();
const ignore = adapter === null || adapter === undefined; // no WebGPU adapter on this machine

Deno.test({
  name: "histogram on WebGPU: the docs' f32 edges, also where f32 rounds edges together",
  ignore,
  async fn() {
    using client = await createClient({ adapter: adapter! });
    await checkNarrowBins(client);
    await checkEdgeProperty(client, 40);
  },
});

Deno.test({
  name: "histogram on WebGPU: one bin over a range wider than the largest f32",
  ignore,
  async fn() {
    using client = await createClient({ adapter: adapter! });
    await checkWideHistogram(client);
  },
});
