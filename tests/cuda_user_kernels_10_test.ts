/**
 * User CUDA C, QA wave 5 (continued): llm.c's training kernels and the classic CUDA teaching
 * kernels (a shared-atomics histogram, CSR SpMV scalar and vector, a heat stencil, the GPU Gems 3
 * work-efficient scan, Rodinia's BFS, flash-attention-minimal), each against a CPU reference.
 */
import assert from "node:assert/strict";
import { nvrtcName, nvrtcSkip, simulatedCudaClient } from "./_cuda_nvrtc.ts";
import type { CudaKernel } from "../runtime/server/cuda/kernel.ts";
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
    "GPU Gems 3's work-efficient (Blelloch) prescan with bank-conflict-free offsets in dynamic " +
      "shared memory, and Rodinia's two-kernel BFS over a struct Node array until g_over stays false",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const scan = `#define NUM_BANKS 32
#define LOG_NUM_BANKS 5
#define CONFLICT_FREE_OFFSET(n) ((n) >> LOG_NUM_BANKS)
__global__ void prescan(float *g_odata, float *g_idata, int n) {
    extern __shared__ float temp[];
    int thid = threadIdx.x;
    int offset = 1;
    int ai = thid;
    int bi = thid + (n/2);
    int bankOffsetA = CONFLICT_FREE_OFFSET(ai);
    int bankOffsetB = CONFLICT_FREE_OFFSET(bi);
    temp[ai + bankOffsetA] = g_idata[ai];
    temp[bi + bankOffsetB] = g_idata[bi];
    for (int d = n>>1; d > 0; d >>= 1) {
        __syncthreads();
        if (thid < d) {
            int ai = offset*(2*thid+1)-1;
            int bi = offset*(2*thid+2)-1;
            ai += CONFLICT_FREE_OFFSET(ai);
            bi += CONFLICT_FREE_OFFSET(bi);
            temp[bi] += temp[ai];
        }
        offset *= 2;
    }
    if (thid == 0) { temp[n - 1 + CONFLICT_FREE_OFFSET(n - 1)] = 0; }
    for (int d = 1; d < n; d *= 2) {
        offset >>= 1;
        __syncthreads();
        if (thid < d) {
            int ai = offset*(2*thid+1)-1;
            int bi = offset*(2*thid+2)-1;
            ai += CONFLICT_FREE_OFFSET(ai);
            bi += CONFLICT_FREE_OFFSET(bi);
            float t = temp[ai];
            temp[ai] = temp[bi];
            temp[bi] += t;
        }
    }
    __syncthreads();
    g_odata[ai] = temp[ai + bankOffsetA];
    g_odata[bi] = temp[bi + bankOffsetB];
}`;
    const n = 512, input = Float32Array.from({ length: n }, (_, i) => (i * 29) % 11 - 3);
    const [out] = await launch(
      client,
      {
        source: scan,
        blockSize: [n / 2, 1, 1],
        sharedMemoryBytes: (n + n / 32) * 4,
      },
      n / 2,
      [new Float32Array(n), input],
      { n },
    );
    let acc = 0;
    assert.deepEqual(out, input.map((v) => ((acc += v) - v))); // exclusive, integers: exact

    const bfs = `#define MAX_THREADS_PER_BLOCK 64
struct Node { int starting; int no_of_edges; };
__global__ void Kernel(Node* g_graph_nodes, int* g_graph_edges, bool* g_graph_mask, bool* g_updating_graph_mask, bool *g_graph_visited, int* g_cost, int no_of_nodes) {
    int tid = blockIdx.x*MAX_THREADS_PER_BLOCK + threadIdx.x;
    if (tid<no_of_nodes && g_graph_mask[tid]) {
        g_graph_mask[tid]=false;
        for (int i=g_graph_nodes[tid].starting; i<(g_graph_nodes[tid].no_of_edges + g_graph_nodes[tid].starting); i++) {
            int id = g_graph_edges[i];
            if (!g_graph_visited[id]) {
                g_cost[id]=g_cost[tid]+1;
                g_updating_graph_mask[id]=true;
            }
        }
    }
}
__global__ void Kernel2(bool* g_graph_mask, bool *g_updating_graph_mask, bool* g_graph_visited, bool *g_over, int no_of_nodes) {
    int tid = blockIdx.x*MAX_THREADS_PER_BLOCK + threadIdx.x;
    if (tid<no_of_nodes && g_updating_graph_mask[tid]) {
        g_graph_mask[tid]=true;
        g_graph_visited[tid]=true;
        *g_over=true;
        g_updating_graph_mask[tid]=false;
    }
}`;
    // a graph of 150 nodes: a ring with chords, edges both ways; BFS from node 0
    const V = 150, adj: number[][] = Array.from({ length: V }, () => []);
    const link = (a: number, b: number) => (adj[a].push(b), adj[b].push(a));
    for (let i = 0; i < V; i++) link(i, (i + 1) % V);
    for (let i = 0; i < V; i += 7) link(i, (i * 31 + 11) % V);
    const nodes = new Int32Array(2 * V), edges: number[] = [];
    adj.forEach((
      e,
      i,
    ) => (nodes[2 * i] = edges.length, nodes[2 * i + 1] = e.length, edges.push(...e)));
    const buf = (d: Int32Array | Uint8Array) => client.createWithData(d);
    const g = [buf(nodes), buf(Int32Array.from(edges))];
    const mask = new Uint8Array(V), visited = new Uint8Array(V), cost = new Int32Array(V).fill(-1);
    mask[0] = visited[0] = 1, cost[0] = 0;
    const [m, up, vis, c, over] = [
      buf(mask),
      buf(new Uint8Array(V)),
      buf(visited),
      buf(cost),
      buf(new Uint8Array(4)),
    ];
    try {
      const kernel = (entryPoint: string): CudaKernel => ({
        source: bfs,
        entryPoint,
        blockSize: [64, 1, 1],
      });
      for (let level = 0;; level++) {
        assert.ok(level < V, "BFS does not end");
        client.write(over, new Uint8Array(4));
        client.execute(kernel("Kernel"), {
          threads: V,
          buffers: [...g, m, up, vis, c],
          params: { no_of_nodes: V },
        });
        client.execute(kernel("Kernel2"), {
          threads: V,
          buffers: [m, up, vis, over],
          params: { no_of_nodes: V },
        });
        if ((await client.read(over))[0] === 0) break;
      }
      const want = new Int32Array(V).fill(-1), queue = [0];
      want[0] = 0;
      for (const u of queue) {
        for (const w of adj[u]) if (want[w] < 0) want[w] = want[u] + 1, queue.push(w);
      }
      assert.deepEqual(new Int32Array((await client.read(c)).slice().buffer), want);
    } finally {
      for (const b of [...g, m, up, vis, c, over]) b.dispose();
    }
  },
});
