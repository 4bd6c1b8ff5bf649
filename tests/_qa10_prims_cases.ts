/**
 * Cases shared by tests/qa10_prims_test.ts (WebGPU) and tests/cuda_qa10_prims_test.ts (CUDA):
 * `histogram` over ranges with subnormal edges (the host's edges, compared by keys of the bits)
 * against the docs' reference `docHistogram`, and f32 max and min of `reduce` and `scan` (picked
 * by keys of the bits) over subnormals, zeros of both signs, infinities and NaN of both signs
 * against a CPU reference, bit for bit (NaN: any NaN; its payload is the device's).
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { type ComputeClient, dot, histogram, reduce, scan } from "../mod.ts";
import { docHistogram, edgeValues } from "./_qa3_prims_histogram_cases.ts";

const f = Math.fround;
/** The f32 of the bits `b`. */
export const fromBits = (b: number): number =>
  new Float32Array(new Uint32Array([b >>> 0]).buffer)[0];
/** 2^-126, the smallest normal f32. */
const MIN_NORMAL = 2 ** -126;

/** Zeros, NaN of both signs with payloads, infinities, subnormals and the normals beside them. */
export const SPECIAL: readonly number[] = [
  0,
  -0,
  NaN,
  fromBits(0xffc00000),
  fromBits(0x7f800001),
  fromBits(0xff800123),
  fromBits(0x7fffffff),
  Infinity,
  -Infinity,
  1e-45,
  -1e-45,
  fromBits(0x007fffff),
  fromBits(0x807fffff),
  MIN_NORMAL,
  -MIN_NORMAL,
];

/** `x` in a handle; `view`: a view 64 elements into a bigger handle, 8 before its end. */
function upload(client: ComputeClient, x: Float32Array, view: boolean, fill: number) {
  if (!view) return { base: client.createWithData(x), x: undefined };
  const all = new Float32Array(x.length + 72).fill(fill);
  all.set(x, 64);
  const base = client.createWithData(all);
  return { base, x: base.withOffsetStart(64 * 4).withOffsetEnd(8 * 4) };
}

/** `histogram(x, bins, [low, high])` read back, the input disposed right after the call. */
async function counts(
  client: ComputeClient,
  x: Float32Array,
  bins: number,
  range: [number, number],
  view = false,
  stream?: number,
): Promise<number[]> {
  const { base, x: v } = upload(client, x, view, range[0]);
  let out;
  try {
    out = histogram(client, v ?? base, { bins, range, stream });
  } finally {
    base.dispose();
  }
  using h = out;
  return Array.from(await client.read(h));
}

/** Every f32 between subnormal multiples `low` and `high` of 2^-149 (and the specials). */
function subnormalValues(bins: number, range: [number, number], extra: number[]): Float32Array {
  return Float32Array.from([...edgeValues(bins, range), ...SPECIAL, ...extra]);
}

/**
 * A property: ranges with subnormal bounds (either sign, straddling 0 or not), 1 to 40 bins,
 * past the shared-memory limit (1,025 to 1,100: the global kernel) or 5,000, values on and beside
 * every edge with the specials and random subnormals, on views or whole handles, on stream 0 or 1.
 */
export async function checkSubnormalHistograms(
  client: ComputeClient,
  numRuns: number,
): Promise<void> {
  const sub = fc.integer({ min: -(2 ** 23) - 5, max: 2 ** 23 + 5 }).map((i) => i * 2 ** -149);
  await fc.assert(
    fc.asyncProperty(
      sub,
      sub,
      fc.oneof(
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 1025, max: 1100 }),
        fc.constant(5000),
      ),
      fc.array(sub, { maxLength: 40 }),
      fc.boolean(),
      fc.constantFrom(undefined, 1),
      async (a, b, bins, extra, view, stream) => {
        const range: [number, number] = a < b ? [a, b] : [b, a];
        if (!(range[0] < range[1]) || !(f((range[1] - range[0]) / bins) > 0)) return;
        const x = subnormalValues(bins, range, extra);
        assert.deepEqual(
          await counts(client, x, bins, range, view, stream),
          docHistogram(x, bins, range),
          `[${range}] in ${bins} bins${view ? " (view)" : ""}`,
        );
      },
    ),
    { numRuns },
  );
}

/**
 * Ranges at the edge of the subnormal path: ±0 bounds, one bin, 5,000 bins, and normal bounds and
 * width whose edges near 0 are subnormal (`[-1.5, 1.5] * 2^-126` in 3 bins: `±0.5 * 2^-126`).
 */
export const EDGE_RANGES: readonly (readonly [number, number, number])[] = [
  [-3e-45, -0, 3],
  [-0, 3e-45, 2],
  [-0, 1e-44, 1],
  [-1e-40, 1e-40, 1],
  [-1e-40, 1e-40, 1024], // the most bins the shared-memory kernel counts
  [-1e-40, 1e-40, 5000],
  [-1.5 * MIN_NORMAL, 1.5 * MIN_NORMAL, 3],
  [-1.5 * MIN_NORMAL, 1.5 * MIN_NORMAL, 1025],
  [-3 * MIN_NORMAL, 2 * MIN_NORMAL, 7],
  [-1, 2 ** -100, 3], // edges far from 0: the float kernel
];

/** {@linkcode EDGE_RANGES} with values on and beside every edge and the specials. */
export async function checkEdgeRanges(client: ComputeClient): Promise<void> {
  for (const [low, high, bins] of EDGE_RANGES) {
    const x = subnormalValues(bins, [low, high], [0.25 * MIN_NORMAL, -0.75 * MIN_NORMAL]);
    const want = docHistogram(x, bins, [low, high]);
    for (const view of [false, true]) {
      assert.deepEqual(
        await counts(client, x, bins, [low, high], view),
        want,
        `[${low}, ${high}] in ${bins} bins${view ? " (view)" : ""}`,
      );
    }
  }
}

/**
 * 2^24 + 2 bins over `[0, 1.5 (2^24 + 2)]`: the docs' edge 2^24 + 1 is `fround((2^24 + 1) 1.5)`
 * = 25165826 (the float kernel's `f32(k) * width` rounded k to 2^24 first: 25165824, which put
 * 25165824 in bin 2^24 + 1 instead of 2^24).
 */
export async function checkManyBins(client: ComputeClient): Promise<void> {
  const bins = 2 ** 24 + 2;
  const range: [number, number] = [0, 1.5 * bins];
  const x = new Float32Array([25165824, 25165826]);
  const want = docHistogram(x, bins, range);
  assert.deepEqual([want[2 ** 24], want[2 ** 24 + 1]], [1, 1]);
  const got = await counts(client, x, bins, range);
  assert.deepEqual([got[2 ** 24], got[2 ** 24 + 1]], [1, 1]);
  assert.deepEqual(got, want);
}

/** `a` and `b` are the same f32 (any NaN for a NaN, -0 apart from +0). */
const same = (a: number, b: number) => (Number.isNaN(a) && Number.isNaN(b)) || Object.is(a, b);
const FOLD = { max: Math.max, min: Math.min } as const;
const POOL = [...SPECIAL, 1, -1, 2e-40, -2e-40, 3.4e38, -3.4e38];

/** `n` values from the pool, NaN replaced by -0 unless `nan`. */
function mix(n: number, seed: number, nan: boolean): Float32Array {
  return Float32Array.from({ length: n }, (_, i) => {
    const v = POOL[(Math.imul(i + seed, 2654435761) >>> 7) % POOL.length];
    return !nan && Number.isNaN(v) ? -0 : v;
  });
}

/** The index of the first element of `got` that is not `want`'s, -1 if none. */
function firstMismatch(got: Float32Array, want: readonly number[]): number {
  assert.equal(got.length, want.length);
  return want.findIndex((w, i) => !same(got[i], w));
}

/**
 * f32 max and min of `reduce` and `scan` (inclusive and exclusive) over mixes of the specials
 * at lengths around the workgroup and run sizes, whole and along both axes of a shape.
 */
export async function checkSpecialPicks(client: ComputeClient): Promise<void> {
  const lengths = [1, 2, 3, 16, 17, 63, 65, 256, 257, 1025, 4096, 4097, 65536];
  for (const [i, n] of lengths.entries()) {
    for (const nan of [false, true]) {
      const data = mix(n, i * 7 + (nan ? 1 : 0), nan);
      using x = client.createWithData(data);
      for (const op of ["max", "min"] as const) {
        const fold = FOLD[op];
        const start = op === "max" ? -Infinity : Infinity;
        const running: number[] = [];
        let acc = start;
        for (const v of data) running.push(acc = fold(acc, v));
        using r = reduce(client, x, { op });
        const total = (await client.read(r))[0];
        assert.ok(same(total, acc), `reduce ${op} of ${n} (NaN: ${nan}): ${total}, not ${acc}`);
        for (const exclusive of [false, true]) {
          using s = scan(client, x, { op, exclusive });
          const want = exclusive ? [start, ...running.slice(0, -1)] : running;
          const at = firstMismatch(await client.read(s), want);
          assert.equal(
            at,
            -1,
            `scan ${op} of ${n} (exclusive: ${exclusive}, NaN: ${nan}) at ${at}`,
          );
        }
      }
      if (n >= 15 && n < 5000) await checkAxes(client, data, nan);
    }
  }
}

/** max and min along each axis of `[3, n / 3]` and `[n / 5, 5]` against the CPU. */
async function checkAxes(client: ComputeClient, data: Float32Array, nan: boolean): Promise<void> {
  for (const [rows, cols] of [[3, Math.floor(data.length / 3)], [Math.floor(data.length / 5), 5]]) {
    using x = client.createWithData(data.subarray(0, rows * cols));
    for (const axis of [0, 1] as const) {
      for (const op of ["max", "min"] as const) {
        const [outer, inner] = axis === 1 ? [rows, cols] : [cols, rows];
        const at = (o: number, k: number) => axis === 1 ? o * cols + k : k * cols + o;
        const totals: number[] = [];
        const running = new Array<number>(rows * cols);
        for (let o = 0; o < outer; o++) {
          let acc = op === "max" ? -Infinity : Infinity;
          for (let k = 0; k < inner; k++) running[at(o, k)] = acc = FOLD[op](acc, data[at(o, k)]);
          totals.push(acc);
        }
        const what = `${op} along axis ${axis} of [${rows}, ${cols}] (NaN: ${nan})`;
        using r = reduce(client, x, { op, shape: [rows, cols], axis });
        assert.equal(firstMismatch(await client.read(r), totals), -1, `reduce ${what}`);
        using s = scan(client, x, { op, shape: [rows, cols], axis });
        assert.equal(firstMismatch(await client.read(s), running), -1, `scan ${what}`);
      }
    }
  }
}

/** `dot` and `mean` beside the picks: exact small sums, NaN propagated, the mean of none NaN. */
export async function checkDotMean(client: ComputeClient): Promise<void> {
  const a = new Float32Array([1e-40, 2, -0, 3, 0.5]);
  using x = client.createWithData(a);
  using d = dot(client, [x, x]);
  using m = reduce(client, x, { op: "mean" });
  const [dd, mm] = await client.readMany([d, m]);
  assert.equal(dd[0], f(4 + 9 + 0.25));
  assert.equal(mm[0], f(5.5 / 5));
  using n = client.createWithData(new Float32Array([1, fromBits(0xffc00000), 2]));
  using dn = dot(client, [n, n]);
  using mn = reduce(client, n, { op: "mean" });
  const [dnv, mnv] = await client.readMany([dn, mn]);
  assert.ok(Number.isNaN(dnv[0]) && Number.isNaN(mnv[0]), `${dnv[0]} ${mnv[0]}`);
}
