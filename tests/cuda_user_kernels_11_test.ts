/**
 * User CUDA C, QA wave 5 (continued): the GPU Gems 3 work-efficient scan, Rodinia's BFS,
 * flash-attention-minimal (tspeterkim), ggml's im2col and a heat-diffusion stencil, each
 * against a CPU reference.
 */
import assert from "node:assert/strict";
import { nvrtcName, nvrtcSkip, simulatedCudaClient } from "./_cuda_nvrtc.ts";
import type { CudaKernel } from "../runtime/server/cuda/kernel.ts";
import { launch, mismatch, randoms } from "./_cuda_user_run.ts";

const ignore = nvrtcSkip !== undefined;

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

Deno.test({
  name: nvrtcName(
    "flash-attention-minimal's forward_kernel (tiles of K, V, Q and S in dynamic shared memory, " +
      "online softmax with __expf, a [batch, head] grid) against softmax(QK^T / sqrt(d)) V",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const source = `#define INFINITY __int_as_float(0x7f800000)
__global__
void forward_kernel(const float* Q, const float* K, const float* V, const int N, const int d,
                    const int Tc, const int Tr, const int Bc, const int Br, const float softmax_scale,
                    float* l, float *m, float* O) {
    int tx = threadIdx.x;
    int bx = blockIdx.x; int by = blockIdx.y;  // batch and head index
    int qkv_offset = (bx * gridDim.y * N * d) + (by * N * d);  // gridDim.y = nh
    int lm_offset = (bx * gridDim.y * N) + (by * N);  // offset for l and m
    extern __shared__ float sram[];
    int tile_size = Bc * d;  // size of Qi, Kj, Vj
    float* Qi = sram;
    float* Kj = &sram[tile_size];
    float* Vj = &sram[tile_size * 2];
    float* S = &sram[tile_size * 3];
    for (int j = 0; j < Tc; j++) {
        for (int x = 0; x < d; x++) {
            Kj[(tx * d) + x] = K[qkv_offset + (tile_size * j) + (tx * d) + x];
            Vj[(tx * d) + x] = V[qkv_offset + (tile_size * j) + (tx * d) + x];
        }
        __syncthreads();
        for (int i = 0; i < Tr; i++)  {
            for (int x = 0; x < d; x++) {
                Qi[(tx * d) + x] = Q[qkv_offset + (tile_size * i) + (tx * d) + x];
            }
            float row_m_prev = m[lm_offset + (Br * i) + tx];
            float row_l_prev = l[lm_offset + (Br * i) + tx];
            float row_m = -INFINITY;
            for (int y = 0; y < Bc; y++) {
                float sum = 0;
                for (int x = 0; x < d; x++) {
                    sum += Qi[(tx * d) + x] * Kj[(y * d) + x];
                }
                sum *= softmax_scale;
                S[(Bc * tx) + y] = sum;
                if (sum > row_m)
                    row_m = sum;
            }
            float row_l = 0;
            for (int y = 0; y < Bc; y++) {
                S[(Bc * tx) + y] = __expf(S[(Bc * tx) + y] - row_m);
                row_l += S[(Bc * tx) + y];
            }
            float row_m_new = max(row_m_prev, row_m);
            float row_l_new = (__expf(row_m_prev - row_m_new) * row_l_prev) + (__expf(row_m - row_m_new) * row_l);
            for (int x = 0; x < d; x++) {
                float pv = 0;  // Pij * Vj
                for (int y = 0; y < Bc; y++) {
                    pv += S[(Bc * tx) + y] * Vj[(y * d) + x];
                }
                O[qkv_offset + (tile_size * i) + (tx * d) + x] = (1 / row_l_new) \\
                    * ((row_l_prev * __expf(row_m_prev - row_m_new) * O[qkv_offset + (tile_size * i) + (tx * d) + x]) \\
                    + (__expf(row_m - row_m_new) * pv));
            }
            m[lm_offset + (Br * i) + tx] = row_m_new;
            l[lm_offset + (Br * i) + tx] = row_l_new;
        }
        __syncthreads();
    }
}`;
    const B = 1, nh = 2, N = 64, d = 16, Bc = 32, Br = 32;
    const q = randoms(B * nh * N * d, 101), k = randoms(B * nh * N * d, 102);
    const v = randoms(B * nh * N * d, 103), scale = 1 / Math.sqrt(d);
    const [, , , , , out] = await launch(
      client,
      { source, blockSize: [Bc, 1, 1], sharedMemoryBytes: (3 * Bc * d + Bc * Br) * 4 },
      [B * Bc, nh],
      [
        q,
        k,
        v,
        new Float32Array(B * nh * N),
        new Float32Array(B * nh * N).fill(-Infinity),
        new Float32Array(q.length),
      ],
      { N, d, Tc: N / Bc, Tr: N / Br, Bc, Br, softmax_scale: scale },
    );
    const want = new Float64Array(q.length);
    for (let h = 0; h < B * nh; h++) {
      for (let i = 0; i < N; i++) {
        const s = Array.from({ length: N }, (_, j) => {
          let dot = 0;
          for (let x = 0; x < d; x++) dot += q[(h * N + i) * d + x] * k[(h * N + j) * d + x];
          return dot * scale;
        });
        const max = Math.max(...s), p = s.map((a) => Math.exp(a - max));
        const sum = p.reduce((a, b) => a + b);
        for (let x = 0; x < d; x++) {
          want[(h * N + i) * d + x] = p.reduce((a, pj, j) => a + pj * v[(h * N + j) * d + x], 0) /
            sum;
        }
      }
    }
    // __expf: 2 + 1.16|x| ulp for |x| < 8 here (CUDA C Programming Guide, intrinsics); sums of 64
    assert.equal(mismatch(out, want, 1e-5), undefined);
  },
});

Deno.test({
  name: nvrtcName(
    "ggml im2col_kernel<float> (int64_t geometry, stride, padding and dilation, a [blocks, OH, " +
      "batch * IC] grid) and a 2-D heat-diffusion stencil ping-ponged for 4 steps, exact",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const im2col = `typedef long long int64_t;
template <typename T>
static  __global__ void im2col_kernel(
        const float * x, T * dst, int64_t batch_offset,
        int64_t offset_delta, int64_t IC, int64_t IW, int64_t IH, int64_t OH, int64_t OW, int64_t KW, int64_t KH, int64_t pelements, int64_t CHW,
        int s0, int s1, int p0, int p1, int d0, int d1) {
    const int64_t i = threadIdx.x + blockIdx.x * blockDim.x;
    if (i >= pelements) return;
    const int64_t  ksize = OW * (KH > 1 ? KW : 1);
    const int64_t  kx = i / ksize;
    const int64_t  kd = kx * ksize;
    const int64_t  ky = (i - kd) / OW;
    const int64_t  ix = i % OW;
    const int64_t  oh = blockIdx.y;
    const int64_t  batch = blockIdx.z / IC;
    const int64_t  ic = blockIdx.z % IC;
    const int64_t iiw = ix * s0 + kx * d0 - p0;
    const int64_t iih = oh * s1 + ky * d1 - p1;
    const int64_t offset_dst = ((batch * OH + oh) * OW + ix) * CHW + (ic * (KW * KH) + ky * KW + kx);
    if (iih < 0 || iih >= IH || iiw < 0 || iiw >= IW) {
        dst[offset_dst] = 0.0f;
    } else {
        const int64_t offset_src = ic * offset_delta + batch * batch_offset;
        dst[offset_dst] = x[offset_src + iih * IW + iiw];
    }
}`;
    const N = 2,
      IC = 3,
      IH = 7,
      IW = 9,
      KH = 3,
      KW = 3,
      s0 = 2,
      s1 = 1,
      p0 = 1,
      p1 = 1,
      d0 = 1,
      d1 = 2;
    const OH = Math.floor((IH + 2 * p1 - d1 * (KH - 1) - 1) / s1) + 1;
    const OW = Math.floor((IW + 2 * p0 - d0 * (KW - 1) - 1) / s0) + 1;
    // a square kernel: the ggml kernel of this version reads kx from i / (OW * KW) (KH > 1)
    const x = randoms(N * IC * IH * IW, 111), CHW = IC * KH * KW, pelements = OW * KW * KH;
    const [, cols] = await launch(
      client,
      { source: im2col, entryPoint: "im2col_kernel<float>", blockSize: [32, 1, 1] },
      [Math.ceil(pelements / 32) * 32, OH, N * IC],
      [x, new Float32Array(N * OH * OW * CHW).fill(NaN)],
      {
        batch_offset: IC * IH * IW,
        offset_delta: IH * IW,
        IC,
        IW,
        IH,
        OH,
        OW,
        KW,
        KH,
        pelements,
        CHW,
        s0,
        s1,
        p0,
        p1,
        d0,
        d1,
      },
    );
    const want = new Float32Array(N * OH * OW * CHW); // ggml_compute_forward_im2col_f32
    for (let n = 0; n < N; n++) {
      for (let oh = 0; oh < OH; oh++) {
        for (let ow = 0; ow < OW; ow++) {
          for (let ic = 0; ic < IC; ic++) {
            for (let ky = 0; ky < KH; ky++) {
              for (let kx = 0; kx < KW; kx++) {
                const ih = oh * s1 + ky * d1 - p1, iw = ow * s0 + kx * d0 - p0;
                want[((n * OH + oh) * OW + ow) * CHW + ic * KH * KW + ky * KW + kx] =
                  ih < 0 || ih >= IH || iw < 0 || iw >= IW
                    ? 0
                    : x[((n * IC + ic) * IH + ih) * IW + iw];
              }
            }
          }
        }
      }
    }
    assert.deepEqual(cols, want);

    const heat =
      `extern "C" __global__ void heat_step(const float* __restrict__ in, float* __restrict__ out, int nx, int ny, float r) {
    int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= nx || j >= ny) return;
    int c = j * nx + i;
    if (i == 0 || j == 0 || i == nx - 1 || j == ny - 1) { out[c] = in[c]; return; }
    out[c] = in[c] + r * (in[c - 1] + in[c + 1] + in[c - nx] + in[c + nx] - 4.0f * in[c]);
}`;
    // values of 1/16ths with r = 1/4: every step is exact in f32 (with or without fma)
    const nx = 20, ny = 12;
    let grid = Float32Array.from({ length: nx * ny }, (_, i) => ((i * 7) % 16) / 16);
    let want2 = Float64Array.from(grid);
    const bufs = [client.createWithData(grid), client.createWithData(new Float32Array(nx * ny))];
    try {
      for (let step = 0; step < 4; step++) {
        client.execute({ source: heat, blockSize: [8, 8, 1] } as CudaKernel, {
          threads: [nx, ny],
          buffers: [bufs[step % 2], bufs[1 - step % 2]],
          params: { nx, ny, r: 0.25 },
        });
        want2 = want2.map((v, c) => {
          const i = c % nx, j = Math.floor(c / nx);
          if (i === 0 || j === 0 || i === nx - 1 || j === ny - 1) return v;
          return v + 0.25 * (want2[c - 1] + want2[c + 1] + want2[c - nx] + want2[c + nx] - 4 * v);
        });
      }
      grid = new Float32Array((await client.read(bufs[0])).slice().buffer);
      assert.deepEqual(Array.from(grid), Array.from(want2));
    } finally {
      for (const b of bufs) b.dispose();
    }
  },
});
