// A producer Worker and the GPU share one input slot, ordered by two timeline signals and no
// locks: the Worker raises `produced` to k when frame k is in the slot; the client holds its
// stream until then (waitFor), uploads and accumulates the frame, and marks it on its timeline
// (signal), which the Worker waits on before it overwrites the slot.
import { createClient } from "../mod.ts";
import { CpuTimelineSignal } from "../sync/mod.ts";

const accumulate = {
  id: "pipeline.accumulate",
  source: `
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> acc: array<f32>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3u) {
  if (g.x < arrayLength(&acc)) { acc[g.x] = acc[g.x] + x[g.x]; }
}`,
};

const n = 4096;
const frames = 16;
using client = await createClient();
const produced = new CpuTimelineSignal();
const slot = new Float32Array(new SharedArrayBuffer(n * 4));
const producer = new Worker(new URL("./_pipeline_producer.ts", import.meta.url), {
  type: "module",
});
producer.postMessage({
  slot: slot.buffer,
  produced: produced.buffer,
  timeline: client.timeline.buffer,
  frames,
});
try {
  using input = client.createBytes(n * 4);
  using acc = client.createWithData(new Float32Array(n));
  for (let k = 1; k <= frames; k++) {
    client.waitFor(produced, k); // the calls below run once the Worker produced frame k
    client.write(input, slot); // copies the slot when it runs, not now
    client.execute(accumulate, { threads: n, buffers: [input, acc] });
    const mark = client.signal(); // reached when frame k's work completed: the slot is free
    if (mark !== BigInt(k)) throw new Error(`pipeline: mark ${mark} for frame ${k}`);
  }
  const sums = await client.read(acc, Float32Array);
  const total = (frames * (frames + 1)) / 2;
  const wrong = sums.findIndex((v, i) => v !== total * (i % 7));
  if (wrong !== -1) throw new Error(`pipeline: element ${wrong} is ${sums[wrong]}`);
  console.log(`producer Worker -> GPU pipeline over ${frames} frames: ok`);
} finally {
  producer.terminate();
}
