/**
 * Interleaved A/B of `sort` on random u32 keys (issue #30): this tree against another copy of the
 * module (e.g. an unpacked older commit) and `Uint32Array.prototype.sort` of a copy, round by
 * round in one process on the same adapter, each iteration one sort and one read-back; prints
 * medians and minima and the load average beside them (the machine is shared).
 *
 * Run: `git archive <commit> | tar -x -C .tmp/base` once, then
 * `deno run --unstable-webgpu -A bench/_sort_ab.ts .tmp/base [16,18,20,22] [rounds]`
 * (with `DENO_WEBGPU_BACKEND=vulkan` where Mesa lavapipe is installed).
 *
 * @module
 */
import { pathToFileURL } from "node:url";
import * as current from "../mod.ts";

const [root = "", sizeList = "16,18,20,22", roundArg = "7"] = Deno.args;
if (root === "") throw new TypeError("usage: _sort_ab.ts <other module root> [sizes] [rounds]");
const other: typeof current = await import(pathToFileURL(`${Deno.realPathSync(root)}/mod.ts`).href);
const adapter = await navigator.gpu?.requestAdapter();
if (!adapter) throw new Error("no WebGPU adapter");
const clients = {
  base: await other.createClient({ adapter }),
  new: await current.createClient({ adapter }),
};
const rounds = Number(roundArg);
const median = (a: number[]) => [...a].sort((x, y) => x - y)[a.length >> 1];
const ms = (a: number[]) => `${median(a).toFixed(1)} ms (min ${Math.min(...a).toFixed(1)})`;

for (const log of sizeList.split(",").map(Number)) {
  const n = 2 ** log;
  const keys = Uint32Array.from({ length: n }, () => (Math.random() * 2 ** 32) >>> 0);
  const expected = keys.slice().sort();
  const handles = {
    base: clients.base.createWithData(keys),
    new: clients.new.createWithData(keys),
  };
  const times: Record<"cpu" | "base" | "new", number[]> = { cpu: [], base: [], new: [] };
  for (let round = 0; round <= rounds; round++) {
    let start = performance.now();
    keys.slice().sort();
    if (round > 0) times.cpu.push(performance.now() - start);
    for (const which of ["base", "new"] as const) {
      const module = which === "base" ? other : current;
      start = performance.now();
      using sorted = module.sort(clients[which], handles[which]);
      const got = await clients[which].read(sorted);
      if (round > 0) times[which].push(performance.now() - start);
      else if (!got.every((v, i) => v === expected[i])) {
        throw new Error(`${which}: wrong at 2^${log}`);
      }
    }
  }
  handles.base.dispose();
  handles.new.dispose();
  const ratio = (a: number[], b: number[]) => (median(a) / median(b)).toFixed(2);
  console.log(
    `2^${log}: Uint32Array ${ms(times.cpu)}, base ${ms(times.base)}, new ${ms(times.new)}; ` +
      `new ${ratio(times.base, times.new)}x base's speed, ${ratio(times.cpu, times.new)}x the ` +
      `CPU's (load ${Deno.loadavg().map((l) => l.toFixed(2)).join(" ")})`,
  );
}
