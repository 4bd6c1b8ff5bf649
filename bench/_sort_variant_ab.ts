/**
 * Interleaved A/B of the two radix sorts (`runtime/kernels/sort/_variant.ts`: the serial sort of
 * CPU adapters, the tiled sort of real GPUs) on random u32 keys, forced in turn round by round on
 * one client, each iteration one sort and one read-back checked against the CPU sort; prints
 * medians and minima with the load average beside them (the machine is shared). On the CPU
 * adapter the tiled figure is a correctness run, not the GPU sort's speed.
 *
 * Run: `deno run --unstable-webgpu -A bench/_sort_variant_ab.ts [20,22] [rounds]`
 * (with `DENO_WEBGPU_BACKEND=vulkan` where Mesa lavapipe is installed).
 *
 * @module
 */
import { createClient, sort } from "../mod.ts";
import { setSortVariant, type SortVariant } from "../runtime/kernels/sort/_variant.ts";

const [sizeList = "20,22", roundArg = "5"] = Deno.args;
const adapter = await navigator.gpu?.requestAdapter();
if (!adapter) throw new Error("no WebGPU adapter");
using client = await createClient({ adapter });
const rounds = Number(roundArg);
const variants: SortVariant[] = ["serial", "tiled"];
const median = (a: number[]) => [...a].sort((x, y) => x - y)[a.length >> 1];
const ms = (a: number[]) => `${median(a).toFixed(1)} ms (min ${Math.min(...a).toFixed(1)})`;

for (const log of sizeList.split(",").map(Number)) {
  const n = 2 ** log;
  const keys = Uint32Array.from({ length: n }, () => (Math.random() * 2 ** 32) >>> 0);
  const expected = keys.slice().sort();
  using input = client.createWithData(keys);
  const times: Record<SortVariant, number[]> = { serial: [], tiled: [] };
  for (let round = 0; round <= rounds; round++) {
    for (const variant of round % 2 === 0 ? variants : [...variants].reverse()) {
      setSortVariant(variant);
      const start = performance.now();
      using sorted = sort(client, input);
      const out = await client.read(sorted);
      const time = performance.now() - start;
      if (out.some((v, i) => v !== expected[i])) throw new Error(`${variant} 2^${log}: wrong`);
      if (round > 0) times[variant].push(time); // round 0 compiles
    }
  }
  setSortVariant(undefined);
  const ratio = median(times.tiled) / median(times.serial);
  console.log(
    `2^${log}: serial ${ms(times.serial)}, tiled ${ms(times.tiled)}, tiled/serial ${
      ratio.toFixed(2)
    }x, load ${Deno.loadavg()[0].toFixed(1)}`,
  );
}
