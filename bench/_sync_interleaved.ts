/**
 * The cross-Worker round trip of `sync_bench.ts`, measured robustly on a loaded machine: blocks
 * of 500 round trips alternate between the raw `Atomics` echo and the signal echo, and the
 * medians of 20 blocks are compared. Run: `deno run --allow-read=bench,sync,runtime/core bench/_sync_interleaved.ts`.
 *
 * @module
 */

import { CpuTimelineSignal } from "../sync/cpu_signal.ts";
import { rawWait } from "./_signal_echo.ts";
function echo(mode: "signal" | "raw") {
  const ping = new CpuTimelineSignal();
  const pong = new CpuTimelineSignal();
  const worker = new Worker(new URL("./_signal_echo.ts", import.meta.url), { type: "module" });
  worker.postMessage({ mode, ping: ping.buffer, pong: pong.buffer });
  return { ping, pong, n: 0n, worker };
}
const s = echo("signal"), r = echo("raw");
const rp = new BigInt64Array(r.ping.buffer, 0, 1), rq = new BigInt64Array(r.pong.buffer, 0, 1);
async function rawTrip() {
  const n = ++r.n;
  Atomics.store(rp, 0, n);
  Atomics.notify(rp, 0);
  await rawWait(rq, n);
}
async function sigTrip() {
  const n = ++s.n;
  s.ping.set(n);
  await s.pong.wait(n);
}
const med = (a: number[]) => a.sort((x, y) => x - y)[a.length >> 1];
const res: Record<string, number[]> = { raw: [], signal: [] };
for (let round = 0; round < 20; round++) {
  for (const [name, f] of [["raw", rawTrip], ["signal", sigTrip]] as const) {
    for (let i = 0; i < 50; i++) await f();
    const t0 = performance.now();
    for (let i = 0; i < 500; i++) await f();
    res[name].push((performance.now() - t0) / 500 * 1000);
  }
}
console.log(
  `median of 20 blocks of 500 round trips: raw ${med(res.raw).toFixed(1)} µs, signal ${
    med(res.signal).toFixed(1)
  } µs, ratio ${(med(res.signal) / med(res.raw)).toFixed(2)}`,
);
s.worker.terminate();
r.worker.terminate();
