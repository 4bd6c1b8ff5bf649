/**
 * The user programs of the README (examples/saxpy.ts, softmax.ts, two_streams.ts,
 * signal_pipeline.ts) run and check themselves against the CPU: each throws on a mismatch.
 */

const adapter = await navigator.gpu?.requestAdapter();

// Literal specifiers: statically analyzable imports need no read permission.
const PROGRAMS: Record<string, () => Promise<unknown>> = {
  saxpy: () => import("../examples/saxpy.ts"),
  softmax: () => import("../examples/softmax.ts"),
  two_streams: () => import("../examples/two_streams.ts"),
  signal_pipeline: () => import("../examples/signal_pipeline.ts"),
};

for (const [name, run] of Object.entries(PROGRAMS)) {
  Deno.test({
    name: `examples/${name}.ts matches its CPU reference`,
    ignore: adapter === null || adapter === undefined, // no WebGPU adapter on this machine
    async fn() {
      const log = console.log;
      console.log = () => {};
      try {
        await run();
      } finally {
        console.log = log;
      }
    },
  });
}
