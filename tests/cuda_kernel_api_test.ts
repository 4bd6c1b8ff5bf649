/**
 * One kernel API on CUDA: a `{ source }` (CUDA C through NVRTC) or `{ ptx }` kernel runs from
 * `execute(kernel, { threads, buffers, params })` as on WebGPU, its entry point and parameters read
 * from the program. Scalars are checked against their declared types, handles against pointer
 * types, before anything runs (also on a stream held by `waitFor`). examples/saxpy_cuda.ts runs
 * on the simulated driver through NVIDIA's NVRTC and the PTX interpreter, exact against the CPU.
 */
import assert from "node:assert/strict";
import { CpuTimelineSignal, createClient, KernelArgumentError } from "../mod.ts";
import type { CudaKernel } from "../runtime/server/cuda/mod.ts";
import { cudaSignatures, ptxSignatures } from "../runtime/server/cuda/compile/signature.ts";
import { Nvrtc } from "../runtime/server/cuda/compile/_nvrtc.ts";
import { SIM_LIBRARY } from "./fixtures/cuda_sim.ts";

const nvrtc = Deno.env.get("GPUCOMPUTE_NVRTC_LIBRARY");
const noNvrtc = nvrtc === undefined || nvrtc === "";
// Opened here, outside the tests (a library opened inside one trips the resource sanitizer).
if (!noNvrtc) Nvrtc.open(nvrtc);

const SAXPY: CudaKernel = {
  source: `
extern "C" __global__ void saxpy(const float* x, float* y, float a, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}`,
};

// What NVRTC 12.4 writes for SAXPY above (the interpreter runs it; no NVRTC needed).
const SAXPY_PTX = `.version 8.4
.target sm_75
.address_size 64
.visible .entry saxpy(
	.param .u64 saxpy_param_0,
	.param .u64 saxpy_param_1,
	.param .f32 saxpy_param_2,
	.param .u32 saxpy_param_3
)
{
	.reg .pred 	%p<2>;
	.reg .f32 	%f<5>;
	.reg .b32 	%r<6>;
	.reg .b64 	%rd<8>;
	ld.param.u64 	%rd1, [saxpy_param_0];
	ld.param.u64 	%rd2, [saxpy_param_1];
	ld.param.f32 	%f1, [saxpy_param_2];
	ld.param.u32 	%r2, [saxpy_param_3];
	mov.u32 	%r3, %ctaid.x;
	mov.u32 	%r4, %ntid.x;
	mov.u32 	%r5, %tid.x;
	mad.lo.s32 	%r1, %r3, %r4, %r5;
	setp.ge.u32 	%p1, %r1, %r2;
	@%p1 bra 	$L__BB0_2;
	cvta.to.global.u64 	%rd3, %rd2;
	cvta.to.global.u64 	%rd4, %rd1;
	mul.wide.u32 	%rd5, %r1, 4;
	add.s64 	%rd6, %rd4, %rd5;
	ld.global.f32 	%f2, [%rd6];
	add.s64 	%rd7, %rd3, %rd5;
	ld.global.f32 	%f3, [%rd7];
	fma.rn.f32 	%f4, %f2, %f1, %f3;
	st.global.f32 	[%rd7], %f4;
$L__BB0_2:
	ret;
}
`;

Deno.test('CUDA C signatures: names, C types, const pointers, extern "C" only', () => {
  const [sig, ...rest] = cudaSignatures(`
template <typename T> __global__ void skipped(T* p) {}
__global__ void mangled(float* p) {}
extern "C" {
  // a comment with __global__ void nope(int x) {
  __global__ void __launch_bounds__(128) k(const float* __restrict__ x, int* y, double d,
      unsigned int u, long long l, unsigned long long ul, size_t s, __half h, void* any) {}
}`);
  assert.equal(rest.length, 0);
  assert.equal(sig.name, "k");
  assert.equal(sig.maxThreads, 128);
  assert.deepEqual(
    sig.params.map((p) => [p.name, p.kind, p.kind === "pointer" ? p.element : p.type]),
    [
      ["x", "pointer", "f32"],
      ["y", "pointer", "i32"],
      ["d", "scalar", "f64"],
      ["u", "scalar", "u32"],
      ["l", "scalar", "i64"],
      ["ul", "scalar", "u64"],
      ["s", "scalar", "u64"],
      ["h", "scalar", "f16"],
      ["any", "pointer", undefined],
    ],
  );
  assert.deepEqual(sig.params.map((p) => p.kind === "pointer" && p.readOnly), [
    true,
    false,
    false,
    false,
    false,
    false,
    false,
    false,
    false,
  ]);
});

Deno.test("PTX signatures: pointers from cvta, integers and floats by position", () => {
  const [sig] = ptxSignatures(SAXPY_PTX);
  assert.deepEqual(
    sig.params.map((p) => [p.kind, p.kind === "scalar" ? p.type : "ptr"]),
    [["pointer", "ptr"], ["pointer", "ptr"], ["scalar", "f32"], ["scalar", "u32"]],
  );
  const withLength = ptxSignatures(
    `.visible .entry n(.param .u64 n_param_0)\n{\n\tld.param.u64 %rd1, [n_param_0];\n` +
      `\tsetp.ge.u64 %p1, %rd2, %rd1;\n\tret;\n}\n`,
  );
  assert.equal(withLength[0].params[0].kind, "scalar", "a compared .u64 is a length");
});

Deno.test({
  name: "examples/saxpy_cuda.ts: the README's SAXPY on CUDA C, exact against the CPU",
  ignore: noNvrtc, // GPUCOMPUTE_NVRTC_LIBRARY unset: sh tools/fetch_nvrtc.sh, tools/run_tests.sh
  async fn() {
    Deno.env.set("GPUCOMPUTE_CUDA_LIBRARY", SIM_LIBRARY);
    const log = console.log;
    console.log = () => {};
    try {
      await import("../examples/saxpy_cuda.ts");
    } finally {
      console.log = log;
    }
  },
});

Deno.test("PTX takes params by position; a WGSL kernel is refused naming its backend", async () => {
  using client = await createClient({ backend: "cuda", library: SIM_LIBRARY });
  using x = client.createWithData(new Float32Array([1, 2, 3, 4, 5]));
  using y = client.full(5, 1);
  client.execute({ ptx: SAXPY_PTX }, { threads: 5, buffers: [x, y], params: [2, 5] as never });
  assert.deepEqual([...await client.read(y)], [3, 5, 7, 9, 11]);
  // n = 3: the last two stay.
  client.execute({ ptx: SAXPY_PTX }, { threads: 5, buffers: [x, y], params: [1, 3] as never });
  assert.deepEqual([...await client.read(y)], [4, 7, 10, 9, 11]);
  const wgsl = { source: "@compute @workgroup_size(1) fn main() {}" };
  assert.throws(
    () => client.execute(wgsl as CudaKernel, { threads: 1 }),
    (e) => e instanceof KernelArgumentError && /WGSL kernel \(a WebGPU kernel\)/.test(e.message),
  );
  assert.throws(
    () => client.execute({ ptx: SAXPY_PTX }, { threads: 5, buffers: [x, y], params: { a: 1 } }),
    (e) => e instanceof KernelArgumentError && /by position/.test(e.message),
  );
});

Deno.test("launches of one kernel at once, options changed in place: each its own params, each checked", async () => {
  using client = await createClient({ backend: "cuda", library: SIM_LIBRARY });
  const kernel: CudaKernel = { ptx: SAXPY_PTX };
  using x = client.createWithData(new Float32Array([1, 2, 3, 4]));
  using y1 = client.full(4, 1);
  using y2 = client.full(4, 1);
  const params = [2, 4];
  const options = { threads: 4, buffers: [x, y1], params };
  client.execute(kernel, options as never);
  // No wait: the launches share the parameter buffer, which the driver copies at the call.
  params[0] = 3;
  params[1] = 2;
  options.buffers = [x, y2];
  client.execute(kernel, options as never);
  params[1] = 1.5; // the known kernel's scalars are still checked at each call
  assert.throws(
    () => client.execute(kernel, options as never),
    (e) => e instanceof KernelArgumentError && /params\[1\]/.test(e.message),
  );
  params[1] = 4;
  assert.throws(
    () => client.execute(kernel, { ...options, buffers: [x] } as never),
    (e) => e instanceof KernelArgumentError && /buffers/.test(e.message),
  );
  assert.deepEqual([...await client.read(y1)], [3, 5, 7, 9]);
  assert.deepEqual([...await client.read(y2)], [4, 7, 1, 1]);
});

Deno.test({
  name: "bad params and handles are KernelArgumentError naming them, before anything runs",
  ignore: noNvrtc,
  async fn() {
    using client = await createClient({ backend: "cuda", library: SIM_LIBRARY });
    using x = client.createWithData(new Float32Array([1, 2, 3, 4]));
    using y = client.full(4, 1);
    using ints = client.createWithData(new Int32Array(4));
    const refused = (options: object, argument: string, problem: RegExp) =>
      assert.throws(
        () => client.execute(SAXPY, { threads: 4, buffers: [x, y], ...options }),
        (e) =>
          e instanceof KernelArgumentError && e.argument === argument && problem.test(e.message),
        argument,
      );
    refused({ params: { a: 2 } }, "params.n", /is missing \(unsigned n\)/);
    refused({ params: { a: 2, n: 4, m: 1 } }, "params.m", /not a scalar parameter/);
    refused({ params: { a: 2, n: -1 } }, "params.n", /does not fit 'unsigned n'/);
    refused({ params: { a: 2, n: 1.5 } }, "params.n", /does not fit/);
    refused({ params: { a: 1e39, n: 4 } }, "params.a", /overflows f32/);
    refused({ params: { a: 2n, n: 4 } }, "params.a", /must be a number/);
    refused({ buffers: [ints, y], params: { a: 2, n: 4 } }, "buffers[0]", /holds i32.*f32/);
    refused({ buffers: [x], params: { a: 2, n: 4 } }, "buffers", /takes 2 pointers/);
    // The internal layout: a u32 scalar where the kernel takes float is refused.
    assert.throws(
      () =>
        client.execute(SAXPY, {
          threads: 4,
          buffers: [x, y],
          scalars: { u32: [2, 4] },
        }),
      (e) =>
        e instanceof KernelArgumentError && e.argument === "scalars.u32[0]" &&
        /is passed as parameter 'float a': a u32 value does not fit/.test(e.message),
    );
    // Held by waitFor: still refused at the call, and nothing runs.
    const gate = new CpuTimelineSignal();
    client.waitFor(gate, 1);
    assert.throws(
      () => client.execute(SAXPY, { threads: 4, buffers: [x, y], params: { a: 2 } }),
      KernelArgumentError,
    );
    client.execute(SAXPY, { threads: 4, buffers: [x, y], params: { a: 2, n: 4 } });
    gate.set(1);
    assert.deepEqual([...await client.read(y)], [3, 5, 7, 9]);
  },
});

Deno.test({
  name: "entry points are inferred when there is one; several need entryPoint",
  ignore: noNvrtc,
  async fn() {
    using client = await createClient({ backend: "cuda", library: SIM_LIBRARY });
    using v = client.full(3, 1);
    const two: CudaKernel = {
      source: `extern "C" __global__ void inc(float* v, unsigned n) {
  unsigned i = threadIdx.x; if (i < n) v[i] += 1.0f; }
extern "C" __global__ void dbl(float* v, unsigned n) {
  unsigned i = threadIdx.x; if (i < n) v[i] *= 2.0f; }`,
    };
    // KernelArgumentError naming entryPoint, as on WebGPU: several, none, or one the module lacks.
    const entryPointRefused = (kernel: CudaKernel, problem: RegExp) =>
      assert.throws(
        () => client.execute(kernel, { threads: 3, buffers: [v], params: { n: 3 } }),
        (e) =>
          e instanceof KernelArgumentError && e.argument === "entryPoint" &&
          problem.test(e.message),
      );
    entryPointRefused(two, /is required: .*\(inc, dbl\)/);
    entryPointRefused({ ...two, entryPoint: "nope" }, /is 'nope' but the module has no kernel/);
    entryPointRefused({ ...two, entryPoint: "nope" }, /is 'nope'/); // cached, refused again
    // C++-linkage kernels (not extern "C") are launched by name too; a template by an instance
    entryPointRefused(
      { source: two.source!.replaceAll('extern "C" ', "") },
      /is required: the kernel declares 2 __global__ functions \(inc, dbl\)/,
    );
    entryPointRefused(
      { source: "template <int N> __global__ void t(float* v) { v[0] = N; }" },
      /declares no extern "C" __global__ functions \(name an instance of a template __global__ function as entryPoint: 't<\.\.\.>'\)/,
    );
    entryPointRefused({ ptx: SAXPY_PTX, entryPoint: "axpy" }, /is 'axpy' but the module has/);
    client.execute({ ...two, entryPoint: "dbl" }, { threads: 3, buffers: [v], params: { n: 3 } });
    client.execute({ ...two, entryPoint: "inc" }, { threads: 3, buffers: [v], params: { n: 2 } });
    assert.deepEqual([...await client.read(v)], [3, 3, 2]);
  },
});

Deno.test("after a kernel faults, every refusal carries the fault: StreamUnhealthyError has it as cause", async () => {
  using client = await createClient({ backend: "cuda", library: SIM_LIBRARY });
  using data = client.createWithData(new Uint32Array(16));
  // A 4-byte load 2 bytes into the buffer: MISALIGNED_ADDRESS (sticky).
  const ptx = ".version 7.0\n.target sm_75\n.address_size 64\n" +
    ".visible .entry misaligned(.param .u64 p)\n{\n\t.reg .b32 %r<2>;\n\t.reg .b64 %rd<2>;\n" +
    "\tld.param.u64 %rd1, [p];\n\tld.global.u32 %r1, [%rd1+2];\n\tret;\n}\n";
  client.execute({ ptx }, { threads: 1, buffers: [data] });
  const faultOf = (error: unknown): unknown =>
    error instanceof Error && error.name === "StreamUnhealthyError" ? error.cause : error;
  for (let i = 0; i < 3; i++) {
    const error = await client.read(data).then(() => undefined, (e) => e);
    assert.ok(error instanceof Error, `read ${i} rejects`);
    assert.match(
      String((faultOf(error) as Error)?.message),
      /MISALIGNED_ADDRESS/,
      `read ${i}: ${error}`,
    );
  }
  const refused = (() => {
    try {
      client.execute({ ptx }, { threads: 1, buffers: [data] });
    } catch (error) {
      return error;
    }
  })();
  assert.match(String((faultOf(refused) as Error)?.message), /MISALIGNED_ADDRESS/);
});
