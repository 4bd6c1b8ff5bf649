// Heat diffusion on a rod of n cells, one step = two kernels (the Laplacian, then the update
// u += dt * lap), captured once as a launch graph and replayed 1,000 times; dt changes midway
// without a new capture (`replay({ params })`). Checked against the CPU: throws on a
// mismatch. `deno run examples/graph.ts [--backend cuda --library <libcuda.so>]`.
import { type ComputeClient, createClient, type Handle, type WgslKernel } from "../mod.ts";
import { laplaceCuda, updateCuda } from "./_graph_cuda.ts";

const laplace: WgslKernel = {
  id: "example.heat_laplace",
  source: `
@group(0) @binding(0) var<storage, read> u: array<f32>;
@group(0) @binding(1) var<storage, read_write> lap: array<f32>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3u) {
  let n = arrayLength(&u);
  let i = g.x;
  if (i >= n) { return; }
  let c = u[i];
  let l = select(c, u[max(i, 1u) - 1u], i > 0u);
  let r = select(c, u[min(i + 1u, n - 1u)], i + 1u < n);
  lap[i] = (l + r) - (c + c);
}`,
};

const update: WgslKernel = {
  id: "example.heat_update",
  source: `
@group(0) @binding(0) var<storage, read_write> u: array<f32>;
@group(0) @binding(1) var<storage, read> lap: array<f32>;
@group(0) @binding(2) var<uniform> dt: f32;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3u) {
  if (g.x < arrayLength(&u)) { u[g.x] = u[g.x] + dt * lap[g.x]; }
}`,
};

/** Options of {@linkcode heatDiffusion}. */
export interface HeatOptions {
  /** The backend, which picks the kernels (WGSL or CUDA). @default {"webgpu"} */
  readonly backend?: "webgpu" | "cuda";
  /** The CUDA driver library (`libcuda.so.1` or the simulated driver). @default {the system's} */
  readonly library?: string;
  /** Cells. @default {256} */
  readonly n?: number;
  /** Replays in all; dt halves after 60% of them. @default {1000} */
  readonly steps?: number;
}

/** One step on the CPU, rounding to f32 like the kernels (no fused multiply-add). */
function cpuStep(u: Float32Array, lap: Float32Array, dt: number): void {
  const f = Math.fround, n = u.length;
  for (let i = 0; i < n; i++) {
    const c = u[i], l = i > 0 ? u[i - 1] : c, r = i + 1 < n ? u[i + 1] : c;
    lap[i] = f(f(l + r) - f(c + c));
  }
  for (let i = 0; i < n; i++) u[i] = f(u[i] + f(dt * lap[i]));
}

/** Runs the diffusion (see the module comment); returns the final temperatures. */
export async function heatDiffusion(options: HeatOptions = {}): Promise<Float32Array> {
  const { n = 256, steps = 1000, backend = "webgpu", library } = options;
  const cuda = backend === "cuda";
  using client: ComputeClient = cuda
    ? await createClient({ backend, library })
    : await createClient();
  {
    const start = Float32Array.from({ length: n }, (_, i) => (i < n / 4 ? 1 : 0) + (i % 3) / 8);
    using u = client.createWithData(start);
    using lap = client.zeros(n);
    const step = (dt: number) => {
      if (!cuda) {
        client.execute(laplace, { threads: n, buffers: [u, lap] });
        client.execute(update, { threads: n, buffers: [u, lap], params: { dt } });
        return;
      }
      // The CUDA C kernels take `n` and `dt` as named params (their PTX is what loads).
      client.execute(laplaceCuda, { threads: n, buffers: [u, lap], params: { n } });
      client.execute(updateCuda, { threads: n, buffers: [u, lap], params: { n, dt } });
    };
    const first = Math.round(steps * 0.6);
    using graph = await client.capture(() => step(0.2), { label: "heat step" }); // runs nothing yet
    for (let s = 0; s < first; s++) graph.replay();
    graph.replay({ params: { dt: 0.1 } }); // rewritten in place, kept for later replays
    for (let s = first + 1; s < steps; s++) graph.replay();
    const result = await client.read(u as Handle<"f32">);
    const cpu = Float32Array.from(start), cpuLap = new Float32Array(n);
    for (let s = 0; s < steps; s++) cpuStep(cpu, cpuLap, s < first ? 0.2 : 0.1);
    const wrong = result.findIndex((v, i) => !(Math.abs(v - cpu[i]) <= 1e-5));
    if (wrong !== -1) {
      throw new Error(`heat diffusion: cell ${wrong} is ${result[wrong]}, the CPU: ${cpu[wrong]}`);
    }
    return result;
  }
}

if (import.meta.main) {
  const at = Deno.args.indexOf("--backend");
  const backend = at < 0 ? "webgpu" : Deno.args[at + 1];
  const lib = Deno.args.indexOf("--library");
  const u = await heatDiffusion({
    backend: backend === "cuda" ? "cuda" : "webgpu",
    library: lib < 0 ? undefined : Deno.args[lib + 1],
  });
  console.log(`heat diffusion, 1,000 replays of a 2-kernel step on ${backend}: ok`, u.slice(0, 4));
}
