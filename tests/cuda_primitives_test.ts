/**
 * The primitives on CUDA (#28): each runs on a CUDA client from the same call as on WebGPU, its
 * CUDA C generated from the same specification, compiled by NVIDIA's NVRTC and executed by the
 * simulated driver's PTX interpreter, against the CPU references of the WebGPU tests, at small
 * sizes (the interpreter runs about a million simple threads a second).
 */
import assert from "node:assert/strict";
import { random } from "../mod.ts";
import { unit, words } from "./_philox.ts";
import { nvrtcName, nvrtcSkip, simulatedCudaClient } from "./_cuda_nvrtc.ts";
import { hazardCount, hazardReport, resetHazards } from "./fixtures/cuda_sim.ts";

const ignore = nvrtcSkip !== undefined;

Deno.test({
  name: nvrtcName("random on CUDA: Philox4x32-10 bit-identical to the CPU reference"),
  ignore,
  async fn() {
    resetHazards();
    using client = await simulatedCudaClient();
    const cases: [number | bigint, number, number][] = [
      [0, 0, 4],
      [0, 0, 0],
      [1, 0, 1],
      [12345, 3, 7],
      [2 ** 40 + 17, 1, 1023],
      [0xffffffffffffffffn, 5, 65],
      [99, 2 ** 34 + 2, 33], // a counter past 2^32 blocks
      [7, 0, 5001],
    ];
    for (const [seed, offset, n] of cases) {
      using h = random(client, n, { seed, offset, dtype: "u32" });
      assert.deepEqual(await client.read(h), words(BigInt(seed), offset, n), `${seed} ${offset}`);
    }
    for (const [low, high, offset, n] of [[0, 1, 0, 1001], [-3, 5.5, 6, 257], [10, 10.25, 1, 9]]) {
      using h = random(client, n, { seed: 5, offset, low, high });
      const span = Math.fround(high - low);
      const expected = Float32Array.from(
        words(5n, offset, n),
        (w) => Math.fround(Math.fround(unit(w) * span) + Math.fround(low)),
      );
      assert.deepEqual(await client.read(h), expected, `[${low}, ${high})`);
    }
    const n = 999;
    using z = random(client, n, { seed: 11, offset: 1, distribution: "normal", mean: 2, std: 3 });
    const w = words(11n, 0, n + 2);
    const got = await client.read(z);
    for (let j = 0; j < n; j++) {
      const i = j + 1;
      const p = i - (i % 2);
      const r = Math.sqrt(-2 * Math.log(1 - unit(w[p])));
      const angle = 2 * Math.PI * unit(w[p + 1]);
      const value = (i % 2 === 0 ? Math.cos(angle) : Math.sin(angle)) * r;
      assert.ok(Math.abs(got[j] - (2 + 3 * value)) < 1e-4 * (1 + Math.abs(value)), `${j}`);
    }
    assert.equal(hazardCount(), 0, hazardReport());
  },
});
