/**
 * User CUDA C, QA wave 5 (continued): llm.c's training kernels and the classic CUDA teaching
 * kernels (a shared-atomics histogram, CSR SpMV scalar and vector), each against a CPU reference.
 */
import assert from "node:assert/strict";
import { nvrtcName, nvrtcSkip, simulatedCudaClient } from "./_cuda_nvrtc.ts";
import type { CudaKernel } from "../runtime/server/cuda/kernel.ts";
import { KernelArgumentError } from "../runtime/core/errors.ts";
import { launch, mismatch, randoms } from "./_cuda_user_run.ts";

const ignore = nvrtcSkip !== undefined;

Deno.test({
  name: nvrtcName(
    "llm.c training kernels: adamw_kernel2 (its lerp of two fmas, a long parameter), " +
      "crossentropy_forward_kernel1, gelu_backward_kernel (tanhf, coshf) and " +
      "encoder_backward_kernel1's atomicAdd scatter (exact: the sums are of eighths)",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const source = `#define M_PI 3.14159265358979323846 // <math.h>'s
#define GELU_SCALING_FACTOR sqrtf(2.0f / M_PI)
__device__ inline float lerp(float start, float end, float weight) {
    return fma(weight, end, fma(-weight, start, start));
}
__global__ void adamw_kernel2(float* params_memory, float* grads_memory, float* m_memory, float* v_memory, long num_parameters,
                              float learning_rate, float beta1, float beta2, float beta1_correction, float beta2_correction, float eps, float weight_decay) {
   int i = blockIdx.x * blockDim.x + threadIdx.x;
   if (i >= num_parameters) return;
   float grad = grads_memory[i];
   float m = m_memory[i];
   float v = v_memory[i];
   m = lerp(grad, m, beta1);
   m_memory[i] = m;
   v = lerp(grad * grad, v, beta2);
   v_memory[i] = v;
   m /= beta1_correction;
   v /= beta2_correction;
   params_memory[i] -= learning_rate * (m / (sqrtf(v) + eps) + weight_decay * params_memory[i]);
}
__global__ void crossentropy_forward_kernel1(float* losses, const float* probs, const int* targets, int B, int T, int V) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < B * T) {
        int b = i / T;
        int t = i % T;
        const float* probs_bt = probs + b * T * V + t * V;
        int ix = targets[b * T + t];
        losses[b * T + t] = -logf(probs_bt[ix]);
    }
}
__global__ void gelu_backward_kernel(float* dinp, const float* inp, const float* dout, const int N) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < N) {
        float x = inp[i];
        float cube = 0.044715f * x * x * x;
        float tanh_arg = GELU_SCALING_FACTOR * (x + cube);
        float tanh_out = tanhf(tanh_arg);
        float coshf_out = coshf(tanh_arg);
        float sech_out = 1.0f / (coshf_out * coshf_out);
        float local_grad = 0.5f * (1.0f + tanh_out) + x * 0.5f * sech_out * GELU_SCALING_FACTOR * (1.0f + 3.0f * 0.044715f * x * x);
        dinp[i] = local_grad * dout[i];
    }
}
__global__ void encoder_backward_kernel1(float* dwte, float* dwpe, const float* dout, const int* inp, int B, int T, int C) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    int N = B * T * C;
    if (idx < N) {
        int bt = idx / C;
        int b = bt / T;
        int t = bt % T;
        int c = idx % C;
        int ix = inp[b * T + t];
        const float* dout_btc = dout + b * T * C + t * C + c;
        float* dwte_ix = dwte + ix * C + c;
        float* dwpe_tc = dwpe + t * C + c;
        atomicAdd(dwte_ix, *dout_btc);
        atomicAdd(dwpe_tc, *dout_btc);
    }
}`;
    const n = 200;
    const p = randoms(n, 91), g = randoms(n, 92), m = randoms(n, 93).map((v) => v * 0.1);
    const v = randoms(n, 94).map((x) => x * x * 0.01);
    const hp = {
      lr: 1e-3,
      b1: 0.9,
      b2: 0.999,
      c1: 1 - 0.9 ** 3,
      c2: 1 - 0.999 ** 3,
      eps: 1e-8,
      wd: 0.1,
    };
    const [p2, , m2, v2] = await launch(client, { source, entryPoint: "adamw_kernel2" }, n, [
      p,
      g,
      m,
      v,
    ], {
      num_parameters: n,
      learning_rate: hp.lr,
      beta1: hp.b1,
      beta2: hp.b2,
      beta1_correction: hp.c1,
      beta2_correction: hp.c2,
      eps: hp.eps,
      weight_decay: hp.wd,
    });
    const f = Math.fround;
    const wm = g.map((x, i) => f(hp.b1) * m[i] + (1 - f(hp.b1)) * x);
    const wv = g.map((x, i) => f(hp.b2) * v[i] + (1 - f(hp.b2)) * f(x * x));
    const wp = p.map((x, i) =>
      x - f(hp.lr) * ((wm[i] / f(hp.c1)) / (Math.sqrt(wv[i] / f(hp.c2)) + f(hp.eps)) + f(hp.wd) * x)
    );
    // lerp's two fmas round twice; m / (sqrt(v) + eps): a few ulps, each correctly rounded
    assert.equal(mismatch(m2, wm, 2 ** -22), undefined);
    assert.equal(mismatch(v2, wv, 2 ** -21), undefined);
    assert.equal(mismatch(p2, wp, 2 ** -21), undefined);

    const B = 2, T = 3, V = 10;
    const probs = Float32Array.from({ length: B * T * V }, (_, i) => ((i * 37) % 97 + 1) / 100);
    const targets = Int32Array.from({ length: B * T }, (_, i) => (i * 7) % V);
    const [losses] = await launch(
      client,
      { source, entryPoint: "crossentropy_forward_kernel1" },
      B * T,
      [
        new Float32Array(B * T),
        probs,
        targets,
      ],
      { B, T, V },
    );
    // logf: 1 ulp (CUDA C Programming Guide, single-precision functions)
    assert.equal(
      mismatch(losses, Array.from(targets, (ix, i) => -Math.log(probs[i * V + ix])), 2 ** -22),
      undefined,
    );

    const x = randoms(n, 95).map((a) => a * 4), dout = randoms(n, 96);
    const [dinp] = await launch(client, { source, entryPoint: "gelu_backward_kernel" }, n, [
      new Float32Array(n),
      x,
      dout,
    ], { N: n });
    const s = Math.sqrt(2 / Math.PI);
    const wd = Array.from(x, (a, i) => {
      const u = s * (a + 0.044715 * a ** 3), th = Math.tanh(u);
      return (0.5 * (1 + th) + a * 0.5 * (1 / Math.cosh(u) ** 2) * s * (1 + 3 * 0.044715 * a * a)) *
        dout[i];
    });
    // tanhf 2 ulp, coshf 2 ulp; 1 + tanh near -1 cancels: an absolute error of a few 2^-24
    assert.equal(mismatch(dinp, wd, 1e-6), undefined);

    const C = 8, Vw = 4;
    const inp = Int32Array.from({ length: B * T }, (_, i) => (i * 3) % Vw);
    const d = Float32Array.from({ length: B * T * C }, (_, i) => ((i * 13) % 17 - 8) / 8);
    const [dwte, dwpe] = await launch(
      client,
      { source, entryPoint: "encoder_backward_kernel1" },
      B * T * C,
      [
        new Float32Array(Vw * C),
        new Float32Array(T * C),
        d,
        inp,
      ],
      { B, T, C },
    );
    const wte = new Float32Array(Vw * C), wpe = new Float32Array(T * C);
    for (let i = 0; i < B * T * C; i++) {
      const bt = Math.floor(i / C), c = i % C;
      wte[inp[bt] * C + c] += d[i];
      wpe[(bt % T) * C + c] += d[i];
    }
    assert.deepEqual(dwte, wte);
    assert.deepEqual(dwpe, wpe);
  },
});

Deno.test({
  name: nvrtcName(
    "CUDA by Example's histo_kernel (shared atomics, a grid-stride loop, a long size), Bell & " +
      "Garland's CSR SpMV scalar and vector (a volatile warp-synchronous reduction), exact",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const histo =
      `__global__ void histo_kernel(unsigned char *buffer, long size, unsigned int *histo) {
    __shared__ unsigned int temp[256];
    temp[threadIdx.x] = 0;
    __syncthreads();
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    int offset = blockDim.x * gridDim.x;
    while (i < size) {
        atomicAdd(&temp[buffer[i]], 1);
        i += offset;
    }
    __syncthreads();
    atomicAdd(&(histo[threadIdx.x]), temp[threadIdx.x]);
}`;
    const size = 5000;
    let h = 5;
    const bytes = Uint8Array.from(
      { length: size + 3 },
      () => (h = (Math.imul(h, 1103515245) + 12345) >>> 0) >>> 24 & (h & 1 ? 255 : 15),
    );
    const [, counts] = await launch(client, { source: histo, blockSize: [256, 1, 1] }, 256 * 3, [
      bytes.subarray(0, size + 3), // padded to 4 bytes; size stops the loop
      new Uint32Array(256),
    ], { size });
    const want = new Uint32Array(256);
    for (let i = 0; i < size; i++) want[bytes[i]]++;
    assert.deepEqual(counts, want);

    const spmv =
      `__global__ void spmv_csr_scalar_kernel(const int num_rows, const int * ptr, const int * indices, const float * data, const float * x, float * y) {
    int row = blockDim.x * blockIdx.x + threadIdx.x;
    if (row < num_rows) {
        float dot = 0;
        int row_start = ptr[row];
        int row_end = ptr[row + 1];
        for (int jj = row_start; jj < row_end; jj++) dot += data[jj] * x[indices[jj]];
        y[row] += dot;
    }
}
__global__ void spmv_csr_vector_kernel(const int num_rows, const int * ptr, const int * indices, const float * data, const float * x, float * y) {
    __shared__ volatile float vals[128];
    int thread_id = blockDim.x * blockIdx.x + threadIdx.x;
    int warp_id = thread_id / 32;
    int lane = thread_id & (32 - 1);
    int row = warp_id;
    if (row < num_rows) {
        int row_start = ptr[row];
        int row_end = ptr[row + 1];
        vals[threadIdx.x] = 0;
        for (int jj = row_start + lane; jj < row_end; jj += 32) vals[threadIdx.x] += data[jj] * x[indices[jj]];
        if (lane < 16) vals[threadIdx.x] += vals[threadIdx.x + 16];
        if (lane < 8) vals[threadIdx.x] += vals[threadIdx.x + 8];
        if (lane < 4) vals[threadIdx.x] += vals[threadIdx.x + 4];
        if (lane < 2) vals[threadIdx.x] += vals[threadIdx.x + 2];
        if (lane < 1) vals[threadIdx.x] += vals[threadIdx.x + 1];
        if (lane == 0) y[row] += vals[threadIdx.x];
    }
}`;
    // a 30 x 40 matrix, rows of 0 to 70 entries (repeated columns allowed), small integers:
    // every order of the sums is exact
    const rows = 30, cols = 40, ptr = [0], idx: number[] = [], val: number[] = [];
    for (let r = 0; r < rows; r++) {
      const nnz = (r * 17) % 71;
      for (let k = 0; k < nnz; k++) idx.push((r * 7 + k * 13) % cols), val.push(((r + k) % 9) - 4);
      ptr.push(idx.length);
    }
    const x = Float32Array.from({ length: cols }, (_, i) => (i % 5) - 2);
    const y0 = Float32Array.from({ length: rows }, (_, i) => i);
    const want2 = Float32Array.from(y0, (v, r) => {
      let s = v;
      for (let k = ptr[r]; k < ptr[r + 1]; k++) s += val[k] * x[idx[k]];
      return s;
    });
    const csr = [Int32Array.from(ptr), Int32Array.from(idx), Float32Array.from(val), x];
    const [, , , , scalar] = await launch(
      client,
      {
        source: spmv,
        entryPoint: "spmv_csr_scalar_kernel",
        blockSize: [32, 1, 1],
      },
      rows,
      [...csr, y0],
      { num_rows: rows },
    );
    assert.deepEqual(scalar, want2);
    const [, , , , vector] = await launch(
      client,
      {
        source: spmv,
        entryPoint: "spmv_csr_vector_kernel",
        blockSize: [128, 1, 1],
      },
      rows * 32,
      [...csr, y0],
      { num_rows: rows },
    );
    assert.deepEqual(vector, want2);
  },
});

Deno.test({
  name: nvrtcName(
    "NVRTC options as projects pass them: -lineinfo and -G PTX (.loc lines end without ';', " +
      "which swallowed the next instruction: a wrong result or a fault) run right, -dlto is " +
      "refused naming it (LTO IR is no PTX), and a __global__ static void kernel is found",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    // llm.c's residual_forward_kernel (dev/cuda/residual_forward.cu)
    const source =
      `__global__ static void residual_forward_kernel(float* out, const float* inp1, const float* inp2, int N) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < N) {
        out[idx] = inp1[idx] + inp2[idx];
    }
}`;
    const n = 100, a = randoms(n, 151), b = randoms(n, 152);
    const want = a.map((v, i) => v + b[i]);
    for (const compileOptions of [[], ["-lineinfo"], ["-G"], ["--device-debug", "-lineinfo"]]) {
      const [out] = await launch(
        client,
        { source, compileOptions },
        n,
        [new Float32Array(n), a, b],
        {
          N: n,
        },
      );
      assert.deepEqual(out, want, compileOptions.join(" "));
    }
    const x = client.createWithData(a);
    try {
      for (const option of ["-dlto", "--dlink-time-opt"]) {
        assert.throws(
          () =>
            client.execute({ source, compileOptions: [option] } as CudaKernel, {
              threads: n,
              buffers: [x, x, x],
              params: { N: n },
            }),
          (e: Error) =>
            e instanceof KernelArgumentError && e.message.includes(option) &&
            /LTO IR/.test(e.message),
        );
      }
    } finally {
      x.dispose();
    }
  },
});

Deno.test({
  name: nvrtcName(
    "enum parameters by value (a plain enum: int; an enum class of unsigned char) take numbers " +
      "(were refused as a type the runtime cannot pass)",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    // the shape of ggml's and PyTorch's op/mode enums passed to a kernel
    const source = `enum op_t { OP_ABS, OP_NEG, OP_SQR };
enum class round_t : unsigned char { DOWN = 1, UP = 2 };
extern "C" __global__ void unary(const float* x, float* y, op_t op, round_t r, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = op == OP_ABS ? fabsf(x[i]) : op == OP_NEG ? -x[i] : x[i] * x[i];
  y[i] = r == round_t::UP ? v + 100.0f : v;
}`;
    const x = Float32Array.from({ length: 8 }, (_, i) => i - 4);
    const [, sqrUp] = await launch(client, { source }, 8, [x, new Float32Array(8)], {
      op: 2,
      r: 2,
      n: 8,
    });
    assert.deepEqual(sqrUp, x.map((v) => v * v + 100));
    const [, neg] = await launch(client, { source }, 8, [x, new Float32Array(8)], {
      op: 1,
      r: 1,
      n: 8,
    });
    assert.deepEqual(neg, x.map((v) => -v));
  },
});
