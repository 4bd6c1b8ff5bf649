/**
 * The echo Worker of `sync_bench.ts`: on `{ mode, ping, pong }`, answers every value reached on
 * `ping` by setting `pong` to it, forever. `mode: "signal"` uses {@linkcode CpuTimelineSignal};
 * `mode: "raw"` the bare `Atomics.waitAsync` / `Atomics.notify` it is built on (the baseline).
 *
 * @module
 */

import { CpuTimelineSignal } from "../sync/cpu_signal.ts";

const scope = self as unknown as { onmessage: (event: MessageEvent) => void };

scope.onmessage = async (event: MessageEvent) => {
  const { mode, ping, pong } = event.data as {
    mode: "signal" | "raw";
    ping: SharedArrayBuffer;
    pong: SharedArrayBuffer;
  };
  if (mode === "signal") {
    const seen = new CpuTimelineSignal(ping);
    const answer = new CpuTimelineSignal(pong);
    for (let n = 1n;; n++) {
      await seen.wait(n);
      answer.set(n);
    }
  }
  const seen = new BigInt64Array(ping, 0, 1);
  const answer = new BigInt64Array(pong, 0, 1);
  for (let n = 1n;; n++) {
    await rawWait(seen, n);
    Atomics.store(answer, 0, n);
    Atomics.notify(answer, 0);
  }
};

/** Waits until `cell[0] >= target` with bare `Atomics.waitAsync`. */
export async function rawWait(cell: BigInt64Array, target: bigint): Promise<void> {
  for (;;) {
    const current = Atomics.load(cell, 0);
    if (current >= target) return;
    const result = Atomics.waitAsync(cell, 0, current);
    if (result.async) await result.value;
  }
}
