/**
 * User CUDA C, wave 4 (continued): warp collectives of partial widths in a 3-D launch, local
 * arrays, narrow loads and stores, 64-bit conversions, f64 rounding modes, and the PTX the
 * simulator refuses, each against a CPU reference that follows the PTX ISA.
 */
import assert from "node:assert/strict";
import { nvrtcName, nvrtcSkip, onSimulator, simulatedCudaClient } from "./_cuda_nvrtc.ts";
import { withSimEnv } from "./fixtures/cuda_sim.ts";
import type { CudaKernel } from "../runtime/server/cuda/kernel.ts";

const ignore = nvrtcSkip !== undefined;

/** shfl.sync's source lane and whether it is in range (PTX ISA pseudocode). */
function shflSource(mode: "up" | "down" | "bfly" | "idx", lane: number, b: number, c: number) {
  const bval = b & 31, cval = c & 31, segmask = (c >> 8) & 31;
  const maxLane = (lane & segmask) | (cval & ~segmask), minLane = lane & segmask;
  const j = mode === "up"
    ? lane - bval
    : mode === "down"
    ? lane + bval
    : mode === "bfly"
    ? lane ^ bval
    : minLane | (bval & ~segmask);
  const ok = mode === "up" ? j >= maxLane : j <= maxLane;
  return ok ? j : lane;
}

Deno.test({
  name: nvrtcName(
    "wave 4: a 3-D launch of warp collectives at widths 8 and 16 with out-of-range lanes, votes " +
      "of a partial warp, match/reduce, bar.red, a dynamically indexed local array, char/short " +
      "loads and stores",
  ),
  ignore,
  async fn() {
    // __reduce_*_sync needs sm_80: the H100 of compute capability 9.0
    await withSimEnv({ CUDA_SIM_CC: "90" }, async () => {
      using client = await simulatedCudaClient();
      const source =
        `extern "C" __global__ void k(const unsigned* X, const int* idx, const signed char* c8, const short* c16, unsigned* o, signed char* b8, unsigned short* b16) {
  unsigned t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  unsigned b = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  unsigned n = blockDim.x * blockDim.y * blockDim.z, i = b * n + t, lane = t & 31, v = X[i];
  unsigned* r = o + i * 16;
  r[0] = __shfl_sync(0xffffffffu, v, lane * 3 + 5, 8);
  r[1] = __shfl_sync(0xffffffffu, v, -3, 16);
  r[2] = __shfl_up_sync(0xffffffffu, v, 3, 8);
  r[3] = __shfl_down_sync(0xffffffffu, v, 5, 8);
  r[4] = __shfl_xor_sync(0xffffffffu, v, 12, 8);
  r[5] = __shfl_down_sync(0xffffffffu, v, 33);
  r[6] = 0;
  if (lane % 3) {
    unsigned m = __activemask();
    r[6] = __ballot_sync(m, v & 1) ^ (m << 1);
  }
  r[7] = __match_any_sync(0xffffffffu, v % 5);
  r[8] = (unsigned)__reduce_min_sync(0xffffffffu, (int)v - 50);
  r[9] = __reduce_max_sync(0xffffffffu, v - 50);
  r[10] = __reduce_and_sync(0xffffffffu, v | 0x100) ^ __reduce_or_sync(0xffffffffu, v << 4) ^ __reduce_xor_sync(0xffffffffu, v * 7);
  int loc[16];
  for (int j = 0; j < 16; j++) loc[j] = (int)(v * (j + 1)) ^ j;
  loc[idx[i] & 15] += 1000;
  int acc = 0;
  for (int j = 0; j < 4; j++) acc += loc[idx[(i + j) % (n * gridDim.x * gridDim.y * gridDim.z)] & 15];
  r[11] = (unsigned)acc;
  r[12] = (unsigned)(int)c8[i] ^ ((unsigned)(unsigned char)c8[i] << 12);
  r[13] = (unsigned)(int)c16[i] + (unsigned)(unsigned short)c16[i];
  b8[i] = (signed char)(v * 37);
  b16[i] = (unsigned short)(c16[i] * 3 - 7);
  r[14] = blockIdx.y * 100 + blockIdx.z * 1000 + threadIdx.y * 10 + threadIdx.z + gridDim.y * 10000 + blockDim.z * 100000;
  r[15] = __syncthreads_count(v & 1) + (__syncthreads_and(v != 3) << 16) + (__syncthreads_or(v == 77) << 17);
}
`;
      const B = 64, N = 8 * B; // blocks of [8, 2, 4], a grid of [2, 2, 2]
      let h = 12345;
      const next = () => (h = (Math.imul(h, 1103515245) + 12345) >>> 0) >>> 8;
      const x = Uint32Array.from(
        { length: N },
        (_, i) => (i % 3 ? next() % 1000 : next() * 97) >>> 0,
      );
      x[5] = 3, x[70] = 77;
      const idx = Int32Array.from({ length: N }, () => next() - 2 ** 23);
      const c8 = Int8Array.from({ length: N }, () => next() & 0xff);
      const c16 = Int16Array.from({ length: N }, () => next() & 0xffff);
      const made = [x, idx, c8, c16, new Uint32Array(N * 16), new Int8Array(N), new Uint16Array(N)]
        .map((d) => client.createWithData(d));
      client.execute(
        { source, entryPoint: "k", blockSize: [8, 2, 4] } as CudaKernel,
        { threads: [16, 4, 8], buffers: made },
      );
      const [, , , , out, b8, b16] = await client.readMany(made) as [
        unknown,
        unknown,
        unknown,
        unknown,
        Uint32Array,
        Int8Array,
        Uint16Array,
      ];
      for (const m of made) m.dispose();
      const u = (v: number) => v >>> 0;
      const bad: string[] = [];
      for (let i = 0; i < N; i++) {
        const lane = i & 31, w0 = i - lane, warp = (l: number) => x[w0 + l];
        const blk = Math.floor(i / B), t = i % B, b0 = blk * B;
        const lanes = Array.from({ length: 32 }, (_, l) => l);
        const part = lanes.filter((l) => l % 3);
        const mask = part.reduce((m, l) => m | (1 << l), 0);
        const loc = Array.from({ length: 16 }, (_, j) => Math.imul(x[i], j + 1) ^ j);
        loc[idx[i] & 15] += 1000;
        const blockX = Array.from(x.slice(b0, b0 + B));
        const want = [
          warp(shflSource("idx", lane, lane * 3 + 5, (24 << 8) | 31)),
          warp(shflSource("idx", lane, -3, (16 << 8) | 31)),
          warp(shflSource("up", lane, 3, 24 << 8)),
          warp(shflSource("down", lane, 5, (24 << 8) | 31)),
          warp(shflSource("bfly", lane, 12, (24 << 8) | 31)),
          warp(shflSource("down", lane, 33, 31)),
          lane % 3 ? u(part.reduce((m, l) => m | ((warp(l) & 1) << l), 0) ^ (mask << 1)) : 0,
          u(lanes.reduce((m, l) => m | (warp(l) % 5 === x[i] % 5 ? 1 << l : 0), 0)),
          u(Math.min(...lanes.map((l) => (warp(l) | 0) - 50))),
          Math.max(...lanes.map((l) => u(warp(l) - 50))),
          u(
            lanes.reduce((a, l) => a & (warp(l) | 0x100), -1) ^
              lanes.reduce((a, l) => a | (warp(l) << 4), 0) ^
              lanes.reduce((a, l) => a ^ Math.imul(warp(l), 7), 0),
          ),
          u([0, 1, 2, 3].reduce((a, j) => (a + loc[idx[(i + j) % N] & 15]) | 0, 0)),
          u(c8[i] ^ ((c8[i] & 0xff) << 12)),
          u(c16[i] + (c16[i] & 0xffff)),
          (t >> 3 & 1) * 10 + (t >> 4) + (blk >> 1 & 1) * 100 + (blk >> 2) * 1000 + 20000 + 400000,
          blockX.filter((v) => v & 1).length + (blockX.every((v) => v !== 3) ? 1 << 16 : 0) +
          (blockX.some((v) => v === 77) ? 1 << 17 : 0),
        ];
        for (let k = 0; k < 16; k++) {
          if (out[i * 16 + k] !== want[k]) {
            bad.push(`thread ${i} output ${k}: got ${out[i * 16 + k]}, want ${want[k]}`);
          }
        }
        if (b8[i] !== ((Math.imul(x[i], 37) << 24) >> 24)) bad.push(`b8[${i}] = ${b8[i]}`);
        if (b16[i] !== ((c16[i] * 3 - 7) & 0xffff)) bad.push(`b16[${i}] = ${b16[i]}`);
      }
      assert.deepEqual(bad.slice(0, 20), []);
    });
  },
});

Deno.test({
  name: nvrtcName(
    "wave 4: inline PTX blocks scope their registers and labels (one asm inlined twice, " +
      "`.reg .pred p, q;` lists, names without '%'), %lanemask_le/gt/ge/eq",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const source = `
__device__ __forceinline__ unsigned step(unsigned x) {
  unsigned r;
  asm("{\\n\\t.reg .pred big, odd;\\n\\t.reg .b32 t;\\n\\tsetp.gt.u32 big, %1, 100;\\n"
      "\\tadd.u32 t, %1, 7;\\n\\t@big bra DONE;\\n\\tmul.lo.u32 t, t, 3;\\n"
      "DONE:\\n\\tand.b32 %0, t, 1;\\n\\tsetp.ne.u32 odd, %0, 0;\\n\\t@odd add.u32 t, t, 1000;\\n"
      "\\tmov.b32 %0, t;\\n}" : "=r"(r) : "r"(x));
  return r;
}
extern "C" __global__ void k(const unsigned* x, unsigned* out) {
  unsigned i = threadIdx.x, le, gt, ge, eq;
  out[5 * i] = step(step(x[i]));
  asm("mov.u32 %0, %%lanemask_le;" : "=r"(le));
  asm("mov.u32 %0, %%lanemask_gt;" : "=r"(gt));
  asm("mov.u32 %0, %%lanemask_ge;" : "=r"(ge));
  asm("mov.u32 %0, %%lanemask_eq;" : "=r"(eq));
  out[5 * i + 1] = le, out[5 * i + 2] = gt, out[5 * i + 3] = ge, out[5 * i + 4] = eq;
}`;
    const n = 64;
    const x = Uint32Array.from({ length: n }, (_, i) => (i * 37) % 160);
    const made = [x, new Uint32Array(5 * n)].map((d) => client.createWithData(d));
    client.execute({ source, entryPoint: "k", blockSize: [n, 1, 1] } as CudaKernel, {
      threads: n,
      buffers: made,
    });
    const out = (await client.read(made[1])) as Uint32Array;
    for (const m of made) m.dispose();
    const step = (v: number) => {
      let t = (v + 7) >>> 0;
      if (!(v > 100)) t = Math.imul(t, 3) >>> 0;
      return t & 1 ? t + 1000 : t;
    };
    for (let i = 0; i < n; i++) {
      const lane = i % 32, below = 2 ** lane - 1, upTo = 2 ** (lane + 1) - 1;
      assert.deepEqual(
        Array.from(out.slice(5 * i, 5 * i + 5)),
        [step(step(x[i])), upTo, (0xffffffff - upTo) >>> 0, (0xffffffff - below) >>> 0, 2 ** lane],
        `thread ${i}`,
      );
    }
    // hand-written PTX: a block's own %r1 shadows the function's and ends at its '}'
    const ptx = `.version 7.0
.target sm_75
.address_size 64
.visible .entry shadow(.param .u64 out) {
  .reg .b32 %r<4>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, 10;
  {
    .reg .b32 %r1;
    mov.u32 %r1, 5;
    add.u32 %r2, %r1, 1;
  }
  add.u32 %r3, %r1, %r2;
  st.global.u32 [%rd2], %r3;
  ret;
}`;
    const y = client.createWithData(new Uint32Array(1));
    client.execute({ ptx, entryPoint: "shadow", blockSize: [1, 1, 1] } as CudaKernel, {
      threads: 1,
      buffers: [y],
    });
    assert.deepEqual(Array.from((await client.read(y)) as Uint32Array), [16]); // 10 + (5 + 1)
    y.dispose();
  },
});

Deno.test({
  name: nvrtcName(
    "wave 4: atomicCAS of unsigned short (atom.cas.b16, sm_70): CAS loops on packed 16-bit " +
      "counters leave their neighbours alone",
  ),
  ignore,
  async fn() {
    await withSimEnv({ CUDA_SIM_CC: "90" }, async () => {
      using client = await simulatedCudaClient();
      const source = `
extern "C" __global__ void k(unsigned short* c, unsigned* olds) {
  unsigned i = threadIdx.x, k = i % 3;
  unsigned short old = c[k], seen;
  while ((seen = atomicCAS(&c[k], old, (unsigned short)(old + 0x0101))) != old) old = seen;
  olds[i] = old;
}`;
      const n = 96;
      const made = [Uint16Array.of(0xfff0, 7, 0x8000, 0xbeef), new Uint32Array(n)]
        .map((d) => client.createWithData(d));
      client.execute({ source, entryPoint: "k", blockSize: [n, 1, 1] } as CudaKernel, {
        threads: n,
        buffers: made,
      });
      const [c, olds] = (await client.readMany(made)) as [Uint16Array, Uint32Array];
      for (const m of made) m.dispose();
      const start = [0xfff0, 7, 0x8000];
      const per = n / 3;
      assert.deepEqual(Array.from(c), [
        ...start.map((s) => (s + per * 0x0101) & 0xffff),
        0xbeef, // the neighbour after the counters is untouched
      ]);
      for (let k = 0; k < 3; k++) { // each counter's old values: one of each step, in some order
        const got = Array.from(olds.filter((_, i) => i % 3 === k)).sort((a, b) => a - b);
        const want = Array.from({ length: per }, (_, j) => (start[k] + j * 0x0101) & 0xffff)
          .sort((a, b) => a - b);
        assert.deepEqual(got, want, `counter ${k}`);
      }
    });
  },
});

Deno.test({
  name: nvrtcName(
    "wave 4: a block past __launch_bounds__ / .maxntid (x*y*z) is a RangeError at the call, " +
      "a block other than .reqntid's a RangeError at the call (the driver's INVALID_VALUE on an " +
      "H200), and .reqntid the default block; within them it runs",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const count = async (kernel: CudaKernel, threads: number) => {
      const y = client.createWithData(new Uint32Array(1));
      try {
        client.execute(kernel, { threads, buffers: [y] });
        return ((await client.read(y)) as Uint32Array)[0];
      } finally {
        y.dispose();
      }
    };
    const source =
      `extern "C" __global__ void __launch_bounds__(64) k(unsigned* n) { atomicAdd(n, 1u); }`;
    await assert.rejects(
      count({ source, entryPoint: "k", blockSize: [128, 1, 1] } as CudaKernel, 256),
      (e) => e instanceof RangeError && /__launch_bounds__.*allows 64/.test(e.message),
    );
    assert.equal(
      await count({ source, entryPoint: "k", blockSize: [64, 1, 1] } as CudaKernel, 256),
      256,
    );
    const ptx = (bound: string) =>
      `.version 7.0
.target sm_75
.address_size 64
.visible .entry k(.param .u64 n) ${bound} {
  .reg .b64 %rd<3>;
  .reg .b32 %r<2>;
  ld.param.u64 %rd1, [n];
  cvta.to.global.u64 %rd2, %rd1;
  atom.global.add.u32 %r1, [%rd2], 1;
  ret;
}`;
    const maxntid = { ptx: ptx(".maxntid 32, 2, 1"), entryPoint: "k" };
    assert.equal(await count({ ...maxntid, blockSize: [32, 2, 1] }, 64), 128); // 2 blocks of 64
    await assert.rejects(count({ ...maxntid, blockSize: [32, 4, 1] }, 128), RangeError);
    const reqntid = { ptx: ptx(".reqntid 32, 1, 1"), entryPoint: "k" };
    assert.equal(await count({ ...reqntid, blockSize: [32, 1, 1] }, 96), 96);
    // no blockSize: blocks of .reqntid's 32 (the default 256 is what the driver would refuse)
    assert.equal(await count(reqntid, 96), 96);
    // PTX ISA: each dimension "is required to be equal"; NVIDIA's driver (580, H200) refused 64
    // with CUDA_ERROR_INVALID_VALUE: the runtime refuses it at the call, saying why
    for (const blockSize of [[64, 1, 1], [16, 1, 1], [16, 2, 1]] as const) {
      await assert.rejects(
        count({ ...reqntid, blockSize }, 32),
        (e) => e instanceof RangeError && /exactly \[32,1,1\] \(\.reqntid\)/.test(e.message),
      );
    }
    const reqntid2d = { ptx: ptx(".reqntid 8, 4"), entryPoint: "k" }; // z defaults to 1
    assert.equal(await count(reqntid2d, 64), 256); // threads [64, 1, 1]: 8 blocks of 8 x 4
    assert.equal(
      await count({ source, entryPoint: "k", blockSize: [32, 1, 1] } as CudaKernel, 64),
      64,
    );
  },
});

Deno.test({
  name: nvrtcName(
    "wave 4: a spin on a flag that a later thread or block sets ends the launch with " +
      "CUDA_ERROR_LAUNCH_TIMEOUT (the simulator runs threads one after another) instead of hanging " +
      "(the simulator's schedule: ignored on a real driver, whose threads run at once)",
  ),
  ignore: ignore || !onSimulator,
  async fn() {
    const source = `
extern "C" __global__ void k(int* flag, int* out, int waiter, int setter) {
  int me = blockIdx.x * blockDim.x + threadIdx.x;
  if (me == setter) { __threadfence(); *(volatile int*)flag = 1; }
  if (me == waiter) { while (*(volatile int*)flag == 0) {} out[0] = 1; }
}`;
    const run = async (waiter: number, setter: number) => {
      using client = await simulatedCudaClient();
      const made = [new Int32Array(1), new Int32Array(1)].map((d) => client.createWithData(d));
      client.execute({ source, entryPoint: "k", blockSize: [64, 1, 1] } as CudaKernel, {
        threads: 128,
        buffers: made,
        params: { waiter, setter },
      });
      return ((await client.read(made[1])) as Int32Array)[0];
    };
    await withSimEnv({ CUDA_SIM_SPIN_LIMIT: "5000" }, async () => {
      assert.equal(await run(70, 3), 1); // the flag was set by an earlier thread: the wait ends
      for (const [waiter, setter] of [[0, 1], [0, 40], [0, 64]]) { // same warp, warp, block
        await assert.rejects(run(waiter, setter), /CUDA_ERROR_LAUNCH_TIMEOUT \(702\)/);
      }
    });
  },
});

Deno.test({
  name: nvrtcName(
    "wave 4: atomicAdd(float*) flushes subnormal inputs and results (PTX ISA: atom.add.f32)",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const source = `
extern "C" __global__ void k(float* g, const float* add) { atomicAdd(&g[threadIdx.x], add[threadIdx.x]); }`;
    const t = 2 ** -130; // subnormal
    const g = Float32Array.of(0, 2 ** -125, t, 1, -(2 ** -125));
    const add = Float32Array.of(t, -1.5 * 2 ** -126, 1, t, 1.5 * 2 ** -126);
    const made = [g, add].map((d) => client.createWithData(d));
    client.execute({ source, entryPoint: "k", blockSize: [5, 1, 1] } as CudaKernel, {
      threads: 5,
      buffers: made,
    });
    const got = (await client.read(made[0])) as Float32Array;
    for (const m of made) m.dispose();
    // a subnormal input counts as 0 of its sign, a subnormal sum is 0 of its sign
    assert.deepEqual(Array.from(got, (v) => Object.is(v, -0) ? "-0" : v), [0, 0, 1, 1, "-0"]);
  },
});
