/**
 * Host time of 1,000 launches of a tiny kernel (issue #28), this tree against another checkout
 * of the project in one process, interleaved in a new random order each round, with the raw
 * `cuLaunchKernel` of the same function beside them, on the simulated driver. Variants: the
 * server's `execute` on the handles' stream (`same`) and on another stream than the one the
 * handles were made on (`cross`), and the client's `execute` on the handles' stream (`client`,
 * PTX `fill_f32` with its parameters by position), and for this tree, in a second process (see
 * `--js-only`), `js only` and `js client`: `same` and `client` with `cuLaunchKernel` replaced by
 * a no-op (the runtime's own JavaScript). The device is synchronized outside the timing.
 * Prints each variant's median and first quartile (ms per 1,000) and the median's ratio to raw.
 *
 * Run: `deno run -A bench/_cuda_launch_ab.ts [baseline checkout] [rounds]` (default: this tree
 * only, 40 rounds); a baseline is made with `git archive <commit> | tar -x -C .tmp/base`.
 * `deno run -A bench/_cuda_launch_ab.ts --js-only [rounds]` runs only the `js` variants, which
 * the first form starts at its end.
 *
 * @module
 */
import { CubeCount, KernelArguments } from "../backend.ts";

const LAUNCHES = 1000;
const N = 1024;
const library =
  new URL("../tests/fixtures/cuda_sim/build/libcuda_sim.so", import.meta.url).pathname;
const jsOnly = Deno.args[0] === "--js-only";
const base = jsOnly ? undefined : Deno.args[0];
const rounds = Number(Deno.args[1] ?? 40);

interface Tree {
  name: string;
  variants: Map<string, () => void>;
  sync: () => Promise<void>;
}

async function tree(name: string, root: URL): Promise<Tree> {
  const cuda = await import(new URL("runtime/server/cuda/mod.ts", root).href);
  const { ComputeClient } = await import(new URL("mod.ts", root).href);
  const { KernelArguments, CubeCount } = await import(new URL("backend.ts", root).href);
  const server = cuda.CudaServer.create({ library, maxStreams: 4 });
  const buffer = server.createWithData(new Uint8Array(N * 4), 0);
  const args = new KernelArguments().withBuffer(buffer.ref())
    .withMetadata({ data: new Uint32Array([N]), staticLength: 1 }).withScalar("f32", [1]);
  const fill = { kernel: cuda.CUDA_KERNELS.fillF32, count: CubeCount.new1d(N / 256), args };
  const client = new ComputeClient(server);
  const handle = client.createBytes(N * 4);
  const userFill = { ptx: cuda.CUDA_KERNELS.fillF32.ptx, entryPoint: "fill_f32" };
  const options = { count: CubeCount.new1d(N / 256), buffers: [handle], params: [N, 1] };
  const variants = new Map<string, () => void>([
    ["same", () => {
      for (let i = 0; i < LAUNCHES; i++) server.execute(fill, 0);
    }],
    ["cross", () => {
      for (let i = 0; i < LAUNCHES; i++) server.execute(fill, 1);
    }],
    ["client", () => {
      for (let i = 0; i < LAUNCHES; i++) client.execute(userFill, options);
    }],
  ]);
  for (const run of variants.values()) run(); // loads the modules
  if (jsOnly) {
    // The runtime's own JavaScript: the same launches with `cuLaunchKernel` a no-op. In a process
    // of its own: a replaced FFI symbol makes V8 call every symbol of the driver, raw ones
    // included, without its fast path (a launch took up to twice as long after it).
    const symbols = server.device.driver.symbols as {
      cuLaunchKernel: (...args: never[]) => number;
    };
    symbols.cuLaunchKernel = () => 0;
    variants.clear();
    variants.set("js only", () => {
      for (let i = 0; i < LAUNCHES; i++) server.execute(fill, 0);
    });
    variants.set("js client", () => {
      for (let i = 0; i < LAUNCHES; i++) client.execute(userFill, options);
    });
  }
  return {
    name,
    variants,
    sync: async () => {
      if (buffer.disposed) throw new Error("released");
      await server.sync(0);
      await client.sync();
    },
  };
}

const trees = [await tree("this", new URL("../", import.meta.url))];
if (base !== undefined) {
  trees.push(await tree("base", new URL(`file://${Deno.realPathSync(base)}/`)));
}

// Raw: the same function and parameters, prepared once, on a stream of its own.
const cuda = await import("../runtime/server/cuda/mod.ts");
const server = cuda.CudaServer.create({ library, maxStreams: 1 });
const { symbols, out64 } = server.device.driver;
const driver = server.device.driver;
const buffer = server.createWithData(new Uint8Array(N * 4), 0);
server.execute({
  kernel: cuda.CUDA_KERNELS.fillF32,
  count: CubeCount.new1d(N / 256),
  args: new KernelArguments().withBuffer(buffer.ref())
    .withMetadata({ data: new Uint32Array([N]), staticLength: 1 }).withScalar("f32", [1]),
}, 0);
const ptx = new TextEncoder().encode(cuda.CUDA_KERNELS.fillF32.ptx + "\0");
driver.check(symbols.cuModuleLoadData(out64, ptx), "cuModuleLoadData");
const module = driver.pointerAt();
driver.check(
  symbols.cuModuleGetFunction(out64, module, new TextEncoder().encode("fill_f32\0")),
  "cuModuleGetFunction",
);
const fn = driver.pointerAt();
driver.check(symbols.cuStreamCreate(out64, 1), "cuStreamCreate");
const stream = driver.pointerAt();
const values = new ArrayBuffer(24);
const at = server.getResource(buffer.ref(), 0);
new DataView(values).setBigUint64(0, at.resource + BigInt(at.offset), true);
new DataView(values).setUint32(8, N, true);
new DataView(values).setFloat32(16, 1, true);
const address = BigInt(Deno.UnsafePointer.value(Deno.UnsafePointer.of(values)));
const raw = { values, params: new BigUint64Array([address, address + 8n, address + 16n]) };
const rawRun = () => {
  for (let i = 0; i < LAUNCHES; i++) {
    symbols.cuLaunchKernel(fn, N / 256, 1, 1, 256, 1, 1, 0, stream, raw.params, null);
  }
};

const times = new Map<string, number[]>();
const jobs: [string, () => void, () => Promise<void>][] = [
  ["raw", rawRun, () => Promise.resolve(void symbols.cuStreamSynchronize(stream))],
];
for (const t of trees) {
  for (const [v, run] of t.variants) jobs.push([`${t.name} ${v}`, run, t.sync]);
}
for (let round = 0; round < rounds + 5; round++) {
  for (const [name, run, sync] of [...jobs].sort(() => Math.random() - 0.5)) {
    const start = performance.now();
    run();
    const ms = performance.now() - start;
    await sync();
    if (round >= 5) (times.get(name) ?? times.set(name, []).get(name)!).push(ms);
  }
}
const quantile = (xs: number[], q: number) =>
  [...xs].sort((a, b) => a - b)[Math.floor(q * (xs.length - 1))];
const rawMedian = quantile(times.get("raw")!, 0.5);
console.log(`load: ${Deno.loadavg().map((n) => n.toFixed(2)).join(" ")}; rounds ${rounds}`);
for (const [name, xs] of times) {
  const median = quantile(xs, 0.5);
  console.log(
    `${name.padEnd(12)} median ${median.toFixed(2)} ms  q1 ${quantile(xs, 0.25).toFixed(2)} ms  ` +
      (jsOnly ? "(separate process)" : `${(median / rawMedian).toFixed(2)}x raw`),
  );
}
buffer.dispose();
if (raw.values.byteLength !== 24) throw new Error("unreachable");
if (!jsOnly) {
  const js = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", new URL(import.meta.url).pathname, "--js-only", String(rounds)],
    stdout: "piped",
  }).output();
  console.log(
    new TextDecoder().decode(js.stdout).split("\n").filter((l) => l.startsWith("this js"))
      .join("\n"),
  );
}
