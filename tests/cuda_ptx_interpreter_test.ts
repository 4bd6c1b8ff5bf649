/**
 * The simulated driver runs the PTX it is given: kernels compiled by nvcc from the CUDA C in
 * `tests/fixtures/ptx/` (committed with their PTX; `sh tests/fixtures/ptx/regenerate.sh` rebuilds
 * it) are launched through the CUDA backend and compared with CPU references, a user kernel named
 * like a shipped one runs the user's code, a construct the interpreter lacks is a load error naming
 * it, a bad address faults naming the thread and the PTX line, and the hazard checker sees the
 * bytes each launch really touched.
 */
import assert from "node:assert/strict";
import { CompilationError, CubeCount, type Handle, KernelArguments } from "../backend.ts";
import { CUDA_KERNELS, type CudaKernel, CudaServer } from "../runtime/server/cuda/mod.ts";
import {
  hazardCount,
  hazardReport,
  resetHazards,
  SIM_LIBRARY,
  simDriver,
} from "./fixtures/cuda_sim.ts";

const fixture = (name: string) =>
  Deno.readTextFileSync(new URL(`./fixtures/ptx/${name}.ptx`, import.meta.url));
const kernel = (
  file: string,
  entryPoint: string,
  blockSize: [number, number, number] = [128, 1, 1],
  extra: Partial<CudaKernel> = {},
): CudaKernel => ({
  id: `test.${entryPoint}`,
  entryPoint,
  blockSize,
  ptx: fixture(file),
  ...extra,
});

const f32 = (values: ArrayLike<number>) => new Uint8Array(Float32Array.from(values).buffer);
const u32 = (values: ArrayLike<number>) => new Uint8Array(Uint32Array.from(values).buffer);
const i32 = (values: ArrayLike<number>) => new Uint8Array(Int32Array.from(values).buffer);

/** Runs one launch on a fresh simulated server and reads the handles back (as raw bytes). */
async function launch(
  k: CudaKernel,
  inputs: Uint8Array[],
  count: CubeCount,
  metadata: number[],
  scalars: { f32?: number[] } = {},
): Promise<Uint8Array[]> {
  using server = CudaServer.create({ library: SIM_LIBRARY });
  const handles: Handle[] = inputs.map((bytes) => server.createWithData(bytes, 0));
  try {
    let args = new KernelArguments().withBuffers(handles.map((h) => h.ref()))
      .withMetadata({ data: Uint32Array.from(metadata), staticLength: metadata.length });
    if (scalars.f32) args = args.withScalar("f32", scalars.f32);
    server.execute({ kernel: k, count, args }, 0);
    return await server.read(
      handles.map((h, i) => h.copyDescriptor([inputs[i].length], [1], 1)),
      0,
    );
  } finally {
    for (const h of handles) h.dispose();
  }
}

const asF32 = (bytes: Uint8Array) => [...new Float32Array(bytes.slice().buffer)];
const asU32 = (bytes: Uint8Array) => [...new Uint32Array(bytes.slice().buffer)];
const asI32 = (bytes: Uint8Array) => [...new Int32Array(bytes.slice().buffer)];

Deno.test("saxpy over 100,000 threads (a partial last block) is exact against the CPU", async () => {
  resetHazards();
  const n = 100_000, a = 1.5;
  const x = Float32Array.from({ length: n }, (_, i) => (i % 97) * 0.25 - 8);
  const y = Float32Array.from({ length: n }, (_, i) => (i % 31) * 0.5);
  const [, out] = await launch(
    kernel("saxpy", "saxpy", [256, 1, 1]),
    [f32(x), f32(y)],
    CubeCount.new1d(Math.ceil(n / 256)),
    [n],
    { f32: [a] },
  );
  const got = asF32(out);
  for (let i = 0; i < n; i++) assert.equal(got[i], Math.fround(a * x[i] + y[i]), `y[${i}]`);
  assert.equal(hazardCount(), 0, hazardReport());
});

Deno.test("a user kernel named like a shipped one runs the user's code (add_f32 that subtracts)", async () => {
  const a = [7, 10, 2.5, -1], b = [4, 3, 0.5, 1];
  const k = kernel("add_f32", "add_f32");
  assert.notEqual(k.ptx, CUDA_KERNELS.addF32.ptx);
  const [, , out] = await launch(k, [f32(a), f32(b), f32([0, 0, 0, 0])], CubeCount.new1d(1), [4]);
  assert.deepEqual(asF32(out), [3, 7, 2, -2]);
});

Deno.test("a shared-memory tree reduction with bar.sync in dynamic shared memory", async () => {
  resetHazards();
  const n = 5000, block = 256, blocks = Math.ceil(n / block);
  const values = Array.from({ length: n }, (_, i) => (i * 7) % 23 - 11);
  const k = kernel("block_sum", "block_sum", [block, 1, 1], { sharedMemoryBytes: block * 4 });
  const [, out] = await launch(
    k,
    [f32(values), f32(new Array(blocks).fill(-1))],
    CubeCount.new1d(blocks),
    [n],
  );
  const expected = Array.from(
    { length: blocks },
    (_, b) => values.slice(b * block, (b + 1) * block).reduce((s, v) => s + v, 0),
  );
  assert.deepEqual(asF32(out), expected);
  assert.equal(hazardCount(), 0, hazardReport());
});

Deno.test("atomics: a shared-memory histogram, integer atomics and float atomicAdd", async () => {
  const n = 3000, nbins = 37;
  const data = Array.from({ length: n }, (_, i) => (i * 2654435761) >>> 0);
  const [, bins] = await launch(
    kernel("atomics", "histogram"),
    [u32(data), u32(new Array(nbins).fill(0))],
    CubeCount.new1d(5),
    [n, nbins],
  );
  const expected = new Array(nbins).fill(0);
  for (const v of data) expected[v % nbins]++;
  assert.deepEqual(asU32(bins), expected);

  const ints = Array.from({ length: 1000 }, (_, i) => ((i * 7919) % 1001) - 500);
  const init = [-(2 ** 31), 2 ** 31 - 1, 0, 0, 0, -1, 0, 0];
  const [, out] = await launch(
    kernel("atomics", "atomics_misc"),
    [i32(ints), i32(init)],
    CubeCount.new1d(8),
    [ints.length],
  );
  const got = asI32(out);
  assert.equal(got[0], Math.max(...ints));
  assert.equal(got[1], Math.min(...ints));
  assert.equal(got[2], ints.length, "atomicCAS loop count");
  assert.equal(got[3], ints.reduce((s, v) => s | (1 << (v & 31)), 0));
  assert.equal(got[4], ints.reduce((s, v) => s ^ v, 0));
  assert.equal(got[5], ~0xffff);
  assert.ok(ints.includes(got[6]), "atomicExch leaves one of the values");
  assert.equal(got[7], ints.length % 10, "atomicInc wraps after 9");

  const floats = Array.from({ length: 999 }, (_, i) => (i % 9) - 3);
  const [, sums] = await launch(
    kernel("atomics", "atomic_add_f32"),
    [f32(floats), f32([0, 0, 0, 0])],
    CubeCount.new1d(8),
    [floats.length],
  );
  const expectedSums = [0, 1, 2, 3].map((r) =>
    floats.filter((_, i) => i % 4 === r).reduce((s, v) => s + v, 0)
  );
  assert.deepEqual(asF32(sums), expectedSums);
});

Deno.test("a 2-D grid: a tiled transpose through shared memory", async () => {
  resetHazards();
  const width = 45, height = 29;
  const input = Array.from({ length: width * height }, (_, i) => i * 0.5);
  const [, out] = await launch(
    kernel("transpose", "transpose", [16, 16, 1]),
    [f32(input), f32(new Array(width * height).fill(0))],
    CubeCount.new2d(Math.ceil(width / 16), Math.ceil(height / 16)),
    [width, height],
  );
  const got = asF32(out);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) assert.equal(got[x * height + y], input[y * width + x]);
  }
  assert.equal(hazardCount(), 0, hazardReport());
});

Deno.test("loops and branches, 64-bit arithmetic, division, a local array", async () => {
  const starts = Array.from({ length: 500 }, (_, i) => i + 1);
  const [, steps] = await launch(
    kernel("loops", "collatz"),
    [u32(starts), u32(new Array(500).fill(0))],
    CubeCount.new1d(4),
    [500],
  );
  const collatz = (v: number) => {
    let count = 0;
    while (v !== 1 && count < 1000) v = v % 2 === 0 ? v / 2 : 3 * v + 1, count++;
    return count;
  };
  assert.deepEqual(asU32(steps), starts.map(collatz));

  const values = Array.from({ length: 300 }, (_, i) => (i * 104729) % 5000);
  const [, out] = await launch(
    kernel("loops", "digits"),
    [u32(values), u32(new Array(300).fill(0))],
    CubeCount.new1d(3),
    [300],
  );
  const expected = values.map((v, i) => {
    const digitSum = [...String(v)].reduce((s, d) => s + Number(d), 0);
    const s = v - 1000;
    return (digitSum * 100000 + ((v & 15) ** 2 + i) + (s < 0 ? (-s) % 7 : Math.floor(s / 3))) >>> 0;
  });
  assert.deepEqual(asU32(out), expected);
});

Deno.test("float math: sqrt, reciprocal, exp, log, min/max, conversions and rounding", async () => {
  const n = 256;
  const x = Array.from({ length: n }, (_, i) => Math.fround((i - 128) * 0.37 + 0.5));
  const [, out, ints] = await launch(
    kernel("loops", "math_f32"),
    [f32(x), f32(new Array(4 * n).fill(0)), i32(new Array(2 * n).fill(0))],
    CubeCount.new1d(2),
    [n],
  );
  const got = asF32(out), gotInts = asI32(ints);
  const close = (a: number, b: number, what: string) =>
    assert.ok(Math.abs(a - b) <= 2e-6 * Math.max(1, Math.abs(b)), `${what}: ${a} vs ${b}`);
  const roundEven = (v: number) => {
    const r = Math.round(v);
    return Math.abs(v % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
  };
  for (let i = 0; i < n; i++) {
    const v = x[i];
    close(got[4 * i], Math.sqrt(Math.abs(v)) + 1 / (v * v + 1), `sqrt/rcp [${i}]`);
    close(got[4 * i + 1], Math.exp(v * 0.25), `exp [${i}]`);
    close(got[4 * i + 2], Math.log(Math.abs(v) + 1), `log [${i}]`);
    assert.equal(got[4 * i + 3], Math.fround(Math.min(Math.max(v, -2), 2) * i), `clamp [${i}]`);
    assert.equal(gotInts[2 * i], Math.trunc(v) | 0, `(int) [${i}]`);
    assert.equal(gotInts[2 * i + 1], roundEven(v) + Math.floor(v) * 1000, `rn/floor [${i}]`);
  }
});

Deno.test("float4 loads and stores (ld/st .v4)", async () => {
  const values = Array.from({ length: 64 }, (_, i) => i - 20);
  const [, out] = await launch(
    kernel("loops", "scale4"),
    [f32(values), f32(new Array(64).fill(0))],
    CubeCount.new1d(1),
    [16],
    { f32: [0.5] },
  );
  assert.deepEqual(asF32(out), values.map((v) => v * 0.5));
});

Deno.test("a PTX instruction the interpreter does not implement is a load error naming it", () => {
  using server = CudaServer.create({ library: SIM_LIBRARY });
  const ptx = ".version 7.0\n.target sm_75\n.address_size 64\n" +
    ".visible .entry k(.param .u64 p)\n{\n\t.reg .b64 %rd<3>; .reg .pred %p<2>;\n" +
    "\tld.param.u64 %rd1, [p];\n\tisspacep.global %p1, %rd1;\n\tret;\n}\n";
  assert.throws(
    () => server.compile({ id: "user.k", ptx, entryPoint: "k", blockSize: [32, 1, 1] }),
    (e) => {
      assert.ok(e instanceof CompilationError);
      assert.equal(e.line, 8);
      assert.match(e.message, /CUDA_ERROR_INVALID_PTX/);
      assert.match(
        e.message,
        /line 8; error {3}: cuda_sim does not implement the instruction 'isspacep'/,
      );
      return true;
    },
  );
});

Deno.test("an access outside every allocation faults: ILLEGAL_ADDRESS naming the thread and line", async () => {
  resetHazards();
  using server = CudaServer.create({ library: SIM_LIBRARY });
  using out = server.createWithData(new Uint8Array(4 * 100), 0);
  // n = 2^24 over a 100-float buffer: the first thread past the end of the memory page the
  // buffer was sub-allocated from faults (as on a device, the bytes of the page are mapped).
  server.execute({
    kernel: CUDA_KERNELS.fillF32,
    count: CubeCount.new1d(1 << 16),
    args: new KernelArguments().withBuffer(out.ref())
      .withMetadata({ data: new Uint32Array([1 << 24]), staticLength: 1 }).withScalar("f32", [1]),
  }, 0);
  await assert.rejects(server.read([out.copyDescriptor([100], [1], 4)], 0), /ILLEGAL_ADDRESS/);
  assert.match(
    hazardReport(),
    /fill_f32 on device 0: thread \(\d+,0,0\) of block \(\d+,0,0\), PTX line \d+: a write outside every allocation/,
  );
  resetHazards();
});

Deno.test("a misaligned access faults: MISALIGNED_ADDRESS", async () => {
  resetHazards();
  using server = CudaServer.create({ library: SIM_LIBRARY });
  using data = server.createWithData(new Uint8Array(64), 0);
  const ptx = ".version 7.0\n.target sm_75\n.address_size 64\n" +
    ".visible .entry misaligned(.param .u64 p)\n{\n\t.reg .b32 %r<2>;\n\t.reg .b64 %rd<2>;\n" +
    "\tld.param.u64 %rd1, [p];\n\tld.global.u32 %r1, [%rd1+2];\n\tret;\n}\n";
  server.execute({
    kernel: { id: "user.misaligned", ptx, entryPoint: "misaligned", blockSize: [1, 1, 1] },
    count: CubeCount.new1d(1),
    args: new KernelArguments().withBuffer(data.ref()),
  }, 0);
  // The read fails (with the fault, or as refused by the stream the fault made unhealthy); the
  // context's sticky error is the fault's.
  await assert.rejects(
    server.read([data.copyDescriptor([16], [1], 4)], 0),
    /MISALIGNED_ADDRESS|unhealthy/,
  );
  assert.equal(simDriver.symbols.cuCtxSynchronize(), 716, "CUDA_ERROR_MISALIGNED_ADDRESS");
  assert.match(
    hazardReport(),
    /misaligned on device 0: thread \(0,0,0\) of block \(0,0,0\), PTX line 9: misaligned access at address 0x[0-9a-f]+/,
  );
  resetHazards();
});

Deno.test("the hazard checker sees the bytes a launch touched, not its whole buffers", () => {
  resetHazards();
  const s = simDriver.symbols;
  const out = new BigUint64Array(1);
  const call = (result: number, what: string) => simDriver.check(result, what);
  const cstring = (text: string) => new TextEncoder().encode(text + "\0");
  call(s.cuInit(0), "cuInit");
  call(s.cuDevicePrimaryCtxRetain(out, 0), "retain");
  const ctx = Deno.UnsafePointer.create(out[0]);
  call(s.cuCtxSetCurrent(ctx), "current");
  try {
    call(s.cuModuleLoadData(out, cstring(CUDA_KERNELS.fillF32.ptx!)), "module");
    const module = Deno.UnsafePointer.create(out[0]);
    call(s.cuModuleGetFunction(out, module, cstring("fill_f32")), "function");
    const fill = Deno.UnsafePointer.create(out[0]);
    const streams = [0, 1].map(
      () => (call(s.cuStreamCreate(out, 1), "stream"), Deno.UnsafePointer.create(out[0])),
    );
    call(s.cuMemAlloc_v2(out, 2048n), "alloc");
    const memory = out[0];
    call(s.cuCtxSynchronize(), "sync"); // the allocation is ordered before both streams
    // fill(memory + offset, 256 floats) on a stream: the first or the second half of the buffer
    const run = (stream: number, offset: bigint) => {
      const slots = new BigUint64Array([memory + offset, 256n, 0n]);
      const base = BigInt(Deno.UnsafePointer.value(Deno.UnsafePointer.of(slots)));
      call(
        s.cuLaunchKernel(
          fill,
          2,
          1,
          1,
          128,
          1,
          1,
          0,
          streams[stream],
          new BigUint64Array([base, base + 8n, base + 16n]),
          null,
        ),
        "launch",
      );
    };
    run(0, 0n);
    run(1, 1024n);
    for (const stream of streams) call(s.cuStreamSynchronize(stream), "sync");
    assert.equal(hazardCount(), 0, `disjoint halves on two streams: ${hazardReport()}`);
    run(0, 0n);
    run(1, 512n); // overlaps the second quarter with the other stream's write, unordered
    for (const stream of streams) call(s.cuStreamSynchronize(stream), "sync");
    assert.equal(hazardCount(), 1, hazardReport());
    assert.match(hazardReport(), /fill_f32 on slot \d+ writes bytes \[512, 1024\)/);
    call(s.cuMemFree_v2(memory), "free");
    for (const stream of streams) call(s.cuStreamDestroy_v2(stream), "destroy");
    call(s.cuModuleUnload(module), "unload");
  } finally {
    s.cuCtxSetCurrent(null);
    s.cuDevicePrimaryCtxRelease_v2(0);
  }
  resetHazards();
});

Deno.test("a 1M-thread saxpy launch completes and is exact", async () => {
  const n = 1 << 20;
  const x = Float32Array.from({ length: n }, (_, i) => i % 1024);
  const y = Float32Array.from({ length: n }, (_, i) => (i >> 10) * 2);
  const started = performance.now();
  const [, out] = await launch(
    kernel("saxpy", "saxpy", [256, 1, 1]),
    [f32(x), f32(y)],
    CubeCount.new1d(n / 256),
    [n],
    { f32: [3] },
  );
  const ms = performance.now() - started;
  const got = new Float32Array(out.slice().buffer);
  for (let i = 0; i < n; i += 4099) assert.equal(got[i], 3 * x[i] + y[i], `y[${i}]`);
  assert.ok(got.every((v, i) => v === 3 * x[i] + y[i]));
  console.log(`1M-thread saxpy through the interpreter: ${ms.toFixed(0)} ms`);
});
