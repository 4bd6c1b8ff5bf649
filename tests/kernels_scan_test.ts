/**
 * Scans (issue #30): every op, type, inclusive and exclusive, whole and along both axes, against
 * a CPU reference at 0, 1, odd and non-power-of-two lengths, at the edges of runs (64 elements
 * an invocation as vec4s where a segment is whole vec4s, else 16), short rows (an invocation
 * each) and long ones (runs), several levels of run totals; past 65,535 workgroups (the short
 * rows: the passes over runs launch at most one invocation per 13 elements, under 65,535
 * workgroups of 64 for any binding within llvmpipe's 128 MiB) and at 2^24 elements with
 * GPUCOMPUTE_TEST_LARGE=1 (`deno task test:large`); fast-check properties; bad input gives typed
 * errors and the client stays usable.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  type ComputeClient,
  createClient,
  cumsum,
  type Handle,
  scan,
  type ScanOp,
} from "../mod.ts";
import {
  assertSame,
  type Element,
  type ElementArray,
  LARGE,
  large,
  randomWords,
  typed,
} from "./_primitives.ts";
import { inputFor, reference } from "./_scan_cases.ts";

const adapter = await navigator.gpu?.requestAdapter();
const ignore = adapter === null || adapter === undefined; // no WebGPU adapter on this machine

/** One scan to check: its input, layout and options. */
type Check = [Element, ScanOp, boolean, ElementArray, [number, number], 0 | 1];

/** Runs the scans, reads them back in one round trip, and compares each with the CPU's. */
async function check(client: ComputeClient, ...checks: Check[]): Promise<void> {
  const inputs: Handle[] = [];
  const outputs: Handle[] = [];
  try {
    for (const [, op, exclusive, data, shape, axis] of checks) {
      const x = client.createWithData(data);
      inputs.push(x);
      const given = shape[0] === 1 && axis === 1 ? {} : { shape, axis };
      outputs.push(scan(client, x, { op, exclusive, ...given }));
    }
    const got = await client.readMany(outputs);
    checks.forEach(([type, op, exclusive, data, shape, axis], i) => {
      const what = `${op} ${type} ${exclusive ? "exclusive" : "inclusive"} [${shape}] axis ${axis}`;
      assertSame(
        got[i] as ElementArray,
        reference(data, type, op, exclusive, shape, axis),
        what,
      );
    });
  } finally {
    for (const h of [...inputs, ...outputs]) h.dispose();
  }
}

Deno.test({
  name: "scan: every op and type against the CPU, whole and along axes",
  ignore,
  async fn(t) {
    using client = await createClient({ adapter: adapter! });
    const ops: ScanOp[] = ["sum", "max", "min", "prod"];
    const types: Element[] = ["f32", "i32", "u32"];

    await t.step("lengths 0, 1, odd, run edges, levels of run totals", async () => {
      // Divisible by 4: runs of 16 vec4s; otherwise of 16 elements. 4,096 and 4,100: totals of
      // 64 runs (one run of vec4s) and of 65 (runs of single elements, then a third level).
      for (const n of [0, 1, 7, 15, 16, 17, 63, 64, 68, 1000, 4096, 4100]) {
        const checks: Check[] = [];
        for (const type of types) {
          for (const op of ops) {
            for (const exclusive of [false, true]) {
              checks.push([type, op, exclusive, inputFor(type, op, n, n + 1), [1, n], 1]);
            }
          }
        }
        await check(client, ...checks);
      }
      // Four or five levels of runs, vec4s and single elements: every op both ways, the types
      // taking turns (the levels' code is the same for every type; each type's ran above).
      for (const n of [262_148, 262_158]) {
        const checks: Check[] = [];
        for (const [i, op] of ops.entries()) {
          for (const exclusive of [false, true]) {
            const type = types[(2 * i + Number(exclusive)) % types.length];
            checks.push([type, op, exclusive, inputFor(type, op, n, n + 1), [1, n], 1]);
          }
        }
        await check(client, ...checks);
      }
    });

    await t.step(
      "rows and columns: short ones an invocation each, long ones in runs",
      async () => {
        const shapes: [number, number][] = [
          [3, 5],
          [5, 1000],
          [1000, 7],
          [2, 1025],
          [64, 64], // the longest rows (and columns) scanned an invocation each
          [65, 65], // the shortest scanned in blocks
          [70_000, 3], // 1,094 workgroups of short rows; 70,000 short columns along axis 0
          ...large<[number, number]>([
            [64 * 65_536 + 1, 1], // 65,537 workgroups of short rows
          ]),
        ];
        for (const shape of shapes) {
          const checks: Check[] = [];
          for (const axis of [0, 1] as const) {
            for (const [type, op] of [["i32", "sum"], ["f32", "max"], ["u32", "prod"]] as const) {
              const data = inputFor(type, op, shape[0] * shape[1], shape[0]);
              checks.push([type, op, axis === 0, data, shape, axis]);
            }
          }
          await check(client, ...checks);
        }
      },
    );

    await t.step("4M + 1 elements: 262,145 run totals, scanned in runs too", async () => {
      const n = 2048 * 2048 + 1;
      await check(client, ["i32", "sum", true, typed("i32", randomWords(n, 7)), [1, n], 1]);
    });

    await t.step({
      name: "2^24 i32 elements: the sum wraps as i32 does",
      ignore: !LARGE,
      fn: async () => {
        const n = 1 << 24;
        const data = typed("i32", randomWords(n, 5));
        await check(client, ["i32", "sum", false, data, [1, n], 1]);
      },
    });

    await t.step("cumsum is the inclusive sum scan", async () => {
      using x = client.createWithData(new Float32Array([1, 2, 3, 4, 5, 6]));
      using whole = cumsum(client, x);
      using columns = cumsum(client, x, { shape: [2, 3], axis: 0 });
      const [a, b] = await client.readMany([whole, columns]);
      assert.deepEqual(Array.from(a), [1, 3, 6, 10, 15, 21]);
      assert.deepEqual(Array.from(b), [1, 2, 3, 5, 7, 9]);
    });

    await t.step("property: any op, type, length and shape", async () => {
      const property = fc.asyncProperty(
        fc.constantFrom(...types),
        fc.constantFrom(...ops),
        fc.boolean(),
        fc.integer({ min: 0, max: 3000 }),
        fc.integer({ min: 1, max: 9 }),
        fc.constantFrom(0 as const, 1 as const),
        fc.nat(),
        async (type, op, exclusive, length, rows, axis, seed) => {
          const cols = Math.floor(length / rows);
          const data = inputFor(type, op, rows * cols, seed);
          await check(client, [type, op, exclusive, data, [rows, cols], axis]);
        },
      );
      await fc.assert(property, { numRuns: 60 });
    });

    await t.step(
      "bad input: typed errors naming the argument; the client stays usable",
      async () => {
        using x = client.createWithData(new Float32Array([1, 2, 3, 4, 5, 6]));
        using h = client.createWithData(new Float64Array([1, 2]));
        assert.throws(
          () => scan(client, h as unknown as Handle<"f32">),
          (e) => e instanceof TypeError && /x/.test(e.message),
        );
        // deno-lint-ignore no-explicit-any
        assert.throws(() => scan(client, x, { op: "mean" as any }), RangeError);
        assert.throws(() => scan(client, x, { shape: [4, 2] }), /shape \[4, 2\]/);
        assert.throws(() => scan(client, x, { axis: 0 }), /axis needs a shape/);
        // deno-lint-ignore no-explicit-any
        assert.throws(() => scan(client, x, { shape: [2, 3], axis: 2 as any }), /axis must be/);
        using y = scan(client, x, { op: "prod" });
        assert.deepEqual(Array.from(await client.read(y)), [1, 2, 6, 24, 120, 720]);
      },
    );
  },
});
