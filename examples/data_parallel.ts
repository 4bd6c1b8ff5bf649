// Data parallel: the sum of a large vector split over every device of the machine. Each device
// sums its shard; the partial sums are copied to the first device and added up there; the result
// is checked against the CPU. Runs on one device too.
//
//   deno run examples/data_parallel.ts                      every WebGPU adapter
//   deno run examples/data_parallel.ts --devices 2          2 devices (of the adapters, in turn)
//   deno run --allow-ffi examples/data_parallel.ts --backend cuda [--library path/libcuda.so.1]
import {
  type ComputeClient,
  createClients,
  CubeCount,
  elementwise,
  type Handle,
  listDevices,
  reduce,
} from "../mod.ts";
import { CUDA_KERNELS } from "../runtime/server/cuda/mod.ts";

const add = elementwise({ inputs: ["a", "b"], expression: "a + b" });

/** One device's part: its shard's sum as a one-element handle (on WebGPU, the `reduce` helper). */
function partialSum(client: ComputeClient, shard: Handle<"f32">): Handle<"f32"> {
  if (client.server.properties.backend !== "cuda") return reduce(client, shard);
  // CUDA: the shipped sum_f32 kernel leaves one sum per block of 256; repeat to one value.
  let input = shard.clone();
  while (input.length > 1) {
    const blocks = Math.ceil(input.length / 256);
    const sums = client.empty(blocks, "f32");
    client.execute(CUDA_KERNELS.sumF32, {
      count: CubeCount.new1d(blocks),
      buffers: [input, sums],
      metadata: { data: new Uint32Array([input.length]), staticLength: 1 },
    });
    input.dispose();
    input = sums;
  }
  return input;
}

/** `a + b` on their device (one element each). */
function sum2(client: ComputeClient, a: Handle<"f32">, b: Handle<"f32">): Handle<"f32"> {
  if (client.server.properties.backend !== "cuda") return add.run(client, { a, b });
  const out = client.empty(1, "f32");
  client.execute(CUDA_KERNELS.addF32, {
    count: CubeCount.new1d(1),
    buffers: [a, b, out],
    metadata: { data: new Uint32Array([1]), staticLength: 1 },
  });
  return out;
}

/**
 * The sum of `data` over `clients`: shard `i` is summed on client `i`, the partial sums are copied
 * to the first client (each copy ordered after its producer, on the device where the backend can)
 * and added up there.
 */
export async function sumOnDevices(
  clients: readonly ComputeClient[],
  data: Float32Array,
): Promise<number> {
  const [root] = clients;
  const size = Math.ceil(data.length / clients.length);
  const partials = clients.map((client, i) => {
    using shard = client.createWithData(data.subarray(i * size, (i + 1) * size));
    const partial = partialSum(client, shard);
    if (client === root) return partial;
    using here = partial;
    return client.copyTo(here, root); // lands on the first device, after the sum
  });
  let total = partials[0];
  for (const partial of partials.slice(1)) {
    const next = sum2(root, total, partial);
    total.dispose();
    partial.dispose();
    total = next;
  }
  using result = total;
  const [value] = await root.read(result);
  return value;
}

/** The CPU's answer, in double precision. */
export function sumOnCpu(data: Float32Array): number {
  return data.reduce((sum, v) => sum + v, 0);
}

/** Values in [0, 1): a sum of n of them is about n / 2. */
export function sample(n: number): Float32Array {
  return Float32Array.from({ length: n }, (_, i) => ((i * 7919) % 1000) / 1000);
}

if (import.meta.main) {
  const arg = (name: string) => {
    const at = Deno.args.indexOf(`--${name}`);
    return at < 0 ? undefined : Deno.args[at + 1];
  };
  const backend = arg("backend") === "cuda" ? "cuda" : "webgpu";
  const found = await listDevices({ backend, library: arg("library") });
  if (found.length === 0) throw new Error(`No ${backend} device on this machine`);
  const count = Number(arg("devices") ?? found.length);
  using clients = await createClients(
    Array.from({ length: count }, (_, i) => found[i % found.length]),
  );
  const data = sample(8_000_000);
  const start = performance.now();
  const gpu = await sumOnDevices(clients, data);
  const ms = performance.now() - start;
  const cpu = sumOnCpu(data);
  const error = Math.abs(gpu - cpu) / cpu;
  if (!(error < 1e-5)) throw new Error(`data parallel: ${gpu} on the devices, ${cpu} on the CPU`);
  const names = clients.map((client) => client.server.properties.deviceName).join(", ");
  console.log(
    `sum of ${data.length} floats on ${count} device(s) (${names}): ${gpu} in ${
      ms.toFixed(1)
    } ms ` +
      `(relative error ${error.toExponential(1)})`,
  );
}
