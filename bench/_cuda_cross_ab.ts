/**
 * Latency of work one simulated CUDA device runs behind another's (issue #28, the verdicts of
 * `runtime/client/timeline/_device_deps.ts`): a `copyTo` of 1 KiB from device 0 then a `read` of
 * it on device 1, and a `waitFor` on device 0's mark (on the device) then a launch and a `read`
 * on device 1, this tree against another checkout in one process, interleaved in a random order
 * each round.
 *
 * Run: `CUDA_SIM_DEVICES=2 CUDA_SIM_PEER=all deno run -A bench/_cuda_cross_ab.ts [baseline
 * checkout] [rounds]` (default: this tree only, 200 rounds).
 *
 * @module
 */

const library =
  new URL("../tests/fixtures/cuda_sim/build/libcuda_sim.so", import.meta.url).pathname;
const rounds = Number(Deno.args[1] ?? 200);

async function tree(root: URL, tag: string) {
  const mod = await import(new URL("mod.ts", root).href);
  const cuda = await import(new URL("runtime/server/cuda/mod.ts", root).href);
  const [a, b] = await mod.createClients(
    await mod.listDevices({ backend: "cuda", library }),
  );
  const x = a.createWithData(new Uint32Array(256).fill(1));
  const z = b.zeros(256, "u32");
  const increment = cuda.CUDA_KERNELS.incrementU32;
  return [
    [`${tag} copy + read`, async () => {
      const start = performance.now();
      const y = a.copyTo(x, b);
      await b.read(y);
      y.dispose();
      return performance.now() - start;
    }],
    [`${tag} mark + wait + launch + read`, async () => {
      const start = performance.now();
      a.execute(increment, { threads: 256, buffers: [x] });
      b.waitFor(a.timeline, a.signal());
      b.execute(increment, { threads: 256, buffers: [z] });
      await b.read(z);
      return performance.now() - start;
    }],
  ] as [string, () => Promise<number>][];
}

const runs = await tree(new URL("../", import.meta.url), "this");
if (Deno.args[0] !== undefined) {
  runs.push(...await tree(new URL(`file://${Deno.realPathSync(Deno.args[0])}/`), "base"));
}
const times = new Map<string, number[]>();
for (let round = 0; round < rounds + 5; round++) {
  for (const [name, run] of [...runs].sort(() => Math.random() - 0.5)) {
    const ms = await run();
    if (round >= 5) (times.get(name) ?? times.set(name, []).get(name)!).push(ms);
  }
}
const quantile = (xs: number[], q: number) =>
  [...xs].sort((a, b) => a - b)[Math.floor(q * (xs.length - 1))];
console.log(`load: ${Deno.loadavg().map((n) => n.toFixed(2)).join(" ")}`);
for (const [name, xs] of [...times].sort()) {
  console.log(
    `${name.padEnd(36)} median ${(quantile(xs, 0.5) * 1000).toFixed(0)} µs  q1 ` +
      `${(quantile(xs, 0.25) * 1000).toFixed(0)} µs  q3 ${
        (quantile(xs, 0.75) * 1000).toFixed(0)
      } µs`,
  );
}
Deno.exit(0); // the clients are left to the process's end
