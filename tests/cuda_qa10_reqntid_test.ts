/**
 * QA wave 10: a PTX kernel's `.reqntid` is its default block and the only one it takes, on every
 * path (threads and count launches, 2-D/3-D, several entries, graph capture, held launches,
 * other streams), and a refused block leaves the client usable.
 */
import assert from "node:assert/strict";
import { nvrtcName, nvrtcSkip, simulatedCudaClient } from "./_cuda_nvrtc.ts";
import { CompilationError, CpuTimelineSignal, CubeCount } from "../mod.ts";
import type { CudaKernel } from "../runtime/server/cuda/kernel.ts";

const ignore = nvrtcSkip !== undefined;

/** A PTX entry that counts its threads into `n[0]` and writes its block's size into `n[1]`. */
const entry = (name: string, directives: string) =>
  `.visible .entry ${name}(.param .u64 n) ${directives} {
  .reg .b64 %rd<3>;
  .reg .b32 %r<8>;
  ld.param.u64 %rd1, [n];
  cvta.to.global.u64 %rd2, %rd1;
  atom.global.add.u32 %r1, [%rd2], 1;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %ntid.y;
  mov.u32 %r4, %ntid.z;
  mul.lo.u32 %r5, %r2, %r3;
  mul.lo.u32 %r6, %r5, %r4;
  st.global.u32 [%rd2+4], %r6;
  ret;
}
`;
const module = (...entries: string[]) =>
  `.version 7.0\n.target sm_75\n.address_size 64\n${entries.join("\n")}`;

Deno.test({
  name: nvrtcName(
    "qa10 reqntid: 2-D/3-D .reqntid with threads and count launches, beside an entry with " +
      ".maxntid, and the entry chosen among several of different .reqntid; both on one entry " +
      "is refused at load, as ptxas refuses it",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const run = async (kernel: CudaKernel, launch: { threads?: number; count?: CubeCount }) => {
      using y = client.createWithData(new Uint32Array(2));
      client.execute(kernel, { ...launch, buffers: [y] });
      return [...(await client.read(y)) as Uint32Array];
    };
    const ptx = module(
      entry("a", ".reqntid 4, 2, 2"),
      entry("b", ".reqntid 64"),
      entry("c", ".reqntid 32, 2"),
      entry("d", ".maxntid 128"),
    );
    // threads 40 in x with [4,2,2] blocks: 10 blocks of 16 threads
    assert.deepEqual(await run({ ptx, entryPoint: "a" }, { threads: 40 }), [160, 16]);
    assert.deepEqual(await run({ ptx, entryPoint: "a" }, { count: CubeCount.new1d(3) }), [48, 16]);
    assert.deepEqual(await run({ ptx, entryPoint: "b" }, { threads: 65 }), [128, 64]);
    assert.deepEqual(await run({ ptx, entryPoint: "c" }, { count: CubeCount.new1d(2) }), [128, 64]);
    // .maxntid beside them: blocks of 128 by default (256 past the bound), 200 threads in 2
    assert.deepEqual(await run({ ptx, entryPoint: "d" }, { threads: 200 }), [256, 128]);
    assert.deepEqual(await run({ ptx, entryPoint: "d" }, { count: CubeCount.new1d(3) }), [
      384,
      128,
    ]);
    // both on one entry: ptxas refuses it at the entry's closing brace (line 32 here), as an
    // H100's JIT did (driver 580: CUDA_ERROR_INVALID_PTX at cuModuleLoadDataEx)
    const both = module(entry("a", ".reqntid 4, 2, 2"), entry("c", ".maxntid 128 .reqntid 32, 2"));
    await assert.rejects(
      run({ ptx: both, entryPoint: "c" }, { count: CubeCount.new1d(2) }),
      (e) =>
        e instanceof CompilationError && /CUDA_ERROR_INVALID_PTX/.test(e.message) &&
        e.message.includes(
          "ptxas application ptx input, line 32; error   : Conflicting directives: .maxntid " +
            "and .reqntid cannot both be specified\nptxas fatal   : Ptx assembly aborted due to " +
            "errors",
        ),
    );
    for (const [entryPoint, blockSize] of [["a", [4, 2, 1]], ["b", [32, 2, 1]]] as const) {
      assert.throws(
        () =>
          client.execute({ ptx, entryPoint, blockSize } as CudaKernel, {
            threads: 64,
            buffers: [],
          }),
        (e) => e instanceof RangeError && e.message.includes(".reqntid"),
      );
    }
    // the client stays usable, and the right block runs
    assert.deepEqual(await run({ ptx, entryPoint: "b", blockSize: [64, 1, 1] }, { threads: 64 }), [
      64,
      64,
    ]);
  },
});

Deno.test({
  name: nvrtcName(
    "qa10 reqntid: a graph capture, a launch held behind waitFor and one on another stream take " +
      ".reqntid's block; a refused block throws at the call on each path",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const kernel: CudaKernel = { ptx: module(entry("k", ".reqntid 8, 8")), entryPoint: "k" };
    const wrong: CudaKernel = { ...kernel, blockSize: [64, 1, 1] };
    using y = client.createWithData(new Uint32Array(2), { stream: 1 });
    // graph capture: the wrong block is refused at the call inside capture
    await assert.rejects(
      client.capture(() => client.execute(wrong, { threads: 64, buffers: [y], stream: 1 }), {
        stream: 1,
      }),
      RangeError,
    );
    {
      using graph = await client.capture(
        () => client.execute(kernel, { threads: 100, buffers: [y], stream: 1 }),
        { stream: 1 },
      );
      graph.replay();
      graph.replay();
    }
    assert.deepEqual([...(await client.read(y, { stream: 1 })) as Uint32Array], [2 * 13 * 64, 64]); // threads [100,1,1]: 13 blocks of 8 x 8
    // a launch held behind a gate, on stream 2
    const gate = new CpuTimelineSignal();
    client.waitFor(gate, 1, { stream: 2 });
    assert.throws(
      () => client.execute(wrong, { threads: 64, buffers: [y], stream: 2 }),
      RangeError,
    );
    client.execute(kernel, { threads: 64, buffers: [y], stream: 2 });
    setTimeout(() => gate.set(1), 5);
    assert.deepEqual([...(await client.read(y, { stream: 2 })) as Uint32Array], [
      1664 + 8 * 64,
      64,
    ]);
    // another stream, unheld
    client.execute(kernel, { count: CubeCount.new1d(1), buffers: [y], stream: 3 });
    assert.deepEqual([...(await client.read(y, { stream: 3 })) as Uint32Array], [2176 + 64, 64]);
    await client.sync();
  },
});

Deno.test({
  name: nvrtcName(
    "qa10 reqntid: a { ptx, source } kernel (signature from its CUDA C, as shipped) launches its " +
      "PTX with .reqntid's block and refuses another at the call; its .maxntid bounds the block",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const source = 'extern "C" __global__ void k(unsigned* n) { atomicAdd(n, 1u); }';
    const required: CudaKernel = {
      ptx: module(entry("k", ".reqntid 32")),
      source,
      entryPoint: "k",
    };
    using y = client.createWithData(new Uint32Array(2));
    // before: blocks of 256, which the driver refused (CUDA_ERROR_INVALID_VALUE)
    client.execute(required, { threads: 64, buffers: [y] });
    assert.deepEqual([...(await client.read(y)) as Uint32Array], [64, 32]);
    assert.throws(
      () =>
        client.execute({ ...required, blockSize: [64, 1, 1] } as CudaKernel, {
          threads: 64,
          buffers: [y],
        }),
      (e) => e instanceof RangeError && e.message.includes(".reqntid"),
    );
    const bounded: CudaKernel = { ptx: module(entry("k", ".maxntid 64")), source, entryPoint: "k" };
    assert.throws(
      () =>
        client.execute({ ...bounded, blockSize: [128, 1, 1] } as CudaKernel, {
          threads: 128,
          buffers: [y],
        }),
      (e) => e instanceof RangeError && e.message.includes("allows 64"),
    );
    client.execute(bounded, { threads: 128, buffers: [y] }); // default: 64, within the bound
    assert.deepEqual([...(await client.read(y)) as Uint32Array], [192, 64]);
  },
});
