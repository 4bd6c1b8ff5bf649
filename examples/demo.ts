/**
 * `deno task demo`: a real workload over 4 streams with cross-stream dependencies, on the default
 * WebGPU adapter. Streams 1 and 2 fill and scale vectors, stream 3 fills two matrices, and stream 4
 * consumes all of them: a dot product (tree reduction in two kernels) and a tiled matmul. No
 * manual flush or sync orders the streams: the runtime does. Every result is checked against a
 * CPU reference; the process exits with 1 on a mismatch.
 *
 * @module
 */

import {
  createClient,
  CubeCount,
  formatMemoryUsage,
  type Handle,
  type ProfileDuration,
} from "../mod.ts";
import { dotPartial, fillLinear, fillPattern, matmulTiled, scale, sumAll } from "./kernels.ts";

const N = 1 << 16; // vector length
const [M, K, P] = [96, 80, 64]; // a is M x K, b is K x P

using client = await createClient();
const { properties } = client.server;
console.log(
  `Adapter: ${properties.deviceName} (${properties.backend}, ${
    properties.deviceTimer ? "device timer" : "wall clock"
  })`,
);

const steps: { name: string; stream: number; duration: ProfileDuration }[] = [];
async function step(name: string, stream: number, fn: () => void): Promise<void> {
  const { duration } = await client.profile(fn, { stream });
  steps.push({ name, stream, duration });
}

const vec = (stream: number) => client.create(N * 4, { stream });
const groups = (n: number, size: number) => CubeCount.new1d(Math.ceil(n / size));

// Streams 1..3: producers.
const x = vec(1);
const y = vec(2);
const a = client.create(M * K * 4, { stream: 3 });
const b = client.create(K * P * 4, { stream: 3 });
await step(
  "fill x = 0.5 i",
  1,
  () =>
    client.execute(fillLinear, {
      stream: 1,
      count: groups(N, 64),
      buffers: [x],
      scalars: { f32: [0, 0.5] },
    }),
);
await step(
  "scale x *= 2",
  1,
  () =>
    client.execute(scale, { stream: 1, count: groups(N, 64), buffers: [x], scalars: { f32: [2] } }),
);
await step(
  "fill y = 1 - 0.25 i",
  2,
  () =>
    client.execute(fillLinear, {
      stream: 2,
      count: groups(N, 64),
      buffers: [y],
      scalars: { f32: [1, -0.25] },
    }),
);
await step(
  "scale y *= 0.5",
  2,
  () =>
    client.execute(scale, {
      stream: 2,
      count: groups(N, 64),
      buffers: [y],
      scalars: { f32: [0.5] },
    }),
);
await step("fill matrices a, b", 3, () => {
  client.execute(fillPattern, { stream: 3, count: groups(M * K, 64), buffers: [a] });
  client.execute(fillPattern, { stream: 3, count: groups(K * P, 64), buffers: [b] });
});

// Stream 4: consumers of every producer.
const partial = client.create(Math.ceil(N / 64) * 4, { stream: 4 });
const total = client.create(4, { stream: 4 });
const c = client.create(M * P * 4, { stream: 4 });
await step(
  "dot(x, y): partial sums",
  4,
  () => client.execute(dotPartial, { stream: 4, count: groups(N, 64), buffers: [x, y, partial] }),
);
await step(
  "dot(x, y): final sum",
  4,
  () =>
    client.execute(sumAll, { stream: 4, count: CubeCount.newSingle(), buffers: [partial, total] }),
);
await step("matmul c = a b (16x16 tiles)", 4, () =>
  client.execute(matmulTiled, {
    stream: 4,
    count: CubeCount.new2d(Math.ceil(P / 16), Math.ceil(M / 16)),
    buffers: [a, b, c],
    scalars: { u32: [M, P, K] },
  }));

// One coalesced read of everything, on stream 4.
const [xs, ys, totals, cs] = await client.readMany([x, y, total, c], Float32Array, { stream: 4 });

// CPU reference.
const pattern = (i: number) => ((i * 7) % 13) * 0.25 - 1;
const xRef = Float32Array.from({ length: N }, (_, i) => Math.fround(0.5 * i) * 2);
const yRef = Float32Array.from({ length: N }, (_, i) => Math.fround(1 - 0.25 * i) * 0.5);
const dotRef = xRef.reduce((sum, xi, i) => sum + xi * yRef[i], 0);
const cRef = new Float64Array(M * P);
for (let m = 0; m < M; m++) {
  for (let p = 0; p < P; p++) {
    let acc = 0;
    for (let k = 0; k < K; k++) acc += pattern(m * K + k) * pattern(k * P + p);
    cRef[m * P + p] = acc;
  }
}

const checks = [
  { name: "x", ok: xs.every((v, i) => v === xRef[i]) },
  { name: "y", ok: ys.every((v, i) => v === yRef[i]) },
  // f32 accumulation over 65,536 terms: compare with a relative tolerance.
  {
    name: "dot(x, y)",
    ok: Math.abs(totals[0] - dotRef) <= 1e-4 * Math.abs(dotRef),
    detail: `${totals[0]} vs ${dotRef}`,
  },
  { name: "matmul", ok: cs.every((v, i) => Math.abs(v - cRef[i]) <= 1e-4) },
];

console.log("\nStep durations:");
for (const { name, stream, duration } of steps) {
  console.log(
    `  stream ${stream}  ${
      duration.milliseconds.toFixed(3).padStart(9)
    } ms (${duration.timing})  ${name}`,
  );
}
console.log(`\nMemory: ${formatMemoryUsage(client.memoryUsage())}`);
for (const handle of [x, y, a, b, partial, total, c] satisfies Handle[]) handle.dispose();
await client.sync();
client.memoryCleanup();
console.log(`After dispose + cleanup: ${formatMemoryUsage(client.memoryUsage())}`);

console.log("\nChecks against the CPU reference:");
for (const check of checks) {
  console.log(
    `  ${check.ok ? "ok  " : "FAIL"} ${check.name}${"detail" in check ? ` (${check.detail})` : ""}`,
  );
}
const passed = checks.every((check) => check.ok);
console.log(`\nVerdict: ${passed ? "PASS" : "FAIL"}`);
if (!passed) Deno.exit(1);
