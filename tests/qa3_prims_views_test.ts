/**
 * QA wave 3 on WebGPU: every primitive on a view reads and writes only the view; inputs disposed
 * right after the calls; NaN of either sign as the largest key (tests/_qa3_prims_views_cases.ts).
 */
import { createClient } from "../mod.ts";
import { checkEarlyDispose, checkNegativeNaN, checkViews } from "./_qa3_prims_views_cases.ts";

const adapter = await navigator.gpu?.requestAdapter();
const ignore = adapter === null || adapter === undefined; // no WebGPU adapter on this machine

Deno.test({
  name: "primitives on WebGPU: views, inputs disposed at once, NaN of either sign",
  ignore,
  async fn() {
    using client = await createClient({ adapter: adapter! });
    await checkViews(client);
    await checkEarlyDispose(client, 5000);
    await checkNegativeNaN(client);
  },
});
