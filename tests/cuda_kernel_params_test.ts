/**
 * Kernel parameters on CUDA as users write them, beyond tests/cuda_kernel_api_test.ts: 64-bit
 * integer parameters of PTX kernels (told from pointers by what the kernel does with them).
 */
import assert from "node:assert/strict";
import { createClient, KernelArgumentError } from "../mod.ts";
import { ptxSignatures } from "../runtime/server/cuda/compile/signature.ts";
import { SIM_LIBRARY } from "./fixtures/cuda_sim.ts";

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
  client.execute({ ptx: PUT_PTX }, { threads: 3, buffers: [p], params: [2n, 3] as never });
  assert.deepEqual([...await client.read(p)], [0, 0, 7, 7, 7, 0, 0, 0]);
  assert.throws(
    () =>
      client.execute({ ptx: PUT_PTX }, { threads: 3, buffers: [p, p], params: [2n, 3] as never }),
    (e) => e instanceof KernelArgumentError && e.argument === "buffers",
  );
});
