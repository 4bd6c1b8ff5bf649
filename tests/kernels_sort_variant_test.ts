/**
 * The radix sort that does not run on this adapter by default, forced (`setSortVariant`): on
 * the CPU adapter (llvmpipe) the tiled, GPU-shaped sort of real GPUs; on a GPU the serial sort
 * of CPU adapters. The same CPU references as tests/kernels_sort_test.ts (stable, NaN last,
 * -0 equal to +0, both directions, values, argsort, topk's row passes), at small sizes; and
 * which variant each device gets (`isCpuAdapter`). 2^24 keys with GPUCOMPUTE_TEST_LARGE=1.
 */
import assert from "node:assert/strict";
import { type ComputeClient, createClient, sort } from "../mod.ts";
import { isCpuAdapter } from "../runtime/kernels/_device_kind.ts";
import { setSortVariant, type SortVariant, sortVariant } from "../runtime/kernels/sort/_variant.ts";
import { assertBits, type Element, LARGE, randomWords } from "./_primitives.ts";
import { checkSort, checkSortProperty, constantDigitCases, keysFor } from "./_sort_cases.ts";
import { checkTopk, valuesFor } from "./_select_cases.ts";

const adapter = await navigator.gpu?.requestAdapter();
const ignore = adapter === null || adapter === undefined; // no WebGPU adapter on this machine
const types: Element[] = ["f32", "i32", "u32"];

Deno.test({
  name: "sort variants: the device's choice, and the other variant forced",
  ignore,
  async fn(t) {
    using client = await createClient({ adapter: adapter! });
    const name = client.server.properties.deviceName;
    const cpu = /llvmpipe|lavapipe|swiftshader/i.test(name) || adapter!.info.isFallbackAdapter;
    assert.equal(isCpuAdapter(client), cpu, name);
    const own = sortVariant(client);
    assert.equal(own, cpu ? "serial" : "tiled");
    const other: SortVariant = own === "serial" ? "tiled" : "serial";
    assert.throws(() => setSortVariant("fast" as SortVariant), TypeError);
    setSortVariant(other);
    try {
      assert.equal(sortVariant(client), other);
      await t.step(`${other}: small cases, lengths 0 to 30,003, both directions`, async () => {
        const f = new Float32Array([3, NaN, -0, -1, 0, 2, -0, -Infinity, Infinity]);
        for (const descending of [false, true]) await checkSort(client, f, "f32", descending);
        const tiny = new Float32Array([1e-40, -1e-45, 3, 1e-45, -1e-40, 0, -2, 1e-38]);
        await checkSort(client, tiny, "f32", true);
        await checkSort(
          client,
          new Int32Array([5, -2, 5, 0, -(2 ** 31), 2 ** 31 - 1]),
          "i32",
          true,
        );
        await checkSort(client, new Uint32Array([7, 0, 2 ** 32 - 1, 7, 1]), "u32", false);
        // Tile edges (1,024 keys a tile); few sizes: the tiled sort's barriers are slow on llvmpipe.
        for (const n of [0, 1, 7, 1025, 4099]) {
          for (const type of types) {
            for (const descending of [false, true]) {
              await checkSort(client, keysFor(type, n, n + 3), type, descending);
            }
          }
        }
        for (const type of types) {
          await checkSort(client, keysFor(type, 30_003, 7), type, type === "i32");
        }
      });
      await t.step(`${other}: one digit in every key, topk's row passes`, async () => {
        for (const [what, data, type] of constantDigitCases(1030)) {
          for (const descending of [false, true]) {
            await checkSort(client, data, type, descending).catch((error) => {
              throw new Error(`${what}: ${error.message}`);
            });
          }
        }
        await checkTopk(client, valuesFor("f32", 40 * 30, 9), 3, [40, 30], false);
        await checkTopk(client, new Float32Array(40 * 30).fill(1.5), 3, [40, 30], true);
        for (const type of types) {
          await checkTopk(client, valuesFor(type, 1100, 5), 8, undefined, true);
        }
        using keys = client.createWithData(new Uint32Array([3, 1, 2, 1]));
        using ints = client.createWithData(new Int32Array([-3, -1, -2, -4]));
        const pairs = sort(client, keys, { values: ints, descending: true });
        using _k = pairs.keys;
        using _v = pairs.values;
        const [k, v] = await client.readMany([pairs.keys, pairs.values]);
        assert.deepEqual([Array.from(k), Array.from(v)], [[3, 2, 1, 1], [-3, -2, -1, -4]]);
      });
      await t.step({
        name: `${other}: 2^24 u32 keys`,
        ignore: !LARGE,
        fn: async () => {
          const data = randomWords(1 << 24, 11);
          using keys = client.createWithData(data);
          using sorted = sort(client, keys, { descending: true });
          assertBits(await client.read(sorted), data.slice().sort().reverse(), `2^24 ${other}`);
        },
      });
      await t.step(`${other}: property: permutation, stability, NaN and -0`, async () => {
        await checkSortProperty(client, { maxLength: 2000, numRuns: 12 });
      });
    } finally {
      setSortVariant(undefined);
    }
    assert.equal(sortVariant(client), own);
  },
});

Deno.test("isCpuAdapter: software adapters by flag or name; CUDA never", () => {
  const client = (backend: string, deviceName: string, isFallbackAdapter?: boolean) =>
    ({
      server: {
        properties: { backend, deviceName },
        device: { adapterInfo: { isFallbackAdapter } },
      },
    }) as unknown as ComputeClient;
  for (
    const name of [
      "llvmpipe (LLVM 15.0.7, 256 bits)",
      "Mesa lavapipe",
      "SwiftShader Device (Subzero)",
      "google swiftshader",
      "Microsoft Basic Render Driver",
      "WARP",
    ]
  ) {
    assert.equal(isCpuAdapter(client("webgpu", name)), true, name);
    assert.equal(isCpuAdapter(client("cuda", name)), false, `cuda ${name}`);
  }
  for (
    const name of ["NVIDIA GeForce RTX 4090", "Apple M2", "AMD Radeon Pro", "Intel(R) Arc(TM)"]
  ) {
    assert.equal(isCpuAdapter(client("webgpu", name)), false, name);
    assert.equal(isCpuAdapter(client("webgpu", name, true)), true, `${name}, fallback`);
  }
  assert.equal(isCpuAdapter(client("cuda", "cuda_sim 0 (simulated)", true)), false);
});
