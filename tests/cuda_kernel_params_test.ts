/**
 * Kernel parameters on CUDA as users write them, beyond tests/cuda_kernel_api_test.ts: 64-bit
 * integer parameters of PTX kernels (told from pointers by what the kernel does with them), and
 * buffers by parameter name (`buffers: { x, y }`, as by WGSL name on WebGPU).
 */
import assert from "node:assert/strict";
import { createClient, KernelArgumentError, UnsupportedError } from "../mod.ts";
import type { CudaKernel } from "../runtime/server/cuda/mod.ts";
import { cudaSignatures, ptxSignatures } from "../runtime/server/cuda/compile/signature.ts";
import { Nvrtc } from "../runtime/server/cuda/compile/_nvrtc.ts";
import { SIM_LIBRARY } from "./fixtures/cuda_sim.ts";

const nvrtc = Deno.env.get("GPUCOMPUTE_NVRTC_LIBRARY");
const noNvrtc = nvrtc === undefined || nvrtc === "";
// Opened here, outside the tests (a library opened inside one trips the resource sanitizer).
if (!noNvrtc) Nvrtc.open(nvrtc);

/** NVRTC 12.4's PTX of `put(float* p, unsigned long long off, unsigned n)`: `p[off + i] = 7`. */
const PUT_PTX = `.version 8.4
.target sm_75
.address_size 64
.visible .entry put(
	.param .u64 put_param_0,
	.param .u64 put_param_1,
	.param .u32 put_param_2
)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<4>;
	.reg .b64 	%rd<8>;
	ld.param.u64 	%rd1, [put_param_0];
	ld.param.u64 	%rd2, [put_param_1];
	ld.param.u32 	%r2, [put_param_2];
	mov.u32 	%r1, %tid.x;
	setp.ge.u32 	%p1, %r1, %r2;
	@%p1 bra 	$L__BB0_2;
	cvta.to.global.u64 	%rd3, %rd1;
	cvt.u64.u32 	%rd4, %r1;
	add.s64 	%rd5, %rd4, %rd2;
	shl.b64 	%rd6, %rd5, 2;
	add.s64 	%rd7, %rd3, %rd6;
	mov.u32 	%r3, 1088421888;
	st.global.u32 	[%rd7], %r3;
$L__BB0_2:
	ret;
}
`;

/** A `.u64` kernel parameter's kind in a body of `ld.param.u64 %rd1, [a]; ld.param.u64 %rd2, [b]`. */
function kinds(body: string): string[] {
  const ptx = `.visible .entry k(.param .u64 a, .param .u64 b)\n{\n` +
    `\tld.param.u64 %rd1, [a];\n\tld.param.u64 %rd2, [b];\n${body}\n\tret;\n}\n`;
  return ptxSignatures(ptx)[0].params.map((p) => p.kind);
}

Deno.test("PTX .u64 parameters: an integer offset, shift, store or sum is no pointer", () => {
  assert.deepEqual(ptxSignatures(PUT_PTX)[0].params.map((p) => p.kind), [
    "pointer",
    "scalar",
    "scalar",
  ]);
  // b shifted (a stride), b stored as a value, b added to a loaded value, b XORed.
  const pointer = "\tcvta.to.global.u64 %rd3, %rd1;\n";
  assert.deepEqual(kinds(`${pointer}\tshl.b64 %rd4, %rd2, 2;`), ["pointer", "scalar"]);
  assert.deepEqual(kinds(`${pointer}\tst.global.u64 [%rd3], %rd2;`), ["pointer", "scalar"]);
  assert.deepEqual(
    kinds(
      `${pointer}\tld.global.u64 %rd4, [%rd3];\n\tadd.s64 %rd5, %rd4, %rd2;\n` +
        `\tst.global.u64 [%rd3], %rd5;`,
    ),
    ["pointer", "scalar"],
  );
  // b added to the global address as an offset (`char* p`, `p + off`).
  assert.deepEqual(
    kinds(`${pointer}\tadd.s64 %rd4, %rd3, %rd2;\n\tst.global.u8 [%rd4], %rs1;`),
    ["pointer", "scalar"],
  );
  // Pointers still: compared with null before cvta, used as an address through a move, a vector
  // load's address, an atomic's address without cvta.
  assert.deepEqual(
    kinds(
      `\tsetp.eq.s64 %p1, %rd1, 0;\n${pointer}\tmov.b64 %rd5, %rd2;\n` +
        `\tld.global.v2.f32 {%f1, %f2}, [%rd5+8];`,
    ),
    ["pointer", "pointer"],
  );
  assert.deepEqual(kinds(`\tatom.add.u64 %rd5, [%rd1], %rd2;`), ["pointer", "scalar"]);
});

Deno.test("a PTX kernel with a 64-bit offset runs with its params by position", async () => {
  using client = await createClient({ backend: "cuda", library: SIM_LIBRARY });
  using p = client.zeros(8, "f32");
  client.execute({ ptx: PUT_PTX }, { threads: 3, buffers: [p], params: [2n, 3] });
  assert.deepEqual([...await client.read(p)], [0, 0, 7, 7, 7, 0, 0, 0]);
  assert.throws(
    () => client.execute({ ptx: PUT_PTX }, { threads: 3, buffers: [p, p], params: [2n, 3] }),
    (e) => e instanceof KernelArgumentError && e.argument === "buffers",
  );
});

Deno.test({
  name: "CUDA C buffers by parameter name, in any key order; unknown or missing names refused",
  ignore: noNvrtc,
  async fn() {
    using client = await createClient({ backend: "cuda", library: SIM_LIBRARY });
    const saxpy: CudaKernel = {
      source: `extern "C" __global__ void saxpy(const float* x, float* y, float a, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}`,
    };
    using x = client.createWithData(new Float32Array([1, 2, 3, 4]));
    using y = client.full(4, 1);
    using ints = client.zeros(4, "i32");
    client.execute(saxpy, { threads: 4, buffers: { y, x }, params: { a: 2, n: 4 } });
    assert.deepEqual([...await client.read(y)], [3, 5, 7, 9]);
    client.execute(saxpy, { threads: 4, buffers: { x, y }, params: { a: 1, n: 4 } });
    assert.deepEqual([...await client.read(y)], [4, 7, 10, 13]);
    assert.deepEqual([...await client.read(x)], [1, 2, 3, 4]);
    const refused = (buffers: object, argument: string, problem: RegExp) =>
      assert.throws(
        () => client.execute(saxpy, { threads: 4, buffers, params: { a: 2, n: 4 } } as never),
        (e) =>
          e instanceof KernelArgumentError && e.argument === argument && problem.test(e.message),
        argument,
      );
    refused({ x, z: y }, "buffers.z", /not a pointer parameter of saxpy \(const float\* x/);
    refused({ x }, "buffers.y", /is missing \(float\* y\)/);
    refused({ x, y: ints }, "buffers.y", /holds i32 elements/);
    // params that are no object are refused as such, null too (as on WebGPU).
    for (const params of [null, 5, "a"]) {
      assert.throws(
        () => client.execute(saxpy, { threads: 4, buffers: [x, y], params } as never),
        (e) => e instanceof KernelArgumentError && e.argument === "params",
        String(params),
      );
    }
    // Nothing of the refused launches ran; a capture replays by name too.
    using graph = await client.capture(() =>
      client.execute(saxpy, { threads: 4, buffers: { y, x }, params: { a: 1, n: 4 } })
    );
    graph.replay();
    assert.deepEqual([...await client.read(y)], [5, 9, 13, 17]);
    graph.replay({ params: { a: 2 } }); // packed again: the buffers keep their parameters
    assert.deepEqual([...await client.read(y)], [7, 13, 19, 25]);
    assert.deepEqual([...await client.read(x)], [1, 2, 3, 4]);
    // A bigint for a 32-bit integer is its number, as WebGPU reads a u32 uniform field (it was
    // refused here: "must be an integer number"); out of range, refused as a number would be.
    client.execute(saxpy, { threads: 4, buffers: [x, y], params: { a: 1, n: 2n } });
    graph.replay({ params: { n: 3n } });
    assert.deepEqual([...await client.read(y)], [10, 19, 25, 25]); // n: 2, then 3 (a: 2)
    assert.throws(
      () => client.execute(saxpy, { threads: 4, buffers: [x, y], params: { a: 1, n: 2n ** 32n } }),
      (e) => e instanceof KernelArgumentError && e.argument === "params.n",
    );
  },
});

Deno.test("CUDA C signatures: unnamed scalars keep their type; bool is marked", () => {
  const [sig] = cudaSignatures(
    `extern "C" __global__ void k(float* out, int, unsigned int, const long long, bool b) {}`,
  );
  assert.deepEqual(
    sig.params.map((p) => [p.name, p.kind === "scalar" ? p.type : p.element]),
    [["out", "f32"], ["param_1", "i32"], ["param_2", "u32"], ["param_3", "i64"], ["b", "u8"]],
  );
  assert.equal(sig.params[4].kind === "scalar" && sig.params[4].bool, true);
});

Deno.test({
  name: "a bool parameter takes true, false, 0 or 1; any other value is refused at the call",
  ignore: noNvrtc,
  async fn() {
    using client = await createClient({ backend: "cuda", library: SIM_LIBRARY });
    const pick: CudaKernel = {
      source: `extern "C" __global__ void pick(float* out, bool on, int) {
  out[0] = on == true ? 1.0f : (on == false ? 0.0f : -1.0f);
}`,
    };
    using out = client.full(1, 5);
    const run = (on: unknown) =>
      client.execute(pick, { threads: 1, buffers: [out], params: { on, param_2: 0 } as never });
    for (const [on, expected] of [[true, 1], [false, 0], [1, 1], [0, 0]] as const) {
      run(on);
      assert.deepEqual([...await client.read(out)], [expected], String(on));
    }
    for (const on of [2, -1, 0.5, 255, "1"]) {
      assert.throws(
        () => run(on),
        (e) =>
          e instanceof KernelArgumentError && e.argument === "params.on" &&
          /bool/.test(e.message),
        String(on),
      );
    }
    assert.deepEqual([...await client.read(out)], [0]); // nothing refused ran (2 would read -1)
  },
});

Deno.test({
  name: "a scalar named like an Object.prototype member and left out is missing, not a function",
  ignore: noNvrtc,
  async fn() {
    using client = await createClient({ backend: "cuda", library: SIM_LIBRARY });
    const scale: CudaKernel = {
      source: `extern "C" __global__ void scale(float* out, float constructor, float valueOf) {
  out[0] = constructor * valueOf;
}`,
    };
    using out = client.full(1, 5);
    const cases: [Record<string, number>, string][] = [
      [{ valueOf: 2 }, "constructor"],
      [{ constructor: 3 }, "valueOf"],
    ];
    for (const [params, missing] of cases) {
      assert.throws(
        () => client.execute(scale, { threads: 1, buffers: [out], params }),
        (e) =>
          e instanceof KernelArgumentError && e.argument === `params.${missing}` &&
          /is missing \(float /.test(e.message),
        missing,
      );
    }
    client.execute(scale, { threads: 1, buffers: [out], params: { constructor: 3, valueOf: 2 } });
    assert.deepEqual([...await client.read(out)], [6]);
  },
});

Deno.test("compile() checks a kernel as execute() does: a WGSL kernel, override constants", async () => {
  using client = await createClient({ backend: "cuda", library: SIM_LIBRARY });
  const wgsl = {
    source: `@group(0) @binding(0) var<storage, read_write> v: array<f32>;
@compute @workgroup_size(1) fn main() { v[0] = 1.0; }`,
  };
  await assert.rejects(
    () => client.compile(wgsl),
    (e) => e instanceof KernelArgumentError && e.argument === "kernel",
  );
  await assert.rejects(
    () => client.compile({ ptx: PUT_PTX }, { overrides: { W: 64 } }),
    (e) => e instanceof UnsupportedError && /override/.test(e.message),
  );
  await client.compile({ ptx: PUT_PTX }); // and the client is still usable
});
