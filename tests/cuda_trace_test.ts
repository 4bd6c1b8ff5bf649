/**
 * Traces on the CUDA server (simulated driver): every launched kernel once, timed by its own
 * timing-event pair, with the copies, host spans, waits and memory counter around it, and a file
 * that the Chrome trace format accepts.
 */
import assert from "node:assert/strict";
import { createClient, CubeCount } from "../mod.ts";
import { KernelArguments } from "../backend.ts";
import { CUDA_KERNELS, CudaServer } from "../runtime/server/cuda/mod.ts";
import { toChromeTrace } from "../runtime/trace/mod.ts";
import { traceFormatProblems } from "./_trace_format.ts";
import { CudaTraceLog, type TimedLaunch } from "../runtime/server/cuda/profile/_trace.ts";
import { hazardCount, hazardReport, resetHazards, SIM_LIBRARY } from "./fixtures/cuda_sim.ts";

const u32 = (values: number[]) => new Uint8Array(new Uint32Array(values).buffer);

Deno.test("a CUDA trace holds every launched kernel once, timed, in a valid Chrome trace", async () => {
  resetHazards();
  using server = CudaServer.create({ library: SIM_LIBRARY });
  using a = server.createWithData(u32(Array(256).fill(0)), 1);
  using b = server.createWithData(u32(Array(256).fill(0)), 2);
  const run = (handle: typeof a, stream: number) =>
    server.execute({
      kernel: CUDA_KERNELS.incrementU32,
      count: CubeCount.new1d(1),
      args: new KernelArguments().withBuffer(handle.ref()),
    }, stream);
  server.startTrace();
  // A per-kernel window shares the launches' timing events with the trace.
  const token = server.startProfile(1, { perKernel: true });
  for (let i = 0; i < 3; i++) run(a, 1);
  run(b, 2);
  const window = await server.endProfile(1, token);
  assert.equal(window.kernels?.length, 3);
  run(a, 2); // waits on stream 1
  server.write([{ descriptor: b.copyDescriptor([1], [1], 4), data: u32([40]) }], 2);
  await server.sync(0);
  const [bytes] = await server.read([a.copyDescriptor([1], [1], 4)], 1);
  const trace = await server.stopTrace();
  assert.deepEqual([...new Uint32Array(bytes.slice().buffer)], [4]);

  assert.equal(trace.backend, "cuda");
  assert.equal(trace.timing, "device");
  const kernels = trace.events.flatMap((e) => e.type === "kernel" ? [e] : []);
  assert.deepEqual(kernels.map((k) => k.stream), [1, 1, 1, 2, 2]);
  for (const k of kernels) {
    assert.equal(k.kernel, CUDA_KERNELS.incrementU32.id);
    assert.ok(k.start <= k.end, `${k.start} <= ${k.end}`);
    assert.ok(k.launched <= k.start + 1e-6, "aligned: no device start before its launch");
    assert.deepEqual(k.workgroups, [1, 1, 1]);
  }
  // Alignment: the tightest kernel starts exactly at its launch.
  assert.ok(kernels.some((k) => Math.abs(k.start - k.launched) < 1e-9));
  const types = (type: string) => trace.events.filter((e) => e.type === type);
  assert.deepEqual(types("wait").map((e) => e.type === "wait" && [e.stream, e.on]), [
    [2, 1],
    [1, 2], // the read of a on stream 1 after stream 2 used it
  ]);
  assert.deepEqual(
    types("copy").map((e) => e.type === "copy" && [e.kind, e.stream, e.bytes]),
    [["write", 2, 4], ["read", 1, 4]],
  );
  assert.deepEqual(types("sync").map((e) => e.type === "sync" && e.stream), [0]);
  assert.equal(types("read").length, 1);
  assert.equal(types("submit").length, 7, "one per kernel and copy");
  assert.ok(types("memory").length >= 2);
  const file = JSON.parse(JSON.stringify(toChromeTrace(trace)));
  assert.deepEqual(traceFormatProblems(file), []);
  assert.equal(hazardCount(), 0, hazardReport());
});

Deno.test("client.trace() works on CUDA (simulated)", async () => {
  resetHazards();
  using client = await createClient({ backend: "cuda", library: SIM_LIBRARY });
  using counts = client.createWithData(new Uint32Array(256), { stream: 1 });
  const recorder = client.trace();
  client.execute(CUDA_KERNELS.incrementU32, {
    stream: 1,
    count: CubeCount.new1d(1),
    buffers: [counts],
  });
  const [after] = await client.readMany([counts], Uint32Array, { stream: 1 });
  const trace = await recorder.stop();
  assert.equal(after[0], 1);
  assert.equal(trace.events.filter((e) => e.type === "kernel").length, 1);
  assert.deepEqual(traceFormatProblems(JSON.parse(JSON.stringify(toChromeTrace(trace)))), []);
  assert.equal(hazardCount(), 0, hazardReport());
});

Deno.test("a launch the driver refused is in a CUDA trace as never submitted, as on WebGPU", () => {
  const log = new CudaTraceLog();
  const timed = (kernel: string): TimedLaunch => ({
    kernel,
    stream: 0,
    workgroups: [1, 1, 1] as const,
    before: null,
    after: null,
    refs: 1,
  });
  const taken = timed("taken"), refused = timed("refused");
  log.kernel(taken)(); // the driver took it
  taken.after = Deno.UnsafePointer.create(1n);
  log.kernel(refused); // cuLaunchKernel failed: no submission
  const trace = log.finish({ backend: "cuda", device: "sim" }, () => 0.5);
  const kernels = trace.events.flatMap((e) => e.type === "kernel" ? [e] : []);
  const submits = trace.events.flatMap((e) => e.type === "submit" ? [e] : []);
  assert.deepEqual(kernels.map((k) => [k.kernel, k.submission]), [["refused", -1], ["taken", 0]]);
  assert.deepEqual(submits.map((s) => [s.id, s.kernels]), [[0, 1]]); // one, not two
  const point = kernels[0];
  assert.equal(point.start, point.launched);
  assert.equal(point.end, point.start);
});

Deno.test("endProfile with another stream than the window's: refused, the window stays open", async () => {
  using server = CudaServer.create({ library: SIM_LIBRARY });
  using a = server.createWithData(u32(Array(256).fill(0)), 1);
  const token = server.startProfile(1, { perKernel: true });
  server.execute({
    kernel: CUDA_KERNELS.incrementU32,
    count: CubeCount.new1d(1),
    args: new KernelArguments().withBuffer(a.ref()),
  }, 1);
  // It used to time from stream 1's start event to an end event on stream 2: a negative time.
  await assert.rejects(server.endProfile(2, token), {
    code: "PROFILE_NOT_REGISTERED",
    message: /opened on stream 1, not on stream 2/,
  });
  const duration = await server.endProfile(1, token);
  assert.deepEqual(duration.kernels?.map((k) => k.kernel), ["cuda.increment_u32"]);
  assert.ok(duration.milliseconds >= 0);
});
