/**
 * The JavaScript cost of the launch path alone: the WebGPU server on a device whose every call
 * does nothing (no encoding, no validation, no device work), so what is left is the runtime's own
 * code per launch, from `client.execute` to the encoded task, `flush` included. Three launches:
 * `tiny` (one buffer, a static count), `params` (two buffers, two f32 params, `threads`), and
 * `scalars` (two buffers, two f32 scalars in CubeCL's info buffer); and `read_buffer` against
 * `read_texture`, one kernel reading a storage buffer or a 2-D storage texture of the same bytes.
 *
 * Run: `deno run -A bench/_launch_js_cost.ts [tiny|params|scalars|read_buffer|read_texture] [ms]`. On a machine shared with
 * other work, compare the CPU-time figure (the process's own user + system time).
 *
 * @module
 */
import process from "node:process";
import { ComputeClient, CubeCount } from "../mod.ts";
import { WebGpuDevice, WebGpuServer } from "../runtime/server/webgpu/mod.ts";
import { idleDevice } from "./_idle_device.ts";
import {
  AXPB_SCALARS_WGSL,
  AXPB_WGSL,
  INCREMENT_WGSL,
  READ_BUFFER_WGSL,
  READ_SIDE,
  READ_TEXTURE_WGSL,
} from "./_raw_webgpu.ts";

const kind = Deno.args[0] ?? "tiny";
const ms = Number(Deno.args[1] ?? 3000);
const gpu = new WebGpuDevice(await idleDevice(), { owned: false, name: "idle" });
const client = new ComputeClient(new WebGpuServer(gpu));
const N = 1024;
const x = client.createWithData(new Float32Array(N).fill(1));
const y = client.createBytes(N * 4);
const counters = client.createBytes(256);
const inc = { id: "inc", source: INCREMENT_WGSL };
const axpb = { id: "axpb", source: AXPB_WGSL };
const axpbScalars = { id: "axpb_scalars", source: AXPB_SCALARS_WGSL };
const one = CubeCount.new1d(1);
const groups = CubeCount.new1d(N / 64);
const params = { a: 1.0001, b: 0.5 };
// read_buffer / read_texture: the same kernel reading a storage buffer or a 2-D storage texture.
const cells = new Uint32Array(READ_SIDE * READ_SIDE);
const read = kind === "read_texture"
  ? {
    kernel: { id: "read_texture", source: READ_TEXTURE_WGSL },
    src: client.createTexture({ width: READ_SIDE, height: READ_SIDE, format: "r32uint" }),
  }
  : { kernel: { id: "read_buffer", source: READ_BUFFER_WGSL }, src: client.createWithData(cells) };
const readOut = client.createWithData(cells);
const readOptions = {
  threads: [READ_SIDE, READ_SIDE] as [number, number],
  buffers: [read.src, readOut],
};
const scalars = { f32: [1.0001, 0.5] };
const burst = () => {
  for (let i = 0; i < 256; i++) {
    const [src, dst] = i % 2 === 0 ? [x, y] : [y, x];
    if (kind === "tiny") client.execute(inc, { count: one, buffers: [counters] });
    else if (kind === "params") client.execute(axpb, { threads: N, buffers: [src, dst], params });
    else if (kind.startsWith("read_")) client.execute(read.kernel, readOptions);
    else client.execute(axpbScalars, { count: groups, buffers: [src, dst], scalars });
  }
  client.flush();
};
for (let i = 0; i < 100; i++) {
  burst();
  await client.sync();
}
const start = performance.now();
const cpu = process.cpuUsage();
let bursts = 0;
while (performance.now() - start < ms) {
  burst();
  if (++bursts % 50 === 0) await client.sync();
}
const perLaunch = (performance.now() - start) / bursts / 256 * 1000;
// CPU time (user + system) of the process: what other processes on a loaded machine take from
// the wall-clock figure does not count here.
const used = process.cpuUsage(cpu);
const cpuPerLaunch = (used.user + used.system) / bursts / 256;
console.log(
  `${kind}: ${perLaunch.toFixed(3)} µs of JavaScript per launch (execute + flush), ` +
    `${cpuPerLaunch.toFixed(3)} µs of CPU time`,
);
Deno.exit(0);
