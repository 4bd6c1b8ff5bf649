/**
 * PTX parameters with a pointer attribute, `.param .u64 .ptr .global .align 4 p` (the spaced form
 * LLVM's NVPTX writes, which NVRTC 13 wrote for compute_121 on an H200 run) and
 * `.ptr.global.align 16` (the PTX ISA's examples): both are 8-byte pointers aligned to 8 whatever
 * the pointee's alignment, for the runtime's signature and size check and for the simulator's
 * parameter layout alike.
 */
import assert from "node:assert/strict";
import type { CudaClient } from "../mod.ts";
import { ptxSignatures } from "../runtime/server/cuda/compile/signature.ts";
import { ptxParamSizes } from "../runtime/server/cuda/compile/_cxx_entry.ts";
import { simulatedCudaClient } from "./_cuda_nvrtc.ts";
import { hazardCount, hazardReport, resetHazards } from "./fixtures/cuda_sim.ts";

/** `y[i] = x[i] * scale` for i < n; the u32 first puts the spaced pointer at offset 8, not 4. */
const PTX = `.version 7.0
.target sm_75
.address_size 64

.visible .entry scale_ptr(
	.param .u32 scale_ptr_param_0,
	.param .u64 .ptr .global .align 4 scale_ptr_param_1,
	.param .u64 .ptr.global.align 16 scale_ptr_param_2,
	.param .f32 scale_ptr_param_3
)
{
	.reg .pred %p<2>;
	.reg .b32 %r<6>;
	.reg .f32 %f<4>;
	.reg .b64 %rd<8>;
	ld.param.u32 %r1, [scale_ptr_param_0];
	ld.param.u64 %rd1, [scale_ptr_param_1];
	ld.param.u64 %rd2, [scale_ptr_param_2];
	ld.param.f32 %f1, [scale_ptr_param_3];
	mov.u32 %r2, %ctaid.x;
	mov.u32 %r3, %ntid.x;
	mov.u32 %r4, %tid.x;
	mad.lo.s32 %r5, %r2, %r3, %r4;
	setp.ge.u32 %p1, %r5, %r1;
	@%p1 bra $L_done;
	cvta.to.global.u64 %rd3, %rd1;
	cvta.to.global.u64 %rd4, %rd2;
	mul.wide.u32 %rd5, %r5, 4;
	add.s64 %rd6, %rd3, %rd5;
	add.s64 %rd7, %rd4, %rd5;
	ld.global.f32 %f2, [%rd6];
	mul.f32 %f3, %f2, %f1;
	st.global.f32 [%rd7], %f3;
$L_done:
	ret;
}
`;

Deno.test("PTX pointer attributes: both forms are pointers of 8 bytes in the signature", () => {
  const [signature] = ptxSignatures(PTX);
  assert.deepEqual(
    signature.params.map((p) => [p.kind, p.name]),
    [
      ["scalar", "scale_ptr_param_0"],
      ["pointer", "scale_ptr_param_1"],
      ["pointer", "scale_ptr_param_2"],
      ["scalar", "scale_ptr_param_3"],
    ],
  );
  assert.deepEqual(ptxParamSizes(PTX, "scale_ptr"), [4, 8, 8, 4]);
});

Deno.test("PTX pointer attributes: a kernel with both forms runs with its buffers where they are", async () => {
  resetHazards();
  using client = await simulatedCudaClient() as CudaClient;
  const n = 300;
  const x = Float32Array.from({ length: n }, (_, i) => i * 0.5 - 20);
  using xs = client.createWithData(x);
  using ys = client.zeros(n, "f32");
  client.execute({ ptx: PTX, entryPoint: "scale_ptr" }, {
    threads: n,
    buffers: [xs, ys],
    params: [n, 3],
  });
  assert.deepEqual([...await client.read(ys) as Float32Array], [...x].map((v) => v * 3));
  assert.equal(hazardCount(), 0, hazardReport());
});
