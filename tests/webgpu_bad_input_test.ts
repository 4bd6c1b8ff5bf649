/**
 * The bad-input catalogue (issues #7 and #18): every case gets its typed error, and each one is
 * followed by a correct computation on the same client, which must give the exact result.
 */
import assert from "node:assert/strict";
import { createClient } from "../mod.ts";
import { environment, runCatalogue } from "./_bad_input.ts";
import { LAUNCH_CASES } from "./_bad_input_launch_cases.ts";
import { DATA_CASES } from "./_bad_input_data_cases.ts";

const adapter = await navigator.gpu?.requestAdapter();
const ignore = adapter === null || adapter === undefined; // no WebGPU adapter on this machine

const CASES = [...LAUNCH_CASES, ...DATA_CASES];

Deno.test({
  name: `bad-input catalogue: ${CASES.length} cases, each followed by an exact computation`,
  ignore,
  async fn(t) {
    assert.ok(CASES.length >= 150, `${CASES.length} cases`);
    assert.equal(new Set(CASES.map(([name]) => name)).size, CASES.length, "names are unique");
    using client = await createClient({ adapter: adapter! });
    using env = environment(client);
    await runCatalogue(t, env, CASES);
  },
});
