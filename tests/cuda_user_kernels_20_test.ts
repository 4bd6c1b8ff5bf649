/**
 * User CUDA C, QA wave 12 (continued): llm.c's permute and encoder backward kernels (float
 * atomics into embedding gradients), cuda-samples' systemWideAtomics (the `_system` atomics,
 * `atom.sys`) and inlinePTX (`%laneid`), and the CUDA C++ Programming Guide's double atomicAdd
 * as a compare-and-swap loop on 64-bit words, each against a CPU reference.
 */
import assert from "node:assert/strict";
import { nvrtcName, nvrtcSkip, onSimulator, simulatedCudaClient } from "./_cuda_nvrtc.ts";
import { launch } from "./_cuda_user_run.ts";
import { printfOutput, withSimEnv } from "./fixtures/cuda_sim.ts";

const ignore = nvrtcSkip !== undefined;

/** `n` deterministic integers in [0, range). */
function ints(n: number, range: number, seed: number): number[] {
  let s = seed >>> 0;
  return Array.from({ length: n }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return (s >>> 8) % range;
  });
}

// karpathy/llm.c dev/cuda/permute.cu (3f7d0cc), verbatim
const PERMUTE =
  `__global__ void permute_kernel(const float* matrix, float* out_matrix, int dim1, int dim2, int dim3, int dim4) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < dim1 * dim2 * dim3 * dim4) {
        int i1 = (idx / (dim2 * dim3 * dim4)) % dim1;
        int i2 = (idx / (dim3 * dim4)) % dim2;
        int i3 = (idx / dim4) % dim3;
        int i4 = idx % dim4;
        int permuted_idx = i4 * (dim3 * dim1 * dim2) + i3 * (dim1 * dim2) + i1 * dim2 + i2;
        out_matrix[permuted_idx] = matrix[idx];
    }
}`;

Deno.test({
  name: nvrtcName("llm.c permute_kernel: (d1, d2, d3, d4) to (d4, d3, d1, d2), as permute_cpu"),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const [d1, d2, d3, d4] = [3, 5, 4, 7];
    const n = d1 * d2 * d3 * d4;
    const input = Float32Array.from({ length: n }, (_, i) => i + 0.5);
    const [, got] = await launch(
      client,
      { source: PERMUTE, entryPoint: "permute_kernel", blockSize: [256, 1, 1] },
      Math.ceil(n / 256) * 256,
      [input, new Float32Array(n)],
      { dim1: d1, dim2: d2, dim3: d3, dim4: d4 },
    );
    const want = new Float32Array(n);
    for (let idx = 0; idx < n; idx++) {
      const i1 = Math.floor(idx / (d2 * d3 * d4)) % d1, i2 = Math.floor(idx / (d3 * d4)) % d2;
      const i3 = Math.floor(idx / d4) % d3, i4 = idx % d4;
      want[i4 * (d3 * d1 * d2) + i3 * (d1 * d2) + i1 * d2 + i2] = input[idx];
    }
    assert.deepEqual(got, want);
  },
});

// karpathy/llm.c dev/cuda/encoder_backward.cu (046d001), verbatim
const ENCODER_BACKWARD = `__global__ void encoder_backward_kernel1(float* dwte, float* dwpe,
                                        const float* dout, const int* inp,
                                        int B, int T, int C) {
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
}
__global__ void encoder_backward_kernel2(float* dwte, float* dwpe,
                                        const float* dout, const int* inp,
                                        int B, int T, int C) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= C) { return; }
    int BT = B * T;
    for (int i = 0; i < BT; i++) {
        int t = i % T;
        int ix = inp[i];
        float dout_btc = dout[i * C + c];
        dwte[ix * C + c] += dout_btc;
        dwpe[t * C + c] += dout_btc;
    }
}`;

Deno.test({
  name: nvrtcName(
    "llm.c encoder_backward_kernel1 (float atomicAdd into dwte and dwpe) and kernel2, as " +
      "encoder_backward_cpu",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const [B, T, C, V] = [3, 8, 24, 5]; // few tokens: many adds meet on a row of dwte
    const dout = Float32Array.from(ints(B * T * C, 33, 4), (v) => (v - 16) / 8); // sums exact
    const inp = Int32Array.from(ints(B * T, V, 5));
    const wantWte = new Float32Array(V * C), wantWpe = new Float32Array(T * C);
    for (let b = 0; b < B; b++) {
      for (let t = 0; t < T; t++) {
        for (let i = 0; i < C; i++) {
          const d = dout[b * T * C + t * C + i];
          wantWte[inp[b * T + t] * C + i] += d, wantWpe[t * C + i] += d;
        }
      }
    }
    for (
      const [name, threads] of [["encoder_backward_kernel1", B * T * C], [
        "encoder_backward_kernel2",
        C,
      ]] as const
    ) {
      const [dwte, dwpe] = await launch(
        client,
        { source: ENCODER_BACKWARD, entryPoint: name, blockSize: [64, 1, 1] },
        Math.ceil(threads / 64) * 64,
        [new Float32Array(V * C), new Float32Array(T * C), dout, inp],
        { B, T, C },
      );
      assert.deepEqual(dwte, wantWte, name);
      assert.deepEqual(dwpe, wantWpe, name);
    }
  },
});

// Samples/0_Introduction/systemWideAtomics/systemWideAtomics.cu (NVIDIA/cuda-samples 35a407d),
// verbatim (run on device memory here, not managed memory; no concurrent host atomics)
const SYSTEM_ATOMICS = `#define LOOP_NUM 50
__global__ void atomicKernel(int *atom_arr)
{
    unsigned int tid = blockDim.x * blockIdx.x + threadIdx.x;
    for (int i = 0; i < LOOP_NUM; i++) {
        atomicAdd_system(&atom_arr[0], 10);
        atomicExch_system(&atom_arr[1], tid);
        atomicMax_system(&atom_arr[2], tid);
        atomicMin_system(&atom_arr[3], tid);
        atomicInc_system((unsigned int *)&atom_arr[4], 17);
        atomicDec_system((unsigned int *)&atom_arr[5], 137);
        atomicCAS_system(&atom_arr[6], tid - 1, tid);
        atomicAnd_system(&atom_arr[7], 2 * tid + 7);
        atomicOr_system(&atom_arr[8], 1 << tid);
        atomicXor_system(&atom_arr[9], tid);
    }
}`;

Deno.test({
  name: nvrtcName(
    "cuda-samples systemWideAtomics atomicKernel: every _system atomic (atom.sys), 50 rounds, " +
      "against the sample's verify rules",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const len = 64 * 2;
    const init = new Int32Array(10);
    init[7] = init[9] = 0xff;
    const [got] = await launch(
      client,
      { source: SYSTEM_ATOMICS, entryPoint: "atomicKernel", blockSize: [64, 1, 1] },
      len,
      [init],
    );
    let inc = 0, dec = 0, and = 0xff, or = 0, xor = 0xff;
    for (let i = 0; i < len * 50; i++) {
      inc = inc >= 17 ? 0 : inc + 1;
      dec = dec === 0 || dec > 137 ? 137 : dec - 1;
    }
    for (let t = 0; t < len; t++) {
      and &= 2 * t + 7, or |= t < 32 ? 1 << t : 0; // shl.b32 by 32 or more: 0
      xor ^= t * 50 % 2 ? t : 0; // 50 rounds: an even count of each
    }
    assert.equal(got[0], 10 * len * 50);
    assert.ok(got[1] >= 0 && got[1] < len);
    assert.deepEqual([got[2], got[3], got[4], got[5]], [len - 1, 0, inc, dec]);
    assert.ok(got[6] >= 1 && got[6] < len);
    assert.deepEqual([got[7], got[8], got[9]], [and, or, xor]);
  },
});

// The CUDA C++ Programming Guide, "Atomic Functions": atomicAdd for double before sm_60 as a
// compare-and-swap loop (renamed: the device has its own atomicAdd(double*, double)).
const DOUBLE_CAS = `__device__ double myAtomicAdd(double* address, double val)
{
    unsigned long long int* address_as_ull =
                              (unsigned long long int*)address;
    unsigned long long int old = *address_as_ull, assumed;
    do {
        assumed = old;
        old = atomicCAS(address_as_ull, assumed,
                        __double_as_longlong(val +
                               __longlong_as_double(assumed)));
    } while (assumed != old);
    return __longlong_as_double(old);
}
extern "C" __global__ void histogram(const int* bins, const double* w, double* cas, double* native,
                                     double* before, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    before[i] = myAtomicAdd(&cas[bins[i]], w[i]);
    atomicAdd(&native[bins[i]], w[i]);
  }
}`;

Deno.test({
  name: nvrtcName(
    "the Programming Guide's double atomicAdd as an atomicCAS loop on 64-bit words, against " +
      "the native atomicAdd(double*) and a CPU sum; each return is a prefix of its bin",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const n = 300, nbins = 7;
    const bins = Int32Array.from(ints(n, nbins, 6));
    const w = Float64Array.from(ints(n, 1000, 7), (v) => v / 64 + 2 ** -40); // exact sums
    const [, , cas, native, before] = await launch(
      client,
      { source: DOUBLE_CAS, blockSize: [128, 1, 1] },
      384,
      [bins, w, new Float64Array(nbins), new Float64Array(nbins), new Float64Array(n)],
      { n },
    );
    const want = new Float64Array(nbins);
    for (let i = 0; i < n; i++) want[bins[i]] += w[i];
    assert.deepEqual(cas, want);
    assert.deepEqual(native, want);
    // every add saw a distinct earlier total of its bin, below the final one
    for (let b = 0; b < nbins; b++) {
      const seen = [...before].filter((_, i) => bins[i] === b).sort((x, y) => x - y);
      assert.equal(seen[0], 0);
      assert.equal(new Set(seen).size, seen.length);
    }
  },
});

// Samples/2_Concepts_and_Techniques/inlinePTX/inlinePTX.cu (NVIDIA/cuda-samples)
const INLINE_PTX = `__global__ void sequence_gpu(int *d_ptr, int length) {
  int elemID = blockIdx.x * blockDim.x + threadIdx.x;
  if (elemID < length) {
    unsigned int laneid;
    asm("mov.u32 %0, %%laneid;" : "=r"(laneid));
    d_ptr[elemID] = laneid;
  }
}`;

Deno.test({
  name: nvrtcName("cuda-samples inlinePTX sequence_gpu: %laneid in blocks of 48 (a half warp)"),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const length = 200;
    const [got] = await launch(
      client,
      { source: INLINE_PTX, entryPoint: "sequence_gpu", blockSize: [48, 1, 1] },
      240,
      [new Int32Array(length).fill(-1)],
      { length },
    );
    assert.deepEqual([...got], Array.from({ length }, (_, i) => (i % 48) % 32));
  },
});

// CUDA 12's launch attributes besides __launch_bounds__ (the CUDA C++ Programming Guide,
// "Maximum Number of Registers per Thread" and "Thread Block Clusters"), before or after `void`
const MAXNREG = `extern "C" __global__ void __maxnreg__(32) limited(int* o) {
  o[blockIdx.x * blockDim.x + threadIdx.x] = threadIdx.x;
}`;
const CLUSTER =
  `extern "C" __global__ __launch_bounds__(64) void __cluster_dims__(2, 1, 1) bounded(int* o) {
  o[blockIdx.x * blockDim.x + threadIdx.x] = blockDim.x * 100 + blockIdx.x;
}`;

Deno.test({
  name: nvrtcName(
    "__maxnreg__ and __cluster_dims__ on a kernel: its signature is read (it was 'declares no " +
      'extern "C" __global__ functions\'), __launch_bounds__ beside them still bounds the block',
  ),
  ignore,
  async fn() {
    await withSimEnv({ CUDA_SIM_CC: "90" }, async () => {
      using client = await simulatedCudaClient();
      // a module of one kernel, launched without naming it
      const run = (source: string) => launch(client, { source }, 128, [new Int32Array(128)]);
      const [limited] = await run(MAXNREG);
      assert.deepEqual([...limited], Array.from({ length: 128 }, (_, i) => i));
      // the default block: 64, the bound; two blocks, one cluster
      const [bounded] = await run(CLUSTER);
      assert.deepEqual([...bounded], Array.from({ length: 128 }, (_, i) => 6400 + (i >> 6)));
      // and a message about such a kernel names it (it named '__maxnreg__')
      await assert.rejects(
        run(MAXNREG.replace("threadIdx.x;", "threadIdx.x + undeclared;")),
        /Kernel 'limited' failed to compile/,
      );
    });
  },
});

// An index check as PyTorch's kernels write it (CUDA_KERNEL_ASSERT is assert() in device code,
// aten/src/ATen/native/cuda/Embedding.cu and friends): a gather that asserts its indices
const GATHER =
  `extern "C" __global__ void gather(const float* table, const int* idx, float* out, int n, int rows) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int r = idx[i];
    assert(r >= 0 && r < rows);
    out[i] = table[r];
  }
}`;

Deno.test({
  name: nvrtcName(
    "assert() in a kernel: it runs while the assertion holds; a failed one prints the device's " +
      "message and ends the launch with CUDA_ERROR_ASSERT (it was refused at load)" +
      (onSimulator ? "" : " (a real driver: the error only; it prints the message itself)"),
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const table = Float32Array.from({ length: 10 }, (_, i) => i * 1.5);
    const kernel = { source: GATHER, blockSize: [32, 1, 1] as [number, number, number] };
    const idx = Int32Array.from(ints(40, 10, 8));
    const [, , got] = await launch(client, kernel, 64, [table, idx, new Float32Array(40)], {
      n: 40,
      rows: 10,
    });
    assert.deepEqual(got, Float32Array.from(idx, (r) => table[r]));
    printfOutput(); // forget earlier output
    idx[37] = 10;
    await assert.rejects(
      launch(client, kernel, 64, [table, idx, new Float32Array(40)], { n: 40, rows: 10 }),
      /CUDA_ERROR_ASSERT \(710\): device-side assert triggered/,
    );
    // The message is the simulator's to keep (cuSimPrintfOutput). A real driver writes it itself
    // when the host synchronizes (CUDA C++ Programming Guide, "Assertion": to stderr), outside
    // the runtime, which does not capture it (an H100 run had '' here): only the error is checked
    if (!onSimulator) return;
    assert.match(
      printfOutput(),
      /^gather\.cu:5: void gather\(const float \*, const int \*, float \*, int, int\): block: \[1,0,0\], thread: \[5,0,0\] Assertion `r >= 0 && r < rows` failed\.\n$/,
    );
  },
});
