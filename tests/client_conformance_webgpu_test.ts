/**
 * The client conformance table (tests/client_conformance.ts) on WebGPU: every mistake gets its
 * typed error at the call, on an idle and on a held stream, and an exact computation follows.
 */
import { createClient } from "../mod.ts";
import { clientConformance, scaleWgsl } from "./client_conformance.ts";

const adapter = await navigator.gpu?.requestAdapter();

Deno.test({
  name: "client conformance on WebGPU",
  ignore: adapter === null || adapter === undefined, // no WebGPU adapter on this machine
  fn: (t) =>
    clientConformance(t, {
      createClient: () => createClient({ adapter: adapter! }),
      scale: scaleWgsl,
      typedKernels: true,
    }),
});
