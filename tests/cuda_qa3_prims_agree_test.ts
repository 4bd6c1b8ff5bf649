/**
 * QA wave 3: the primitives give the same bits on WebGPU (llvmpipe) and on CUDA (NVRTC, the
 * simulated driver) from one call, where their docs make the result exact: sort, argsort and
 * topk (stable, NaN of either sign, -0, infinities, integer extremes), argmax/argmin, scans and
 * reductions of integers and f32 max/min (-0 below +0), segmentReduce, histogram, bincount,
 * gather, transpose and random's u32 and uniform numbers, at lengths around block edges. A
 * backend that drifts from the other fails here even where both pass their CPU references'
 * tolerances.
 */
import assert from "node:assert/strict";
import {
  argmax,
  argmin,
  argsort,
  bincount,
  type ComputeClient,
  createClient,
  gather,
  type Handle,
  histogram,
  random,
  reduce,
  scan,
  segmentReduce,
  sort,
  topk,
  transpose,
} from "../mod.ts";
import { nvrtcName, nvrtcSkip, simulatedCudaClient } from "./_cuda_nvrtc.ts";
import { randomWords } from "./_primitives.ts";

const adapter = await navigator.gpu?.requestAdapter();

/** f32 bit patterns the keys draw from: NaN of both signs, zeros, infinities, subnormals. */
const SPECIAL = [
  0x7fc00000,
  0xffc00000,
  0x80000000,
  0,
  0x7f800000,
  0xff800000,
  1,
  0x80000001,
  0x7f7fffff,
];

/** Runs every primitive on `client` over inputs made from `n` and returns the results' bits. */
async function results(client: ComputeClient, n: number): Promise<Map<string, Uint32Array>> {
  const words = randomWords(n, n + 17);
  const bits = Uint32Array.from(
    words,
    (w, i) =>
      i % 5 === 0
        ? SPECIAL[w % SPECIAL.length]
        : (Math.fround((w % 64) - 32) === 0
          ? 0
          : new Uint32Array(new Float32Array([(w % 64) - 32]).buffer)[0]),
  );
  const f = new Float32Array(bits.buffer);
  const ints = Int32Array.from(
    words,
    (w, i) => i % 7 === 0 ? [-(2 ** 31), 2 ** 31 - 1][w % 2] : (w % 50) - 25,
  );
  const ids = Uint32Array.from(words, (w) => (w >>> 3) % 9); // 0..8 of 6 segments: some ignored
  const out = new Map<string, Handle>();
  using x = client.createWithData(f);
  using xi = client.createWithData(ints);
  using xu = xi.as("u32");
  using hid = client.createWithData(ids);
  const rows: [number, number] = n % 4 === 0 ? [4, n / 4] : [1, n];
  for (const [name, h] of [["f32", x], ["i32", xi], ["u32", xu]] as const) {
    out.set(`sort ${name}`, sort(client, h));
    out.set(`argsort desc ${name}`, argsort(client, h, { descending: true }));
    const best = topk(client, h, Math.min(3, rows[1]), { shape: rows, largest: name !== "u32" });
    best.values.dispose();
    out.set(`topk ${name}`, best.indices);
    out.set(`argmax ${name}`, argmax(client, h));
    out.set(`argmin ${name}`, argmin(client, h, { shape: rows, axis: 0 }));
    for (const op of ["max", "min"] as const) {
      out.set(`scan ${op} ${name}`, scan(client, h, { op, exclusive: op === "min" }));
      out.set(`reduce ${op} ${name}`, reduce(client, h, { op, shape: rows, axis: 1 }));
      out.set(`segment ${op} ${name}`, segmentReduce(client, h, hid, { segments: 6, op }));
    }
    if (name !== "f32") {
      out.set(`scan sum ${name}`, scan(client, h));
      out.set(`scan prod ${name}`, scan(client, h, { op: "prod", exclusive: true }));
      out.set(`reduce sum ${name}`, reduce(client, h));
      out.set(`segment sum ${name}`, segmentReduce(client, h, hid, { segments: 6 }));
      out.set(`bincount ${name}`, bincount(client, h, { length: 30 }));
    }
  }
  out.set("histogram", histogram(client, x, { bins: 7, range: [-32, 31.5] }));
  out.set("gather", gather(client, x, hid));
  out.set("transpose", transpose(client, x, { shape: rows }));
  out.set("random u32", random(client, n, { seed: n, offset: 3, dtype: "u32" }));
  out.set("random uniform", random(client, n, { seed: n, low: -2, high: 5 }));
  const got = new Map<string, Uint32Array>();
  try {
    const read = await client.readMany([...out.values()]);
    [...out.keys()].forEach((key, k) => {
      const r = read[k] as Float32Array | Int32Array | Uint32Array;
      const bits = new Uint32Array(r.buffer, r.byteOffset, r.length);
      // A folded NaN is a NaN whatever its payload (x86 keeps an operand's, PTX makes 0x7fffffff);
      // sorted keys keep their bits (the docs), so their NaN patterns stay.
      if (/^(scan|reduce|segment) .* f32$/.test(key)) {
        for (let i = 0; i < bits.length; i++) {
          if ((bits[i] & 0x7fffffff) > 0x7f800000) bits[i] = 0x7fc00000;
        }
      }
      got.set(key, bits);
    });
  } finally {
    for (const h of out.values()) h.dispose();
  }
  return got;
}

Deno.test({
  name: nvrtcName("primitives: the same bits on WebGPU and CUDA, lengths around block edges"),
  ignore: nvrtcSkip !== undefined || adapter === null || adapter === undefined,
  async fn() {
    using cuda = await simulatedCudaClient();
    using webgpu = await createClient({ adapter: adapter! });
    for (const n of [1, 3, 257, 4097]) {
      const [a, b] = [await results(webgpu, n), await results(cuda, n)];
      for (const [key, bits] of a) {
        assert.deepEqual(b.get(key), bits, `${key} (n = ${n}): WebGPU and CUDA differ`);
      }
    }
  },
});
