/**
 * Scans (issue #30): every op, type, inclusive and exclusive, whole and along both axes, against
 * a CPU reference at 0, 1, odd and non-power-of-two lengths, past 65,535 workgroups and at 2^24
 * elements; fast-check properties; bad input gives typed errors and the client stays usable.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { createClient, cumsum, type Handle, scan, type ScanOp } from "../mod.ts";
import { type Element, randomWords, typed } from "./_primitives.ts";
import { check, inputFor } from "./_scan_cases.ts";

const adapter = await navigator.gpu?.requestAdapter();
const ignore = adapter === null || adapter === undefined; // no WebGPU adapter on this machine

Deno.test({
  name: "scan: every op and type against the CPU, whole and along axes",
  ignore,
  async fn(t) {
    using client = await createClient({ adapter: adapter! });
    const ops: ScanOp[] = ["sum", "max", "min", "prod"];
    const types: Element[] = ["f32", "i32", "u32"];

    await t.step("lengths 0, 1, odd, block edges, two levels of blocks", async () => {
      for (const n of [0, 1, 7, 511, 512, 513, 1000, 262_145 + 13]) {
        for (const type of types) {
          for (const op of ops) {
            for (const exclusive of [false, true]) {
              await check(client, type, op, exclusive, inputFor(type, op, n, n + 1), [1, n], 1);
            }
          }
        }
      }
    });

    await t.step("rows and columns, past 65,535 workgroups", async () => {
      const shapes: [number, number][] = [[3, 5], [5, 1000], [1000, 7], [70_000, 3], [2, 1025]];
      for (const shape of shapes) {
        for (const axis of [0, 1] as const) {
          for (const [type, op] of [["i32", "sum"], ["f32", "max"], ["u32", "prod"]] as const) {
            const data = inputFor(type, op, shape[0] * shape[1], shape[0]);
            await check(client, type, op, axis === 0, data, shape, axis);
          }
        }
      }
    });

    await t.step("2^24 i32 elements: the sum wraps as i32 does", async () => {
      const n = 1 << 24;
      const data = typed("i32", randomWords(n, 5));
      await check(client, "i32", "sum", false, data, [1, n], 1);
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
          await check(client, type, op, exclusive, inputFor(type, op, rows * cols, seed), [
            rows,
            cols,
          ], axis);
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
