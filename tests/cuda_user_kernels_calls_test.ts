/**
 * Device functions that stay calls in the PTX (`__noinline__`, as users write for big helpers,
 * and as NVRTC keeps some): `.func` bodies with `call`/`ret` and `.param` arguments and return
 * values, which the simulator's PTX interpreter inlines at each call site; `printf`, whose call
 * of `vprintf` it formats on the host. What it cannot run (a recursive call, a function without a
 * body such as `malloc`) is refused at load, naming it.
 */
import assert from "node:assert/strict";
import type { CudaKernel } from "../runtime/server/cuda/kernel.ts";
import { nvrtcName, nvrtcSkip, onSimulator, simulatedCudaClient } from "./_cuda_nvrtc.ts";
import { launch, mismatch } from "./_cuda_user_run.ts";
import { hazardReport, printfOutput } from "./fixtures/cuda_sim.ts";

const ignore = nvrtcSkip !== undefined;
/** Run on a real driver (GPUCOMPUTE_TEST_CUDA_LIBRARY): what only the simulator reports is not checked. */
const onDevice = !onSimulator;

Deno.test({
  name: nvrtcName(
    "device function calls: __noinline__ helpers with float, double, 64-bit, pointer and struct arguments",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const n = 200;
    const x = Float32Array.from({ length: n }, (_, i) => (i - 100) / 8);
    const kernel: CudaKernel = {
      source: `
struct Pair { float lo, hi; int count; };
__device__ __noinline__ float clampf(float v, float lo, float hi) {
  if (v < lo) return lo;  // an early return: a ret in the middle of the body
  return v > hi ? hi : v;
}
__device__ __noinline__ double poly(double t, const double* c, int n) {
  double acc = 0.0;
  for (int k = n - 1; k >= 0; k--) acc = acc * t + c[k];
  return acc;
}
__device__ __noinline__ long long mix(long long a, unsigned b) { return a * 1000003LL + b; }
__device__ __noinline__ Pair bounds(const float* x, int i, int n) {
  Pair p = {x[i], x[i], 1};
  if (i + 1 < n) { p.lo = fminf(p.lo, x[i + 1]); p.hi = fmaxf(p.hi, x[i + 1]); p.count++; }
  return p;
}
__device__ __noinline__ float twice(float v) { return clampf(v, -3.0f, 3.0f) * 2.0f; }
__device__ __noinline__ void store(float* out, int i, float v) { out[i] = v; }
extern "C" __global__ void k(const float* x, float* y, double* d, long long* m, float* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double c[4] = {1.0, -0.5, 0.25, (double)i};
  float v = x[i];
  store(y, i, (i & 1) ? twice(v) : clampf(v, -1.0f, 1.0f));
  d[i] = poly((double)v, c, 4);
  m[i] = mix((long long)i - 50, (unsigned)(i * 7));
  Pair p = bounds(x, i, n);
  b[2 * i] = p.lo + p.hi;
  b[2 * i + 1] = (float)p.count;
}`,
      blockSize: [64, 1, 1],
    };
    const [, y, d, m, b] = await launch(client, kernel, n, [
      x,
      new Float32Array(n),
      new Float64Array(n),
      new BigInt64Array(n),
      new Float32Array(2 * n),
    ], { n });
    const clamp = (v: number, lo: number, hi: number) => Math.min(Math.max(v, lo), hi);
    assert.equal(
      mismatch(y, Array.from(x, (v, i) => i & 1 ? clamp(v, -3, 3) * 2 : clamp(v, -1, 1))),
      undefined,
    );
    assert.equal(
      mismatch(d, Array.from(x, (v, i) => ((i * v + 0.25) * v - 0.5) * v + 1), 1e-15),
      undefined,
    );
    const mixed = m as unknown as BigInt64Array;
    for (let i = 0; i < n; i++) assert.equal(mixed[i], BigInt(i - 50) * 1000003n + BigInt(i * 7));
    assert.equal(
      mismatch(
        b,
        Array.from({ length: n }, (_, i) => {
          const pair = i + 1 < n ? [x[i], x[i + 1]] : [x[i]];
          return [Math.min(...pair) + Math.max(...pair), pair.length];
        }).flat(),
      ),
      undefined,
    );
  },
});

Deno.test({
  name: nvrtcName(
    "device function calls: a warp reduction and a barrier inside called functions, divergent calls",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const x = Int32Array.from({ length: 128 }, (_, i) => ((i * 37) % 41) - 20);
    const [, sums, odd, same] = await launch(
      client,
      {
        source: `
__device__ __noinline__ int warpSum(int v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffff, v, o);
  return v;
}
__device__ __noinline__ int blockSum(int v, int* scratch) {
  int w = warpSum(v);
  if ((threadIdx.x & 31) == 0) scratch[threadIdx.x / 32] = w;
  __syncthreads();
  int total = 0;
  for (int k = 0; k < blockDim.x / 32; k++) total += scratch[k];
  return total;
}
__device__ __noinline__ int cube(int v) { return v * v * v; }
// a local array indexed at run time: the callee's own .local depot, once per inlined copy
__device__ __noinline__ int countSame(const int* x, int i, int len) {
  int hist[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  for (int k = 0; k < len; k++) hist[x[k] & 7] += 1;
  return hist[x[i] & 7];
}
__device__ __noinline__ int negate(int v) { return -v; }
extern "C" __global__ void k(const int* x, int* sums, int* odd, int* same) {
  __shared__ int scratch[32];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int s = blockSum(x[i], scratch);
  if (threadIdx.x == 0) sums[blockIdx.x] = s;
  odd[i] = (x[i] & 1) ? cube(x[i]) : negate(x[i]);
  same[i] = countSame(x, i, 128) * 1000 + countSame(x, i, i + 1);
}`,
        blockSize: [64, 1, 1],
      },
      128,
      [x, new Int32Array(2), new Int32Array(128), new Int32Array(128)],
    );
    assert.deepEqual(
      Array.from(sums),
      [0, 1].map((b) => x.slice(b * 64, b * 64 + 64).reduce((a, v) => a + v)),
    );
    assert.equal(mismatch(odd, Array.from(x, (v) => v & 1 ? v ** 3 : -v)), undefined);
    const count = (i: number, len: number) =>
      Array.from(x.subarray(0, len)).filter((v) => (v & 7) === (x[i] & 7)).length;
    assert.equal(
      mismatch(same, Array.from(x, (_, i) => count(i, 128) * 1000 + count(i, i + 1))),
      undefined,
    );
  },
});

Deno.test({
  name: nvrtcName(
    "device function calls: recursion and a function without a body (malloc) are " +
      "refused at load (the simulator's limits: ignored on a real driver, which runs them)",
  ),
  ignore: ignore || !onSimulator,
  async fn() {
    using client = await simulatedCudaClient();
    const refused = async (source: string, pattern: RegExp) => {
      const kernel: CudaKernel = { source, blockSize: [32, 1, 1] };
      await assert.rejects(
        launch(client, kernel, 32, [new Float32Array(32)]),
        (error: Error) => {
          assert.match(error.message, /CUDA_ERROR_INVALID_PTX \(218\)/);
          assert.match(error.message, pattern);
          return true;
        },
      );
    };
    await refused(
      `__device__ int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
extern "C" __global__ void k(float* x) { x[threadIdx.x] = fib(threadIdx.x % 10); }`,
      /cuda_sim does not run recursive device functions \('_Z3fibi' calls itself\)/,
    );
    await refused(
      `extern "C" __global__ void k(float* x) { float* p = (float*)malloc(16); p[0] = 1.0f; x[0] = p[0]; }`,
      /cuda_sim cannot call 'malloc': the module has no body for it/,
    );
    await refused(
      `extern "C" __device__ float helper(float);
extern "C" __global__ void k(float* x) { x[threadIdx.x] = helper(x[threadIdx.x]); }`,
      /cuda_sim cannot call 'helper': the module has no body for it/,
    );
    // every call site gets a copy of its callee: nested calls that multiply past 2^17
    // instructions are refused rather than decoded without end
    const levels = Array.from(
      { length: 15 },
      (_, n) =>
        `__device__ __noinline__ float f${n + 1}(float x) { return f${n}(x) + f${n}(x * 2.0f); }`,
    );
    await refused(
      `__device__ __noinline__ float f0(float x) { return x * x + 1.0f; }
${levels.join("\n")}
extern "C" __global__ void k(float* x) { x[threadIdx.x] = f15(x[threadIdx.x]); }`,
      /cuda_sim: inlining the calls makes 'k' longer than 2\^17 instructions/,
    );
    // the client stays usable
    const [ok] = await launch(
      client,
      {
        source: `extern "C" __global__ void k(float* x) { x[threadIdx.x] += 1.0f; }`,
      },
      4,
      [new Float32Array(4)],
    );
    assert.deepEqual(Array.from(ok), [1, 1, 1, 1]);
  },
});

Deno.test({
  name: nvrtcName(
    "device function calls in PTX: a call branched around (as nvcc emits) and a guarded call, a " +
      "callee defined after its caller, calls in a loop; a guarded ld.param of the return value " +
      "is refused at load, as ptxas refuses it",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    // y[i] = the sum over k < i % 5 of: i odd ? step(k, x[i]) : 1000 (the call skipped, the
    // value set apart from it), where step(k, v) = v + k, or 0 past 2 (its early ret). The guard
    // differs between a warp's lanes, so the call is no call.uni (PTX ISA: .uni promises the
    // active lanes agree on the guard), and the return value is used only where the call ran
    const caller = (skipped: string) =>
      `.version 7.0
.target sm_75
.address_size 64
.func (.param .b32 func_retval0) step(.param .b32 step_k, .param .b32 step_v);
.visible .entry k(.param .u64 k_x, .param .u64 k_y)
{
  .reg .pred %p<4>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [k_x];
  ld.param.u64 %rd2, [k_y];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.u32 %r2, [%rd4];
  and.b32 %r3, %r1, 1;
  setp.eq.u32 %p1, %r3, 1;
  rem.u32 %r4, %r1, 5;
  mov.u32 %r5, 0;
  mov.u32 %r6, 0;
  mov.u32 %r10, %r2;
$LOOP:
  setp.ge.u32 %p2, %r5, %r4;
  @%p2 bra $DONE;
  {
  .param .b32 param0;
  .param .b32 param1;
  .param .b32 retval0;
  st.param.b32 [param0+0], %r5;
  st.param.b32 [param1+0], %r2;
  ${skipped}
  }
  add.s32 %r5, %r5, 1;
  bra.uni $LOOP;
$DONE:
  mov.u32 %r10, %r6;
  add.s64 %rd5, %rd2, %rd3;
  st.global.u32 [%rd5], %r10;
  ret;
}
.func (.param .b32 func_retval0) step(.param .b32 step_k, .param .b32 step_v)
{
  .reg .pred %p<2>;
  .reg .b32 %r<5>;
  ld.param.u32 %r1, [step_k];
  ld.param.u32 %r2, [step_v];
  setp.gt.u32 %p1, %r1, 2;
  @%p1 bra $ZERO;
  add.s32 %r3, %r2, %r1;
  st.param.b32 [func_retval0+0], %r3;
  ret;
$ZERO:
  mov.u32 %r4, 0;
  st.param.b32 [func_retval0+0], %r4;
  ret;
}
`;
    const x = Int32Array.from({ length: 64 }, (_, i) => i * 10);
    const want = Array.from(x, (v, i) => {
      let s = 0;
      for (let k = 0; k < i % 5; k++) s += !(i & 1) ? 1000 : k > 2 ? 0 : v + k;
      return s;
    });
    const forms = [
      // a branch around the call and the load of its return value, as nvcc emits a guarded call
      `mov.u32 %r7, 1000;
  @!%p1 bra $SKIP;
  call (retval0), step, (param0, param1);
  ld.param.b32 %r7, [retval0+0];
$SKIP:
  add.s32 %r6, %r6, %r7;`,
      // a guarded call; its return value loaded unguarded (undefined where the call was skipped)
      // and selected where it ran
      `@%p1 call (retval0), step, (param0, param1);
  ld.param.b32 %r8, [retval0+0];
  selp.b32 %r7, %r8, 1000, %p1;
  add.s32 %r6, %r6, %r7;`,
    ];
    for (const form of forms) {
      const [, y] = await launch(client, { ptx: caller(form), blockSize: [64, 1, 1] }, 64, [
        x,
        new Int32Array(64),
      ]);
      assert.equal(mismatch(y, want), undefined, form);
    }
    // this test's PTX before an H100 run, the load of the return value guarded as the call:
    // ptxas refuses a guarded ld.param or st.param of a call's .param variables (the H100's JIT,
    // driver 580: CUDA_ERROR_INVALID_PTX, this log line)
    const guarded = caller(`mov.u32 %r7, 1000;
  @%p1 call (retval0), step, (param0, param1);
  @%p1 ld.param.b32 %r7, [retval0+0];
  add.s32 %r6, %r6, %r7;`);
    await assert.rejects(
      launch(client, { ptx: guarded, blockSize: [64, 1, 1] }, 64, [x, new Int32Array(64)]),
      (e: Error) =>
        /CUDA_ERROR_INVALID_PTX \(218\)/.test(e.message) &&
        e.message.includes(
          "ptxas application ptx input, line 33; error   : Illegal to predicate instruction " +
            "'ld.param' with operand 'retval0'",
        ),
    );
    // this test's PTX before an H200 run: the caller stored 1000 into the call's return value,
    // which only the callee writes (ptxas passes it in registers): where the guarded call was
    // skipped the H200 read 0, the simulator the 1000. Refused at load, naming it (ptxas takes it)
    if (onDevice) return;
    // a guarded st.param of a call's argument: refused by the same rule (not run on a device)
    const argument = caller(`@%p1 st.param.b32 [param1+0], %r10;
  call (retval0), step, (param0, param1);
  ld.param.b32 %r7, [retval0+0];
  add.s32 %r6, %r6, %r7;`);
    await assert.rejects(
      launch(client, { ptx: argument, blockSize: [64, 1, 1] }, 64, [x, new Int32Array(64)]),
      /line 31; error {3}: Illegal to predicate instruction 'st.param' with operand 'param1'/,
    );
    const stored = caller(`st.param.b32 [retval0+0], 1000;
  @%p1 call (retval0), step, (param0, param1);
  ld.param.b32 %r7, [retval0+0];
  add.s32 %r6, %r6, %r7;`);
    await assert.rejects(
      launch(client, { ptx: stored, blockSize: [64, 1, 1] }, 64, [x, new Int32Array(64)]),
      /line 32; error {3}: cuda_sim: 'retval0' is the return value of this call of 'step', written by the caller at line 31/,
    );
  },
});

Deno.test({
  name: nvrtcName("printf in a kernel: CUDA's formats and argument layout, its return value"),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    printfOutput(); // forget earlier output
    const [, counts] = await launch(
      client,
      {
        source: `
extern "C" __global__ void k(const char* name, int* counts) {
  int i = threadIdx.x;
  long long big = -1234567890123LL * (i + 1);
  short s = (short)(-3 - i);
  unsigned char u = (unsigned char)(250 + i); // promoted to int: %u (CUDA's printf has no %hhu)
  counts[2 * i] = printf("t%d|%i|%u|%x|%X|%o|%5d|%-5d|%05d|%+d|%lld|%llu|%llx|%hd|%u|%c|%s|%.3f|%e|%g|%10.4f|%%\\n",
    i, -i, 4000000000u + i, 255 + i, 0xabc0 + i, 8 + i, i, i, i, i, big, 18446744073709551615ull - i,
    0x123456789abcull + i, s, u, 'A' + i, name, 1.0f / 3 + i, -12345.678 * (i + 1), 0.0001 * (i + 1),
    3.14159265 * i);
  counts[2 * i + 1] = printf("no arguments\\n");
}`,
        blockSize: [3, 1, 1],
      },
      3,
      [Int8Array.from(new TextEncoder().encode("kernel\0")), new Int32Array(6)],
    );
    assert.deepEqual(Array.from(counts), [21, 0, 21, 0, 21, 0]);
    if (onDevice) return; // a device's printf goes to the process's stdout, not cuSimPrintfOutput
    const lines = printfOutput().split("\n").filter((l) => l !== "").sort();
    const want = [0, 1, 2].map((i) => {
      const hex = (v: number | bigint) => v.toString(16);
      const big = -1234567890123n * BigInt(i + 1);
      return [
        `t${i}`,
        `${-i}`,
        `${4000000000 + i}`,
        hex(255 + i),
        hex(0xabc0 + i).toUpperCase(),
        (8 + i).toString(8),
        `${i}`.padStart(5),
        `${i}`.padEnd(5),
        `${i}`.padStart(5, "0"),
        `+${i}`,
        `${big}`,
        `${18446744073709551615n - BigInt(i)}`,
        hex(0x123456789abcn + BigInt(i)),
        `${-3 - i}`,
        `${250 + i}`,
        String.fromCharCode(65 + i),
        "kernel",
        (Math.fround(1 / 3) + i).toFixed(3),
        (-12345.678 * (i + 1)).toExponential(6).replace(/e([+-])(\d)$/, "e$10$2"),
        ["0.0001", "0.0002", "0.0003"][i],
        (3.14159265 * i).toFixed(4).padStart(10),
        "%",
      ].join("|");
    });
    assert.deepEqual(lines, [...want, "no arguments", "no arguments", "no arguments"].sort());
  },
});

Deno.test({
  name: nvrtcName(
    "printf with a length CUDA's printf lacks (%hhu, %zu): a fault, as the H200 faulted on %hhu then %s",
  ),
  ignore,
  async fn() {
    printfOutput(); // forget earlier output
    // CUDA's printf knows the lengths h, l and ll only: past a %hhu it reads the arguments at other
    // offsets than NVRTC laid them out; the printf test above faulted an H200 with
    // CUDA_ERROR_ILLEGAL_ADDRESS while its format had a %hhu before its %s. The first kernel lays
    // its arguments out as that one did around them (the %hhu's int at 8k + 4, the %c's next, the
    // %s's pointer 8-aligned after a gap), so a device run tests the explanation too; what a
    // device does with %zu is not known, so that one runs on the simulator only
    const kernels = [
      `printf("%d|%hhu|%c|%s\\n", i, u, 'A' + i, name)`,
      ...onDevice ? [] : [`printf("%zu|%s\\n", (size_t)u, name)`],
    ];
    for (const call of kernels) {
      using client = await simulatedCudaClient(); // a fault ends the context
      const run = launch(
        client,
        {
          source: `
extern "C" __global__ void k(const char* name, int* counts) {
  int i = threadIdx.x;
  unsigned char u = (unsigned char)(250 + i);
  counts[i] = ${call};
}`,
          blockSize: [3, 1, 1],
        },
        3,
        [Int8Array.from(new TextEncoder().encode("kernel\0")), new Int32Array(3)],
      );
      await assert.rejects(run, /CUDA_ERROR_ILLEGAL_ADDRESS \(700\)/);
      // the simulator's report names the conversion
      const conversion = /%(hh|z)u/.exec(call)![0];
      if (!onDevice) assert.ok(hazardReport().includes(`printf's '${conversion}'`), hazardReport());
    }
    if (!onDevice) assert.equal(printfOutput(), "");
  },
});
