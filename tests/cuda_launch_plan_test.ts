/**
 * A kernel's launch plan (runtime/server/cuda/launch/_plan.ts: its block, function and PTX sizes
 * kept from its first launch) is used again only while nothing it was made from changed: after a
 * launch that made the plan, a kernel object whose `blockSize` array was changed in place, whose
 * `entryPoint` or `ptx` was replaced, or whose `sharedMemoryBytes` grew runs (or is refused) as a
 * new kernel would; and the checks of each launch's own arguments (a disposed handle, a handle of
 * another element type or too few bytes, another stream) still run on every launch.
 */
import assert from "node:assert/strict";
import { CompilationError, createClient, InvalidHandleError, KernelArgumentError } from "../mod.ts";
import { CubeCount } from "../mod.ts";
import type { CudaKernel } from "../runtime/server/cuda/mod.ts";
import { Nvrtc } from "../runtime/server/cuda/compile/_nvrtc.ts";
import { hazardCount, resetHazards, SIM_LIBRARY } from "./fixtures/cuda_sim.ts";

const nvrtc = Deno.env.get("GPUCOMPUTE_NVRTC_LIBRARY");
const noNvrtc = nvrtc === undefined || nvrtc === "";
if (!noNvrtc) Nvrtc.open(nvrtc);

/** One entry writing `value` (a PTX special register) to `out[ctaid.x * ntid.x + tid.x]`. */
const entry = (name: string, value: string) => `
.visible .entry ${name}(.param .u64 out)
{
	.reg .b32 %r<6>;
	.reg .b64 %rd<5>;
	ld.param.u64 %rd1, [out];
	cvta.to.global.u64 %rd2, %rd1;
	mov.u32 %r1, %ntid.x;
	mov.u32 %r2, %ctaid.x;
	mov.u32 %r3, %tid.x;
	mad.lo.s32 %r4, %r2, %r1, %r3;
	mov.u32 %r5, ${value};
	mul.wide.u32 %rd3, %r4, 4;
	add.s64 %rd4, %rd2, %rd3;
	st.global.u32 [%rd4], %r5;
	ret;
}
`;
const HEADER = ".version 7.0\n.target sm_75\n.address_size 64\n";
/** `block_x` writes each thread's block width, `thread_x` its thread index. */
const PTX = HEADER + entry("block_x", "%r1") + entry("thread_x", "%r3");

Deno.test("a kernel changed after its first launch runs as changed: blockSize in place, entryPoint, ptx", async () => {
  using client = await createClient({ backend: "cuda", library: SIM_LIBRARY });
  using out = client.zeros(8, "u32");
  const size: [number, number, number] = [8, 1, 1];
  const kernel = { ptx: PTX, entryPoint: "block_x", blockSize: size };
  const run = async () => {
    client.execute(kernel, { count: CubeCount.new1d(1), buffers: [out] });
    const got = [...await client.read(out)];
    client.execute({ ptx: HEADER + entry("zero", "0") }, {
      count: CubeCount.new1d(1),
      buffers: [out],
      stream: undefined,
    } as never);
    return got;
  };
  // twice: the second launch finds the plan of the first
  assert.deepEqual(await run(), [8, 8, 8, 8, 8, 8, 8, 8]);
  assert.deepEqual(await run(), [8, 8, 8, 8, 8, 8, 8, 8]);
  size[0] = 4; // the same array, changed in place: another block
  assert.deepEqual(await run(), [4, 4, 4, 4, 0, 0, 0, 0]);
  size[0] = 4096; // past the device's block limit: refused at the call, as at a first launch
  assert.throws(
    () => client.execute(kernel, { count: CubeCount.new1d(1), buffers: [out] }),
    (e) =>
      e instanceof CompilationError && /block size x=4096 exceeds the device limit/.test(e.message),
  );
  size[0] = 8;
  assert.deepEqual(await run(), [8, 8, 8, 8, 8, 8, 8, 8]);
  const mutable = kernel as { entryPoint: string; ptx: string };
  mutable.entryPoint = "thread_x"; // the same object, another entry point of the module
  assert.deepEqual(await run(), [0, 1, 2, 3, 4, 5, 6, 7]);
  mutable.ptx = HEADER + entry("thread_x", "%ctaid.x"); // another program of that name
  assert.deepEqual(await run(), [0, 0, 0, 0, 0, 0, 0, 0]);
  mutable.entryPoint = "missing";
  assert.throws(
    () => client.execute(kernel, { count: CubeCount.new1d(1), buffers: [out] }),
    (e) => e instanceof KernelArgumentError && e.argument === "entryPoint",
  );
});

Deno.test("sharedMemoryBytes grown past the device's limit after a launch is refused", async () => {
  using client = await createClient({ backend: "cuda", library: SIM_LIBRARY });
  using out = client.zeros(8, "u32");
  const kernel: { ptx: string; blockSize: [number, number, number]; sharedMemoryBytes: number } = {
    ptx: HEADER + entry("block_x", "%ntid.x"),
    blockSize: [8, 1, 1],
    sharedMemoryBytes: 0,
  };
  client.execute(kernel, { count: CubeCount.new1d(1), buffers: [out] });
  client.execute(kernel, { count: CubeCount.new1d(1), buffers: [out] });
  assert.deepEqual([...await client.read(out)], [8, 8, 8, 8, 8, 8, 8, 8]);
  kernel.sharedMemoryBytes = 1 << 30;
  assert.throws(
    () => client.execute(kernel, { count: CubeCount.new1d(1), buffers: [out] }),
    RangeError,
  );
  kernel.sharedMemoryBytes = 0;
  client.execute(kernel, { count: CubeCount.new1d(1), buffers: [out] });
  assert.deepEqual([...await client.read(out)], [8, 8, 8, 8, 8, 8, 8, 8]);
});

Deno.test({
  name: "after a launch, each launch's buffers are still checked: dtype, size, disposed, stream",
  ignore: noNvrtc,
  async fn() {
    using client = await createClient({ backend: "cuda", library: SIM_LIBRARY });
    const axpb: CudaKernel = {
      source: `extern "C" __global__ void axpb(const float* x, float* y, float a, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}`,
    };
    using x = client.createWithData(new Float32Array([1, 2, 3, 4]));
    using y = client.zeros(4);
    const params = { a: 2, n: 4 };
    client.execute(axpb, { threads: 4, buffers: [x, y], params });
    client.execute(axpb, { threads: 4, buffers: [x, y], params });
    assert.deepEqual([...await client.read(y)], [4, 8, 12, 16]);
    const refused = (
      buffers: unknown[],
      argument: string,
      problem: RegExp,
      type: new (...args: never[]) => Error = KernelArgumentError,
    ) =>
      assert.throws(
        () => client.execute(axpb, { threads: 4, buffers, params } as never),
        (e) =>
          e instanceof type && problem.test(e.message) &&
          (!(e instanceof KernelArgumentError) || e.argument === argument),
        argument,
      );
    using ints = client.zeros(4, "i32");
    refused([ints, y], "buffers[0]", /holds i32 elements, but const float\* x points to f32/);
    refused([x, ints], "buffers[1]", /holds i32 elements/);
    using two = client.createBytes(2);
    refused([x, two.as("bytes")], "buffers[1]", /has 2 bytes, but float\* y needs at least 4/);
    const gone = client.zeros(4);
    client.execute(axpb, { threads: 4, buffers: [x, gone], params });
    gone.dispose();
    refused([x, gone], "buffers[1]", /^buffers\[1\]: .*dispose\(\)/, InvalidHandleError);
    assert.deepEqual([...await client.read(y)], [4, 8, 12, 16], "refused launches ran nothing");
    // Another stream: ordered after the first stream's write of y (read-only x needs no wait).
    resetHazards();
    for (let i = 0; i < 4; i++) {
      client.execute(axpb, { threads: 4, buffers: [x, y], params, stream: i % 2 });
    }
    assert.deepEqual([...await client.read(y, { stream: 1 })], [12, 24, 36, 48]);
    assert.equal(hazardCount(), 0);
  },
});

Deno.test({
  name: "compileOptions changed in place and a source replaced after a launch are read again",
  ignore: noNvrtc,
  async fn() {
    using client = await createClient({ backend: "cuda", library: SIM_LIBRARY });
    using out = client.zeros(4);
    const options = ["-DV=1"];
    const kernel = {
      source: `extern "C" __global__ void put(float* y) { y[threadIdx.x] = V; }`,
      compileOptions: options,
      blockSize: [4, 1, 1] as [number, number, number],
    };
    const run = async () => {
      client.execute(kernel, { count: CubeCount.new1d(1), buffers: [out] });
      return [...await client.read(out)];
    };
    assert.deepEqual(await run(), [1, 1, 1, 1]);
    assert.deepEqual(await run(), [1, 1, 1, 1]);
    options[0] = "-DV=2"; // the same array: another program
    assert.deepEqual(await run(), [2, 2, 2, 2]);
    const refused = (argument: string, problem: RegExp) =>
      assert.throws(
        () => client.execute(kernel, { count: CubeCount.new1d(1), buffers: [out] }),
        (e) =>
          e instanceof KernelArgumentError && e.argument === argument && problem.test(e.message),
      );
    options[0] = "-arch=sm_80";
    refused("compileOptions", /names the architecture \(-arch=sm_80\)/);
    options[0] = "-dlto";
    refused("compileOptions", /link-time optimization/);
    options[0] = "-DV=3";
    assert.deepEqual(await run(), [3, 3, 3, 3]);
    // a WGSL source on the same object after it ran as CUDA C: refused as WGSL
    (kernel as { source: string }).source =
      "@group(0) @binding(0) var<storage, read_write> y: array<f32>;\n" +
      "@compute @workgroup_size(4) fn main() {}";
    refused("kernel", /is a WGSL kernel/);
  },
});

Deno.test("a buffer disposed while a launch reads its params is refused, after a launch too", async () => {
  using client = await createClient({ backend: "cuda", library: SIM_LIBRARY });
  const { CUDA_KERNELS } = await import("../runtime/server/cuda/mod.ts");
  const fill = { ptx: CUDA_KERNELS.fillF32.ptx, entryPoint: "fill_f32" };
  using out = client.zeros(4);
  client.execute(fill, { threads: 4, buffers: [out], params: [4, 1] });
  const gone = client.zeros(4);
  const params: unknown[] = [4];
  Object.defineProperty(params, 1, {
    enumerable: true,
    get() {
      gone.dispose(); // while the launch packs its params, after its buffers were located
      return 2;
    },
  });
  assert.throws(
    () => client.execute(fill, { threads: 4, buffers: [gone], params: params as number[] }),
    (e) => e instanceof InvalidHandleError && /^buffers\[0\]: .*dispose/.test(e.message),
  );
  client.execute(fill, { threads: 4, buffers: [out], params: [4, 3] });
  assert.deepEqual([...await client.read(out)], [3, 3, 3, 3]);
});
