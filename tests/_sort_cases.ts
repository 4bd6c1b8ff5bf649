/**
 * The CPU reference of sort and argsort, their keys and check, shared by tests/kernels_sort_test.ts
 * (WebGPU) and tests/cuda_primitives2_test.ts (CUDA).
 */
import fc from "fast-check";
import { argsort, type ComputeClient, sort } from "../mod.ts";
import {
  assertBits,
  cpuArgsort,
  type Element,
  type ElementArray,
  randomWords,
  typed,
} from "./_primitives.ts";

/** `data` permuted by `order`. */
function permute<A extends ElementArray>(data: A, order: Uint32Array): A {
  const out = data.slice() as A;
  for (let i = 0; i < order.length; i++) out[i] = data[order[i]];
  return out;
}

/** Keys with many ties; f32 with -0, +0, infinities and NaN of two patterns. */
export function keysFor(type: Element, n: number, seed: number, spread = 40): ElementArray {
  const words = randomWords(n, seed);
  if (type === "u32") return typed("u32", Array.from(words, (w) => w % spread === 0 ? w : w % 17));
  if (type === "i32") {
    return typed(
      "i32",
      Array.from(words, (w) => w % spread === 0 ? w | 0 : (w % 17) - 8),
    );
  }
  const out = typed("f32", Array.from(words, (w) => (w % 17) - 8 + (w % 3) / 4));
  const bits = new Uint32Array(out.buffer);
  const special = [0x80000000, 0, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00001];
  for (let i = 0; i < n; i++) if (words[i] % spread === 1) bits[i] = special[(words[i] >>> 7) % 6];
  return out;
}

export async function checkSort(
  client: ComputeClient,
  data: ElementArray,
  type: Element,
  descending: boolean,
): Promise<void> {
  const what = `${type} n=${data.length} ${descending ? "descending" : "ascending"}`;
  const order = cpuArgsort(data, descending);
  using keys = client.createWithData(data);
  using values = client.createWithData(Float32Array.from(data, (_, i) => i + 0.5));
  using sorted = sort(client, keys, { descending });
  using indices = argsort(client, keys, { descending });
  const pairs = sort(client, keys, { values, descending });
  using _k = pairs.keys;
  using _v = pairs.values;
  const [s, a, pk, pv] = await client.readMany([sorted, indices, pairs.keys, pairs.values]);
  assertBits(a, order, `argsort ${what}`);
  const expected = permute(data, order);
  if (type === "f32") {
    assertBits(s as ElementArray, expected, `sort ${what}`); // -0 and NaN bits kept
  } else {
    assertBits(s as ElementArray, expected, `sort ${what}`);
  }
  assertBits(pk as ElementArray, expected, `sort pairs keys ${what}`);
  assertBits(pv, Float32Array.from(order, (i) => i + 0.5), `sort pairs values ${what}`);
}

/**
 * Keys where some radix passes see one digit in every key (those passes are copies): all equal,
 * all equal but the first or the last (its top byte differs, so no pass may be skipped; the
 * last sits in a short run's last, partial group of 4), one varying byte (the second), and
 * small non-negative keys (three constant bytes). `n` spans several runs of keys.
 */
export function constantDigitCases(n: number): [string, ElementArray, Element][] {
  const words = randomWords(n, 5);
  const same = (w: number) => typed("u32", new Array(n).fill(w));
  const lastDiffers = same(0x12345678);
  lastDiffers[n - 1] = 0x02345678;
  const firstDiffers = same(0x12345678);
  firstDiffers[0] = 0xff345678;
  return [
    ["all equal", same(0xdeadbeef), "u32"],
    ["all equal but the last", lastDiffers, "u32"],
    ["all equal but the first", firstDiffers, "u32"],
    ["one varying byte", typed("u32", Array.from(words, (w) => 0xab0000cd | (w & 0xf00))), "u32"],
    ["small i32", typed("i32", Array.from(words, (w) => w % 50)), "i32"],
    ["equal f32", typed("f32", new Array(n).fill(-2.5)), "f32"],
  ];
}

/**
 * The sort property: any type, any keys (ties, NaN, -0, infinities) up to `maxLength`, either
 * direction, checked by {@linkcode checkSort} (a stable permutation equal to the CPU's).
 */
export async function checkSortProperty(
  client: ComputeClient,
  { maxLength, numRuns }: { maxLength: number; numRuns: number },
): Promise<void> {
  const special = fc.constantFrom(NaN, -0, 0, Infinity, -Infinity, 1, -1, 0.5);
  const property = fc.asyncProperty(
    fc.constantFrom<Element>("f32", "i32", "u32"),
    fc.array(fc.oneof(special, fc.integer({ min: -5, max: 5 }), fc.double()), { maxLength }),
    fc.boolean(),
    async (type, values, descending) => {
      await checkSort(
        client,
        typed(type, values.map((v) => type === "f32" ? v : Number.isFinite(v) ? v : 0)),
        type,
        descending,
      );
    },
  );
  await fc.assert(property, { numRuns });
}
