/**
 * QA wave 11: a PTX `.entry` without parameters — declared with no list (`.entry k { ... }`) or
 * an empty one (`.entry k () { ... }`), with performance directives (`.maxntid`, `.reqntid`,
 * `.minnctapersm`) before its body — is found, inferred as the module's one entry, launched with
 * zero parameters, and refuses buffers and params as any kernel does. And `compile` refuses a
 * block that `.reqntid` or `.maxntid` forbids with the launch's own error.
 */
import assert from "node:assert/strict";
import { KernelArgumentError } from "../mod.ts";
import type { CudaKernel } from "../runtime/server/cuda/kernel.ts";
import { ptxSignatures } from "../runtime/server/cuda/compile/signature.ts";
import { onSimulator, simulatedCudaClient } from "./_cuda_nvrtc.ts";
import { printfOutput, simDriver } from "./fixtures/cuda_sim.ts";

/**
 * What NVRTC writes for `__global__ void k() { if (threadIdx.x == 0) printf("t%u b%u\n", global
 * id, blockDim.x); }`, with the entry's header (`.visible .entry k()` and its directives) given.
 */
const printing = (header: string) =>
  `.version 7.0
.target sm_75
.address_size 64
.extern .func (.param .b32 func_retval0) vprintf
(
	.param .b64 vprintf_param_0,
	.param .b64 vprintf_param_1
)
;
.global .align 1 .b8 $str[9] = {116, 37, 117, 32, 98, 37, 117, 10, 0};

${header}${header.endsWith("{") ? "" : "\n{"}
	.local .align 8 .b8 	__local_depot0[8];
	.reg .b64 	%SP;
	.reg .b64 	%SPL;
	.reg .pred 	%p<2>;
	.reg .b32 	%r<6>;
	.reg .b64 	%rd<5>;

	mov.u64 	%SPL, __local_depot0;
	cvta.local.u64 	%SP, %SPL;
	add.u64 	%rd1, %SP, 0;
	add.u64 	%rd2, %SPL, 0;
	mov.u32 	%r1, %tid.x;
	setp.ne.s32 	%p1, %r1, 0;
	@%p1 bra 	$L__BB0_2;
	mov.u32 	%r2, %ctaid.x;
	mov.u32 	%r3, %ntid.x;
	mad.lo.s32 	%r4, %r2, %r3, %r1;
	st.local.u32 	[%rd2], %r4;
	st.local.u32 	[%rd2+4], %r3;
	mov.u64 	%rd3, $str;
	cvta.global.u64 	%rd4, %rd3;
	{ // callseq 0, 0
	.param .b64 param0;
	st.param.b64 	[param0+0], %rd4;
	.param .b64 param1;
	st.param.b64 	[param1+0], %rd1;
	.param .b32 retval0;
	call.uni (retval0), vprintf, (param0, param1);
	ld.param.b32 	%r5, [retval0+0];
	} // callseq 0
$L__BB0_2:
	ret;
}
`;

/** Headers of a parameterless entry `k`, and the block each launches by default. */
const HEADERS: [string, number][] = [
  [".visible .entry k", 256],
  [".entry k ()", 256],
  [".visible .entry k()\n.maxntid 16, 1, 1", 16],
  [".visible .entry k\n.maxntid 8, 2, 1\n.minnctapersm 2", 16],
  [".visible .entry k .reqntid 32", 32],
  [".visible .entry k .reqntid 32, 1, 1 .minnctapersm 1 {", 32], // the body's `{` on this line
  [".entry k{", 256],
];

Deno.test("qa11 ptx entries: a parameterless .entry's signature has no params and keeps its directives", () => {
  for (const [header, block] of HEADERS) {
    const [k, ...others] = ptxSignatures(printing(header));
    assert.equal(others.length, 0, header);
    assert.equal(k.name, "k", header);
    assert.deepEqual(k.params, [], header);
    assert.equal(k.maxThreads ?? k.requiredBlock?.[0] ?? 256, block, header);
  }
  // beside an entry with parameters, each keeps its own
  const two = ptxSignatures(
    `${printing(".visible .entry a .maxntid 64")}\n.visible .entry b(.param .u64 p) { ret; }`,
  );
  assert.deepEqual(two.map((s) => [s.name, s.params.length, s.maxThreads]), [
    ["a", 0, 64],
    ["b", 1, undefined],
  ]);
});

Deno.test("qa11 ptx entries: a parameterless PTX kernel is inferred, launches with zero params (its printf runs in each block of its default size), and refuses buffers and params", async () => {
  using client = await simulatedCudaClient();
  for (const [header, block] of HEADERS) {
    const kernel: CudaKernel = { ptx: printing(header) };
    printfOutput(); // forget earlier output
    await client.compile(kernel);
    client.execute(kernel, { threads: 40, buffers: [] });
    await client.sync();
    if (onSimulator) {
      const lines = printfOutput().split("\n").filter((l) => l !== "").sort();
      const blocks = Array.from(
        { length: Math.ceil(40 / block) },
        (_, i) => `t${i * block} b${block}`,
      );
      assert.deepEqual(lines, blocks.sort(), header);
    }
    using b = client.createWithData(new Uint32Array(1));
    assert.throws(
      () => client.execute(kernel, { threads: 1, buffers: [b] }),
      (e) =>
        e instanceof KernelArgumentError && /buffers has 1 handles, but k takes 0/.test(e.message),
      header,
    );
    assert.throws(
      () => client.execute(kernel, { threads: 1, buffers: [], params: [1] }),
      (e) =>
        e instanceof KernelArgumentError && /params has 1 values, but k takes 0/.test(e.message),
      header,
    );
  }
  // CUDA C beside PTX whose entry takes none: the parameters the C declares are refused, as
  // for any PTX that declares other sizes than the C (not passed to a kernel that reads none)
  const mismatched: CudaKernel = {
    ptx: printing(".visible .entry k"),
    source: 'extern "C" __global__ void k(int n) {}',
  };
  assert.throws(
    () => client.execute(mismatched, { threads: 1, buffers: [], params: { n: 1 } }),
    (e) => e instanceof TypeError && /takes 0 parameters of \[\] bytes/.test(e.message),
  );
  await client.sync(); // usable after the refusals
});

Deno.test("qa11 ptx entries: compile refuses a block .reqntid or .maxntid forbids with the launch's error; the allowed block compiles", async () => {
  using client = await simulatedCudaClient();
  const cases: [string, [number, number, number], RegExp][] = [
    [".visible .entry k .reqntid 64, 1, 1", [128, 1, 1], /requires blocks of exactly \[64,1,1\]/],
    [".visible .entry k() .reqntid 8, 8", [8, 4, 1], /requires blocks of exactly \[8,8,1\]/],
    [".visible .entry k\n.maxntid 64, 1, 1", [128, 1, 1], /\.maxntid\) allows 64/],
  ];
  for (const [header, blockSize, message] of cases) {
    const kernel: CudaKernel = { ptx: printing(header), blockSize };
    const launched = (() => {
      try {
        client.execute(kernel, { threads: 1, buffers: [] });
      } catch (e) {
        return e as Error;
      }
    })();
    assert.ok(launched instanceof RangeError && message.test(launched.message), header);
    const compiled = await client.compile(kernel).then(() => undefined, (e: Error) => e);
    assert.ok(compiled instanceof RangeError, `${header}: compile gave ${compiled}`);
    assert.equal(compiled.message, launched.message, header);
  }
  // the block each allows compiles (and the default one)
  const allowed: CudaKernel[] = [
    { ptx: printing(".visible .entry k .reqntid 64, 1, 1"), blockSize: [64, 1, 1] },
    { ptx: printing(".visible .entry k .reqntid 64, 1, 1") },
    { ptx: printing(".visible .entry k .maxntid 64"), blockSize: [32, 2, 1] },
  ];
  for (const kernel of allowed) await client.compile(kernel);
});

Deno.test({
  name:
    "qa11 ptx entries: the simulated driver reads a parameterless entry's .maxntid and .reqntid" +
    (onSimulator ? "" : " (skipped: the simulator's own)"),
  ignore: !onSimulator,
  fn() {
    const s = simDriver.symbols;
    const out = new BigUint64Array(1), out32 = new Int32Array(1);
    const cstring = (text: string) => new TextEncoder().encode(text + "\0");
    simDriver.check(s.cuInit(0), "cuInit");
    simDriver.check(s.cuDevicePrimaryCtxRetain(out, 0), "retain");
    simDriver.check(s.cuCtxSetCurrent(Deno.UnsafePointer.create(out[0])), "current");
    try {
      // header, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, a block the driver refuses (and its code)
      const cases: [string, number, number, number][] = [
        [".visible .entry k\n.maxntid 64, 1, 1\n.minnctapersm 2", 64, 128, 701], // OUT_OF_RESOURCES
        [".visible .entry k .reqntid 32", 32, 64, 1], // INVALID_VALUE
      ];
      for (const [header, max, refused, code] of cases) {
        simDriver.check(s.cuModuleLoadData(out, cstring(printing(header))), "module");
        const module = Deno.UnsafePointer.create(out[0]);
        simDriver.check(s.cuModuleGetFunction(out, module, cstring("k")), "function");
        const k = Deno.UnsafePointer.create(out[0]);
        simDriver.check(s.cuFuncGetAttribute(out32, 0, k), "attribute");
        assert.equal(out32[0], max, header);
        const launch = (block: number) =>
          s.cuLaunchKernel(k, 1, 1, 1, block, 1, 1, 0, null, new BigUint64Array(0), null);
        assert.equal(launch(refused), code, header);
        printfOutput();
        assert.equal(launch(max), 0, header);
        simDriver.check(s.cuCtxSynchronize(), "sync");
        assert.equal(printfOutput(), `t0 b${max}\n`, header);
        simDriver.check(s.cuModuleUnload(module), "unload");
      }
    } finally {
      s.cuCtxSetCurrent(null); // as the other raw-driver tests leave the thread
      s.cuDevicePrimaryCtxRelease_v2(0);
    }
  },
});
