// The producer Worker of signal_pipeline.ts: fills the shared input slot with frame k once the
// GPU has consumed frame k - 1 (the client's timeline reached it), then raises `produced` to k.
import { CpuTimelineSignal } from "../sync/mod.ts";

interface Setup {
  slot: SharedArrayBuffer;
  produced: SharedArrayBuffer;
  timeline: SharedArrayBuffer;
  frames: number;
}

const scope = self as unknown as { onmessage: (event: MessageEvent<Setup>) => void };
scope.onmessage = async ({ data }) => {
  const input = new Float32Array(data.slot);
  const produced = new CpuTimelineSignal(data.produced);
  const consumed = new CpuTimelineSignal(data.timeline); // the client's timeline
  for (let k = 1; k <= data.frames; k++) {
    await consumed.wait(k - 1); // the slot is free once the GPU finished frame k - 1
    for (let i = 0; i < input.length; i++) input[i] = k * (i % 7);
    produced.set(k);
  }
};
