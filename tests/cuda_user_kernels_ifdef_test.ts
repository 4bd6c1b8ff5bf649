/**
 * CUDA C kernels defined more than once under `#if`/`#else` (or `#ifdef`), or with an `#if`'d
 * parameter in their list (as ggml, llm.c and the CUDA samples write them): `params` are taken
 * by the names of the definition NVRTC compiled, found from the PTX `.entry` (and the conditions
 * the runtime can decide: `-D` options, `__CUDA_ARCH__` of the PTX's `.target`). Definitions the
 * PTX cannot tell apart are refused by name (a `KernelArgumentError` naming the ambiguity) and
 * taken by position. Every value is checked exactly against the host's: a wrong variant packs
 * `params` in another order and fails them.
 */
import assert from "node:assert/strict";
import { nvrtcName, nvrtcSkip, onSimulator, simulatedCudaClient } from "./_cuda_nvrtc.ts";
import { withSimEnv } from "./fixtures/cuda_sim.ts";
import type { CudaKernel } from "../runtime/server/cuda/kernel.ts";
import { KernelArgumentError } from "../runtime/core/errors.ts";
import type { ComputeClient } from "../mod.ts";
import { conditionals, evaluate } from "../runtime/server/cuda/compile/_conditionals.ts";

const ignore = nvrtcSkip !== undefined;

/** `y[i] = i * scale + 0.5` for i < n: n and scale swapped give other values. */
const BODY = `{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = (float)(i * scale) + 0.5f;
}`;
const want = (length: number, n: number, scale: number) =>
  Float32Array.from({ length }, (_, i) => (i < n ? i * scale + 0.5 : 0));

async function run(
  client: ComputeClient,
  kernel: CudaKernel,
  params: Record<string, number> | number[],
): Promise<Float32Array> {
  using y = client.createWithData(new Float32Array(16));
  client.execute(kernel, { threads: 16, buffers: [y], params });
  return new Float32Array(await client.read(y));
}

/** Two definitions PTX compiles alike (`.u64, .u32, .u32`): only the architecture tells them. */
const byArch: CudaKernel = {
  id: "user.ifdef_arch",
  source: `#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
extern "C" __global__ void k(float* y, int n, int scale)
#else
extern "C" __global__ void k(float* y, int scale, int n)
#endif
${BODY}`,
};

Deno.test({
  name: nvrtcName(
    "#if __CUDA_ARCH__ variants alike in PTX: the one of the compiled architecture (the PTX's " +
      ".target) takes params by name, on compute capability 7.5 and 8.0",
  ),
  ignore,
  async fn() {
    const check = async () => {
      using client = await simulatedCudaClient();
      assert.deepEqual(await run(client, byArch, { n: 11, scale: 3 }), want(16, 11, 3));
      assert.deepEqual(await run(client, byArch, { scale: 5, n: 7 }), want(16, 7, 5));
    };
    if (!onSimulator) return await check();
    for (const cc of ["80", "75"]) await withSimEnv({ CUDA_SIM_CC: cc }, check);
  },
});

Deno.test({
  name: nvrtcName(
    "#ifdef variants by -D options: decided by the option where PTX cannot tell, by the PTX " +
      "parameter list where the macro is unknown",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const swapped = `#ifdef SWAP
extern "C" __global__ void k(float* y, int scale, int n)
#else
extern "C" __global__ void k(float* y, int n, int scale)
#endif
${BODY}`;
    for (const options of [["-DSWAP"], ["-DSWAP=1", "-DOTHER"], ["-USWAP"]]) {
      const kernel = { id: "user.ifdef_d", source: swapped, compileOptions: options };
      assert.deepEqual(await run(client, kernel, { n: 9, scale: 4 }), want(16, 9, 4));
    }
    // USE_OFFSET unknown: the PTX's count (3 or 4 parameters) tells the definitions apart
    const counted = `#ifdef USE_OFFSET
extern "C" __global__ void k(float* y, int n, int scale, float offset) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = (float)(i * scale) + offset;
}
#else
extern "C" __global__ void k(float* y, int scale, int n) ${BODY}
#endif`;
    const plain = { id: "user.ifdef_count", source: counted };
    assert.deepEqual(await run(client, plain, { n: 10, scale: 2 }), want(16, 10, 2));
    const offset = { ...plain, compileOptions: ["-DUSE_OFFSET"] };
    assert.deepEqual(
      await run(client, offset, { scale: 2, offset: 0.5, n: 10 }),
      want(16, 10, 2),
    );
  },
});

Deno.test({
  name: nvrtcName(
    "a parameter under #if in the middle of the list: present or not as NVRTC compiled it",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const source = `extern "C" __global__ void k(float* y,
#if HAS_BIAS
    float bias,
#endif
    int scale, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
#if HAS_BIAS
  if (i < n) y[i] = (float)(i * scale) + bias;
#else
  if (i < n) y[i] = (float)(i * scale) + 0.5f;
#endif
}`;
    const bias = { id: "user.ifdef_mid", source, compileOptions: ["-DHAS_BIAS=1"] };
    assert.deepEqual(await run(client, bias, { n: 13, bias: 0.5, scale: 6 }), want(16, 13, 6));
    // HAS_BIAS unknown here (0 for NVRTC): the PTX's three parameters
    const none = { id: "user.ifdef_mid0", source };
    assert.deepEqual(await run(client, none, { scale: 6, n: 13 }), want(16, 13, 6));
    assert.throws(
      () => client.execute(none, { threads: 16, buffers: [], params: { bias: 1, scale: 6, n: 1 } }),
      KernelArgumentError,
    );
  },
});

Deno.test({
  name: nvrtcName(
    "variants the PTX cannot tell apart and no certain condition: params by name refused with " +
      "a KernelArgumentError naming the ambiguity; by position they run, checked against the PTX",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const source = `#ifdef FOO_VARIANT
extern "C" __global__ void k(float* y, int scale, int n)
#else
extern "C" __global__ void k(float* y, int n, int scale)
#endif
${BODY}`;
    const kernel = { id: "user.ifdef_ambiguous", source };
    using y = client.createWithData(new Float32Array(16));
    assert.throws(
      () => client.execute(kernel, { threads: 16, buffers: [y], params: { n: 3, scale: 2 } }),
      (e: Error) =>
        e instanceof KernelArgumentError && e.argument === "params" &&
        /compiles alike \(\(float\* y, int scale, int n\) or \(float\* y, int n, int scale\)/
          .test(e.message) &&
        /by position/.test(e.message),
    );
    // NVRTC compiled the #else definition (FOO_VARIANT is not defined): n first
    assert.deepEqual(await run(client, kernel, [12, 3]), want(16, 12, 3));
    assert.throws(
      () => client.execute(kernel, { threads: 16, buffers: [y], params: [1.5, 3] }),
      KernelArgumentError,
    );
  },
});

Deno.test({
  name: nvrtcName(
    "C++-linkage (mangled) variants, and conditions on the source's own #defines: the compiled " +
      "definition takes params by name; a macro the source defines under an unknown #if is " +
      "not guessed",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    // _Z1kPfii for both: the architecture decides (every simulated device is sm_50 or newer)
    const cxx = `#if __CUDA_ARCH__ >= 500
static __global__ void k(float* y, int n, int scale)
#else
static __global__ void k(float* y, int scale, int n)
#endif
${BODY}`;
    const mangled = { id: "user.ifdef_cxx", source: cxx, entryPoint: "k" };
    assert.deepEqual(await run(client, mangled, { n: 5, scale: 7 }), want(16, 5, 7));
    // ORDER is the source's own (and OTHER is -D'd or -U'd): known, whatever the PTX says
    const defined = (order: number) =>
      `#define ORDER ${order}
#if 0
extern "C" __global__ void k(float* y, int n, int scale, int unused)
#elif ORDER == 2 && !defined(OTHER)
extern "C" __global__ void k(float* y, int scale, int n)
#else
extern "C" __global__ void k(float* y, int n, int scale)
#endif
${BODY}`;
    for (const [order, option] of [[2, "-UOTHER"], [3, "-UOTHER"], [2, "-DOTHER"]] as const) {
      const own = { id: "user.ifdef_own", source: defined(order), compileOptions: [option] };
      assert.deepEqual(await run(client, own, { n: 14, scale: 9 }), want(16, 14, 9));
    }
    // ORDER defined only under an unknown #ifdef: not known, and the PTX cannot tell: refused
    const guarded = `#ifdef SOME_HEADER_FLAG
#define ORDER 2
#endif
#if ORDER == 2
extern "C" __global__ void k(float* y, int scale, int n)
#else
extern "C" __global__ void k(float* y, int n, int scale)
#endif
${BODY}`;
    using y = client.createWithData(new Float32Array(16));
    assert.throws(
      () =>
        client.execute({ id: "user.ifdef_guarded", source: guarded } as CudaKernel, {
          threads: 16,
          buffers: [y],
          params: { n: 3, scale: 2 },
        }),
      (e: Error) => e instanceof KernelArgumentError && /compiles alike/.test(e.message),
    );
  },
});

Deno.test("the #if conditions the runtime decides: only those whose every name is known", () => {
  const known = new Map<string, string | null>([["A", "2"], ["B", "A + 1"], ["GONE", null]]);
  const cases: [string, number | undefined][] = [
    ["0", 0],
    ["1", 1],
    ["A == 2", 1],
    ["B * 2 == 6 && !GONE", 1],
    ["defined(A) && !defined GONE", 1],
    ["0 && UNKNOWN", 0],
    ["UNKNOWN || 1", 1],
    ["UNKNOWN == 0", undefined],
    ["defined(UNKNOWN)", undefined],
    ["__CUDA_ARCH__ >= 800", undefined],
    ["A ? 3 : UNKNOWN", 1],
    ["(A << 4) == 0x20 && 010 == 8 && 7 / 2 == 3 && -1 < 0", 1],
    ["F(1)", undefined],
    ["A +", undefined],
  ];
  for (const [expression, value] of cases) {
    assert.equal(evaluate(expression, known), value, expression);
  }
  const text = `#ifdef X
a
#elif defined(Y)
b
#else
c
#endif
#if __CUDA_ARCH__ >= 800
d
#endif`;
  const possible = (options: string[], target?: string) =>
    conditionals(text, options, target).groups.map((g) => g.possible);
  assert.deepEqual(possible([]), [[0, 1, 2], [0, -1]]);
  assert.deepEqual(possible(["-DX"], "sm_80"), [[0], [0]]);
  assert.deepEqual(possible(["-UX", "-DY=1"], "sm_75"), [[1], [-1]]);
  assert.deepEqual(possible(["-UX", "-UY"], "sm_90a"), [[2], [0]]);
});
