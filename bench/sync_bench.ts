/**
 * Timeline signal benchmarks. Run: `deno task bench bench/sync_bench.ts`.
 *
 * - Cross-Worker round trip: the main thread raises `ping`, an echo Worker waits for it and
 *   raises `pong`, the main thread waits for that (two set-to-wake hops). Baseline: the same echo
 *   on bare `Atomics.store` + `Atomics.notify` / `Atomics.waitAsync`. Target: within 1.2x.
 * - `set()` with no waiters: a compare-and-swap max and a read of the waiter count.
 * - WebGPU marks: 64 marks after one submission share one `onSubmittedWorkDone`; baseline: one
 *   bare `onSubmittedWorkDone`.
 *
 * @module
 */

import "./_bench_guard.ts"; // deno bench awaits only async fns: a promise from another one throws
import { CpuTimelineSignal, WebGpuTimelineSignal } from "../sync/mod.ts";
import { rawWait } from "./_signal_echo.ts";

function echo(mode: "signal" | "raw") {
  const ping = new CpuTimelineSignal();
  const pong = new CpuTimelineSignal();
  const worker = new Worker(new URL("./_signal_echo.ts", import.meta.url), { type: "module" });
  worker.postMessage({ mode, ping: ping.buffer, pong: pong.buffer });
  return { ping, pong, n: 0n };
}

const viaSignal = echo("signal");
const viaRaw = echo("raw");
const rawPing = new BigInt64Array(viaRaw.ping.buffer, 0, 1);
const rawPong = new BigInt64Array(viaRaw.pong.buffer, 0, 1);

Deno.bench({
  name: "raw Atomics.notify + Atomics.waitAsync",
  group: "cross-Worker round trip (2 set-to-wake hops)",
  baseline: true,
  async fn() {
    const n = ++viaRaw.n;
    Atomics.store(rawPing, 0, n);
    Atomics.notify(rawPing, 0);
    await rawWait(rawPong, n);
  },
});

Deno.bench({
  name: "CpuTimelineSignal set + wait",
  group: "cross-Worker round trip (2 set-to-wake hops)",
  async fn() {
    const n = ++viaSignal.n;
    viaSignal.ping.set(n);
    await viaSignal.pong.wait(n);
  },
});

const store = new BigInt64Array(new SharedArrayBuffer(8));
let stored = 0n;
Deno.bench({
  name: "raw Atomics.store (bigint)",
  group: "set() with no waiters",
  baseline: true,
  fn() {
    Atomics.store(store, 0, ++stored);
  },
});

const quiet = new CpuTimelineSignal();
let raised = 0n;
Deno.bench({
  name: "CpuTimelineSignal.set(bigint)",
  group: "set() with no waiters",
  fn() {
    quiet.set(++raised);
  },
});

let raisedNumber = 0;
const quietNumber = new CpuTimelineSignal();
Deno.bench({
  name: "CpuTimelineSignal.set(number)",
  group: "set() with no waiters",
  fn() {
    quietNumber.set(++raisedNumber);
  },
});

Deno.bench({
  name: "CpuTimelineSignal.set(lower value): no-op",
  group: "set() with no waiters",
  fn() {
    quiet.set(1n);
  },
});

const adapter = await navigator.gpu?.requestAdapter();
const device = await adapter?.requestDevice();
if (device !== undefined) {
  const timeline = new WebGpuTimelineSignal(device);
  let mark = 0n;
  Deno.bench({
    name: "raw onSubmittedWorkDone after one submit",
    group: "WebGPU marks",
    baseline: true,
    async fn() {
      device.queue.submit([device.createCommandEncoder().finish()]);
      await device.queue.onSubmittedWorkDone();
    },
  });
  Deno.bench({
    name: "64 WebGpuTimelineSignal marks after one submit, wait for the last",
    group: "WebGPU marks",
    async fn() {
      device.queue.submit([device.createCommandEncoder().finish()]);
      for (let i = 0; i < 64; i++) timeline.signal(++mark);
      await timeline.wait(mark);
    },
  });
}
