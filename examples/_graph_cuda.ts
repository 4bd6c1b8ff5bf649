// The CUDA kernels of examples/graph.ts: CUDA C, and its PTX from
// `nvcc -ptx -fmad=false heat.cu` (nvcc 13.0, `.version` lowered to 7.0, checked with
// `ptxas -arch=sm_75`): the PTX loads without NVRTC, and the CUDA C names the params (`n`, `dt`)
// that launches and `replay({ params })` give by name. No fused multiply-add: each step rounds
// like the CPU reference.
import type { CudaKernel } from "../runtime/server/cuda/mod.ts";

const SOURCE = `
extern "C" __global__ void heat_laplace(const float* u, float* lap, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float c = u[i];
  float l = i > 0 ? u[i - 1] : c;
  float r = i + 1 < n ? u[i + 1] : c;
  lap[i] = l + r - 2.0f * c;
}

extern "C" __global__ void heat_update(float* u, const float* lap, unsigned n, float dt) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) u[i] = u[i] + dt * lap[i];
}
`;

const PTX = `
.version 7.0
.target sm_75
.address_size 64

  // .globl heat_laplace

.visible .entry heat_laplace(
  .param .u64 heat_laplace_param_0,
  .param .u64 heat_laplace_param_1,
  .param .u32 heat_laplace_param_2
)
{
  .reg .pred %p<4>;
  .reg .f32 %f<11>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<14>;


  ld.param.u64 %rd4, [heat_laplace_param_0];
  ld.param.u64 %rd3, [heat_laplace_param_1];
  ld.param.u32 %r3, [heat_laplace_param_2];
  cvta.to.global.u64 %rd1, %rd4;
  mov.u32 %r4, %ntid.x;
  mov.u32 %r5, %ctaid.x;
  mov.u32 %r6, %tid.x;
  mad.lo.s32 %r1, %r5, %r4, %r6;
  setp.ge.u32 %p1, %r1, %r3;
  @%p1 bra $L__BB0_6;

  cvt.u64.u32 %rd2, %r1;
  mul.wide.u32 %rd5, %r1, 4;
  add.s64 %rd6, %rd1, %rd5;
  ld.global.f32 %f1, [%rd6];
  setp.eq.s32 %p2, %r1, 0;
  mov.f32 %f9, %f1;
  @%p2 bra $L__BB0_3;

  add.s32 %r7, %r1, -1;
  mul.wide.u32 %rd7, %r7, 4;
  add.s64 %rd8, %rd1, %rd7;
  ld.global.f32 %f9, [%rd8];

$L__BB0_3:
  add.s32 %r2, %r1, 1;
  setp.ge.u32 %p3, %r2, %r3;
  mov.f32 %f10, %f1;
  @%p3 bra $L__BB0_5;

  mul.wide.u32 %rd9, %r2, 4;
  add.s64 %rd10, %rd1, %rd9;
  ld.global.f32 %f10, [%rd10];

$L__BB0_5:
  add.rn.f32 %f6, %f9, %f10;
  add.rn.f32 %f7, %f1, %f1;
  sub.rn.f32 %f8, %f6, %f7;
  cvta.to.global.u64 %rd11, %rd3;
  shl.b64 %rd12, %rd2, 2;
  add.s64 %rd13, %rd11, %rd12;
  st.global.f32 [%rd13], %f8;

$L__BB0_6:
  ret;

}
  // .globl heat_update
.visible .entry heat_update(
  .param .u64 heat_update_param_0,
  .param .u64 heat_update_param_1,
  .param .u32 heat_update_param_2,
  .param .f32 heat_update_param_3
)
{
  .reg .pred %p<2>;
  .reg .f32 %f<6>;
  .reg .b32 %r<6>;
  .reg .b64 %rd<8>;


  ld.param.u64 %rd1, [heat_update_param_0];
  ld.param.u64 %rd2, [heat_update_param_1];
  ld.param.u32 %r2, [heat_update_param_2];
  ld.param.f32 %f1, [heat_update_param_3];
  mov.u32 %r3, %ctaid.x;
  mov.u32 %r4, %ntid.x;
  mov.u32 %r5, %tid.x;
  mad.lo.s32 %r1, %r3, %r4, %r5;
  setp.ge.u32 %p1, %r1, %r2;
  @%p1 bra $L__BB1_2;

  cvta.to.global.u64 %rd3, %rd1;
  mul.wide.u32 %rd4, %r1, 4;
  add.s64 %rd5, %rd3, %rd4;
  cvta.to.global.u64 %rd6, %rd2;
  add.s64 %rd7, %rd6, %rd4;
  ld.global.f32 %f2, [%rd7];
  mul.rn.f32 %f3, %f2, %f1;
  ld.global.f32 %f4, [%rd5];
  add.rn.f32 %f5, %f4, %f3;
  st.global.f32 [%rd5], %f5;

$L__BB1_2:
  ret;

}

`;

/** `heat_laplace(u, lap, n)`: `lap[i] = u[i - 1] + u[i + 1] - 2 u[i]`, insulated ends. */
export const laplaceCuda: CudaKernel = {
  id: "example.heat_laplace",
  ptx: PTX,
  source: SOURCE,
  entryPoint: "heat_laplace",
  blockSize: [64, 1, 1],
};

/** `heat_update(u, lap, n, dt)`: `u[i] += dt * lap[i]`. */
export const updateCuda: CudaKernel = {
  id: "example.heat_update",
  ptx: PTX,
  source: SOURCE,
  entryPoint: "heat_update",
  blockSize: [64, 1, 1],
};
