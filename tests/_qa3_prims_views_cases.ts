/**
 * Cases shared by tests/qa3_prims_views_test.ts (WebGPU) and tests/cuda_qa3_prims_views_test.ts
 * (CUDA), against CPU references: every primitive on a view (a handle narrowed at both ends, at
 * a 256-byte offset WebGPU can bind) reads and writes only the view; inputs disposed right after
 * the calls, their memory reused at once, still give the results of the data at the calls; NaN
 * of either sign (0xffc00000 is what x86 makes of 0/0) counts as the largest key.
 */
import assert from "node:assert/strict";
import {
  argmax,
  argmin,
  argsort,
  bincount,
  type ComputeClient,
  gather,
  type Handle,
  histogram,
  reduce,
  scan,
  scatterAdd,
  segmentReduce,
  sort,
  topk,
  transpose,
} from "../mod.ts";
import { cpuArgsort, randomWords } from "./_primitives.ts";

/** 128 floats; the views skip the first 64 (256 bytes) and cut the last 32. */
const BASE = Float32Array.from(randomWords(128, 7), (w) => (w % 1000) - 500);
const [START, END] = [64, 96];
const VIEW = BASE.slice(START, END);

/** Every primitive on `BASE[64..96)` as a view: results of the view's elements only. */
export async function checkViews(client: ComputeClient): Promise<void> {
  using base = client.createWithData(BASE);
  using x = base.withOffsetStart(START * 4).withOffsetEnd((BASE.length - END) * 4);
  assert.equal(x.length, VIEW.length);
  const n = VIEW.length;
  const order = cpuArgsort(VIEW);
  const best = cpuArgsort(VIEW, true);
  using ids = client.createWithData(new Uint32Array(128));
  using idsView = ids.withOffsetStart(START * 4).withOffsetEnd((128 - END) * 4);
  using index = client.createWithData(new Uint32Array([0, n - 1, n, 64, 1000]));
  const results: [string, Handle, ArrayLike<number>][] = [];
  using sorted = sort(client, x);
  results.push(["sort", sorted, Float32Array.from(order, (i) => VIEW[i])]);
  using args = argsort(client, x, { descending: true });
  results.push(["argsort", args, best]);
  using top = topk(client, x, 3);
  results.push(["topk", top.indices, best.slice(0, 3)]);
  using hi = argmax(client, x);
  using lo = argmin(client, x);
  results.push(["argmax", hi, [best[0]]], ["argmin", lo, [order[0]]]);
  using running = scan(client, x, { op: "max" });
  let peak = -Infinity;
  results.push(["scan", running, VIEW.map((v) => (peak = Math.max(peak, v)))]);
  using total = reduce(client, x, { op: "min" });
  results.push(["reduce", total, [Math.min(...VIEW)]]);
  using counts = histogram(client, x, { bins: 1, range: [-500, 500] });
  results.push(["histogram", counts, [n]]);
  using segment = segmentReduce(client, x, idsView, { segments: 2, op: "max" });
  results.push(["segmentReduce", segment, [Math.max(...VIEW), -Infinity]]);
  using picked = gather(client, x, index);
  results.push(["gather", picked, [VIEW[0], VIEW[n - 1], 0, 0, 0]]);
  using flipped = transpose(client, x, { shape: [4, 8] });
  const t = new Float32Array(n);
  for (let r = 0; r < 4; r++) for (let c = 0; c < 8; c++) t[c * 4 + r] = VIEW[r * 8 + c];
  results.push(["transpose", flipped, t]);
  using idsI = client.createWithData(Int32Array.from(VIEW, (v) => v & 7));
  using bins = bincount(client, idsI.withOffsetStart(0), { length: 8 });
  const expectedBins = new Array<number>(8).fill(0);
  for (const v of VIEW) expectedBins[v & 7]++;
  results.push(["bincount", bins, expectedBins]);
  const got = await client.readMany(results.map(([, h]) => h));
  results.forEach(([what, , expected], k) => {
    assert.deepEqual(
      Array.from(got[k] as ArrayLike<number>),
      Array.from(expected),
      `${what} of a view`,
    );
  });
  // scatterAdd into the view: indices past it (n, 64, 1000) are ignored, memory beside it kept.
  using ones = client.createWithData(new Float32Array(5).fill(1));
  scatterAdd(client, x, index, ones);
  const after = await client.read(base) as Float32Array;
  const expected = Float32Array.from(BASE);
  expected[START] += 1;
  expected[START + n - 1] += 1;
  assert.deepEqual(after, expected, "scatterAdd into a view");
}

/**
 * Inputs disposed right after the calls, then as many new handles of the same sizes written at
 * once (the memory of the inputs reused): the results are those of the data at the calls.
 */
export async function checkEarlyDispose(client: ComputeClient, n: number): Promise<void> {
  const data = Float32Array.from(randomWords(n, 3), (w) => (w % 1000) - 500);
  const words = Uint32Array.from(randomWords(n, 4), (w) => w % 50);
  const results: [string, Handle, ArrayLike<number>][] = [];
  try {
    {
      using x = client.createWithData(data);
      using ids = client.createWithData(words);
      results.push(["sort", sort(client, x), Float32Array.from(data).sort()]);
      const top = topk(client, x, 4);
      top.values.dispose();
      results.push(["topk", top.indices, cpuArgsort(data, true).slice(0, 4)]);
      let sum = 0;
      results.push(["scan", scan(client, ids), words.map((w) => (sum += w))]);
      const sums = new Float32Array(50);
      for (let i = 0; i < n; i++) sums[words[i]] += data[i];
      results.push(["segmentReduce", segmentReduce(client, x, ids, { segments: 50 }), sums]);
      results.push(["gather", gather(client, x, ids), Float32Array.from(words, (w) => data[w])]);
    }
    const junk = Array.from(
      { length: 8 },
      () => client.createWithData(new Float32Array(n).fill(7)),
    );
    const got = await client.readMany(results.map(([, h]) => h));
    for (const j of junk) j.dispose();
    results.forEach(([what, , expected], k) => {
      assert.deepEqual(
        Array.from(got[k] as ArrayLike<number>),
        Array.from(expected),
        `${what}, inputs disposed`,
      );
    });
  } finally {
    for (const [, h] of results) h.dispose();
  }
}

/** NaN of either sign and payload sorts, ranks and wins as the largest key, on every primitive. */
export async function checkNegativeNaN(client: ComputeClient): Promise<void> {
  const bits = new Uint32Array([
    0x3f800000,
    0xffc00000,
    0xbf800000,
    0x7f800001,
    0xff800001,
    0,
    0x80000000,
    0xff800000,
    0x7f800000,
    0xfff00000,
    0x40000000,
    0x7fc00000,
  ]);
  const words = Uint32Array.from({ length: 301 }, (_, i) => bits[(i * 5) % bits.length]);
  const keys = new Float32Array(words.buffer);
  using x = client.createWithData(keys);
  using ascending = argsort(client, x);
  using descending = argsort(client, x, { descending: true });
  using top = topk(client, x, 5, { largest: false });
  using hi = argmax(client, x);
  using lo = argmin(client, x);
  using sorted = sort(client, x);
  const firstNaN = keys.findIndex(Number.isNaN);
  const got = await client.readMany([ascending, descending, top.indices, hi, lo, sorted]);
  const order = cpuArgsort(keys);
  assert.deepEqual(got[0], order, "argsort");
  assert.deepEqual(got[1], cpuArgsort(keys, true), "argsort descending");
  assert.deepEqual(got[2], order.slice(0, 5), "topk smallest");
  assert.deepEqual(Array.from(got[3]), [firstNaN], "argmax: the first NaN");
  assert.deepEqual(Array.from(got[4]), [firstNaN], "argmin: the first NaN");
  // The sorted keys keep each key's bits (the NaN patterns included), in the stable order.
  const sortedBits = new Uint32Array((got[5] as Float32Array).buffer);
  assert.deepEqual(sortedBits, Uint32Array.from(order, (i) => words[i]), "sort keeps the bits");
}
