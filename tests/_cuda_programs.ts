/**
 * Random cross-stream programs for the CUDA server (shared by the simulated-driver property tests
 * and the real-driver test): commands over up to 8 streams and 12 handle slots, and a runner that
 * checks every read against a sequential reference. Runners of several servers can be stepped in
 * turn ({@linkcode runInterleaved}), so that two servers (two devices, two contexts) take turns on
 * the thread, each with work, host waits and GC polls in flight.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { CubeCount, type Handle, KernelArguments } from "../backend.ts";
import { CUDA_KERNELS, type CudaServer } from "../runtime/server/cuda/mod.ts";

const N = 64; // u32 elements per buffer
const SLOTS = 12;

export type Command =
  | { op: "alloc"; s: number; h: number; fill: number }
  | { op: "create"; s: number; t: number; h: number; fill: number }
  | { op: "write"; s: number; h: number; fill: number }
  | { op: "fill"; s: number; h: number; fill: number }
  | { op: "copy"; s: number; from: number; to: number }
  | { op: "increment"; s: number; h: number }
  | { op: "read"; s: number; h: number }
  | { op: "dispose"; h: number }
  | { op: "cleanup" }
  | { op: "yield" };

const stream = fc.integer({ min: 0, max: 7 });
const slot = fc.nat(SLOTS - 1);
const value = fc.nat(1000);
export const command: fc.Arbitrary<Command> = fc.oneof(
  {
    arbitrary: fc.record({ op: fc.constant("alloc" as const), s: stream, h: slot, fill: value }),
    weight: 3,
  },
  // An allocation without data, first written by a kernel on another stream: a page from
  // cuMemAllocAsync must be ordered before that first use.
  {
    arbitrary: fc.record({
      op: fc.constant("create" as const),
      s: stream,
      t: stream,
      h: slot,
      fill: value,
    }),
    weight: 2,
  },
  fc.record({ op: fc.constant("write" as const), s: stream, h: slot, fill: value }),
  fc.record({ op: fc.constant("fill" as const), s: stream, h: slot, fill: value }),
  {
    arbitrary: fc.record({ op: fc.constant("copy" as const), s: stream, from: slot, to: slot }),
    weight: 2,
  },
  {
    arbitrary: fc.record({ op: fc.constant("increment" as const), s: stream, h: slot }),
    weight: 2,
  },
  { arbitrary: fc.record({ op: fc.constant("read" as const), s: stream, h: slot }), weight: 2 },
  fc.record({ op: fc.constant("dispose" as const), h: slot }),
  fc.record({ op: fc.constant("cleanup" as const) }), // frees idle pages while work is queued
  fc.record({ op: fc.constant("yield" as const) }), // host waits and GC polls run meanwhile
);

const u32 = (values: Uint32Array) => new Uint8Array(values.buffer.slice(0));
const meta = { data: new Uint32Array([N]), staticLength: 1 };
const one = CubeCount.new1d(1);
/** The pages of a sliced pool are 1 MiB or so: a "create" this big takes a page of its own. */
const LARGE = 4 << 20;

/** Runs the commands of one program on one server, checking reads against the reference. */
export class ProgramRunner {
  readonly #server: CudaServer;
  readonly #handles = new Map<number, Handle>();
  readonly #model = new Map<number, Uint32Array>();
  readonly #reads: Promise<void>[] = [];

  constructor(server: CudaServer) {
    this.#server = server;
  }

  /** Applies one command (a `yield` waits a turn of the event loop). */
  async step(c: Command): Promise<void> {
    const server = this.#server;
    const handles = this.#handles, model = this.#model;
    const kernel = (s: number, kernel: typeof CUDA_KERNELS.fillU32, bindings: KernelArguments) =>
      server.execute({ kernel, count: one, args: bindings }, s);
    const fill = (s: number, handle: Handle, value: number) =>
      kernel(
        s,
        CUDA_KERNELS.fillU32,
        new KernelArguments().withBuffer(handle.ref()).withMetadata(meta).withScalar("u32", [
          value,
        ]),
      );
    const h = "h" in c ? handles.get(c.h) : undefined;
    switch (c.op) {
      case "alloc": {
        handles.get(c.h)?.dispose();
        const data = new Uint32Array(N).map((_, i) => c.fill + i);
        handles.set(c.h, server.createWithData(u32(data), c.s));
        model.set(c.h, data);
        break;
      }
      case "create": {
        handles.get(c.h)?.dispose();
        const handle = server.empty(c.h % 2 === 0 ? LARGE : N * 4, c.s);
        handles.set(c.h, handle);
        fill(c.t, handle, c.fill);
        model.set(c.h, new Uint32Array(N).fill(c.fill));
        break;
      }
      case "write": {
        if (!h) break;
        const data = new Uint32Array(N).fill(c.fill);
        server.write([{ descriptor: h.copyDescriptor([N], [1], 4), data: u32(data) }], c.s);
        model.set(c.h, data);
        break;
      }
      case "fill":
        if (!h) break;
        fill(c.s, h, c.fill);
        model.set(c.h, new Uint32Array(N).fill(c.fill));
        break;
      case "copy": {
        const from = handles.get(c.from), to = handles.get(c.to);
        if (!from || !to || c.from === c.to) break;
        kernel(
          c.s,
          CUDA_KERNELS.copyU32,
          new KernelArguments().withBuffers([from.ref(), to.ref()]).withMetadata(meta),
        );
        model.set(c.to, model.get(c.from)!.slice());
        break;
      }
      case "increment":
        if (!h) break;
        // One block: the first 256 words, whatever the buffer's size.
        kernel(c.s, CUDA_KERNELS.incrementU32, new KernelArguments().withBuffer(h.ref()));
        model.set(c.h, model.get(c.h)!.map((v) => v + 1));
        break;
      case "read": {
        if (!h) break;
        const expected = [...model.get(c.h)!];
        this.#reads.push(
          server.read([h.copyDescriptor([N], [1], 4)], c.s).then(([bytes]) => {
            assert.deepEqual([...new Uint32Array(bytes.buffer)], expected);
          }),
        );
        break;
      }
      case "cleanup":
        server.memoryCleanup(0);
        break;
      case "dispose":
        handles.get(c.h)?.dispose();
        handles.delete(c.h);
        model.delete(c.h);
        break;
      case "yield":
        await new Promise((resolve) => setTimeout(resolve, 0));
        break;
    }
  }

  /** Disposes the handles, waits for the reads (rejecting for a wrong one) and syncs. */
  async finish(): Promise<void> {
    for (const handle of this.#handles.values()) handle.dispose();
    this.#handles.clear();
    try {
      await Promise.all(this.#reads);
    } finally {
      await this.#server.sync(0);
    }
  }
}

/** Runs a program; rejects when a read differs from the reference. */
export async function run(server: CudaServer, program: Command[]): Promise<void> {
  const runner = new ProgramRunner(server);
  try {
    for (const c of program) await runner.step(c);
  } finally {
    await runner.finish();
  }
}

/**
 * Runs one program per server, interleaved: step `i` runs the next command of the program of
 * server `order[i] % servers` (then whatever is left, in turn). Rejects when a read differs from
 * its reference.
 */
export async function runInterleaved(
  runs: readonly { readonly server: CudaServer; readonly program: readonly Command[] }[],
  order: readonly number[],
): Promise<void> {
  const runners = runs.map(({ server }) => new ProgramRunner(server));
  const next = runs.map(() => 0);
  const left = () => runs.some((r, i) => next[i] < r.program.length);
  let failure: { error: unknown } | undefined;
  try {
    for (let i = 0; left(); i++) {
      let pick = (order[i] ?? i) % runs.length;
      while (next[pick] >= runs[pick].program.length) pick = (pick + 1) % runs.length;
      await runners[pick].step(runs[pick].program[next[pick]++]);
    }
  } catch (error) {
    failure = { error };
  }
  // Every runner finishes (handles disposed, reads settled, streams synced) whatever failed.
  const results = await Promise.allSettled(runners.map((runner) => runner.finish()));
  if (failure) throw failure.error;
  const rejected = results.find((r) => r.status === "rejected");
  if (rejected) throw (rejected as PromiseRejectedResult).reason;
}

/** Runs `sum_f32` and both matmul variants and checks them against a CPU reference. */
export async function checkShippedKernels(server: CudaServer): Promise<void> {
  const n = 4096, m = 33, k = 47, c = 29;
  const values = Float32Array.from({ length: n }, (_, i) => (i % 13) * 0.25 - 1);
  using input = server.createWithData(new Uint8Array(values.buffer), 0);
  using partial = server.createWithData(new Uint8Array(4 * (n / 256)), 0);
  server.execute({
    kernel: CUDA_KERNELS.sumF32,
    count: CubeCount.new1d(n / 256),
    args: new KernelArguments().withBuffers([input.ref(), partial.ref()])
      .withMetadata({ data: new Uint32Array([n]), staticLength: 1 }),
  }, 0);
  const [sums] = await server.read([partial.copyDescriptor([n / 256], [1], 4)], 0);
  const total = new Float32Array(sums.slice().buffer).reduce((a, b) => a + b, 0);
  assert.ok(Math.abs(total - values.reduce((a, b) => a + b, 0)) < 1e-3);
  const a = Float32Array.from({ length: m * k }, (_, i) => (i * 7 % 13) * 0.25 - 1);
  const b = Float32Array.from({ length: k * c }, (_, i) => (i * 5 % 11) * 0.5 - 2);
  const reference = Array.from({ length: m * c }, (_, i) => {
    let acc = 0;
    for (let p = 0; p < k; p++) acc += a[Math.floor(i / c) * k + p] * b[p * c + (i % c)];
    return acc;
  });
  using da = server.createWithData(new Uint8Array(a.buffer), 0);
  using db = server.createWithData(new Uint8Array(b.buffer), 0);
  for (const kernel of [CUDA_KERNELS.matmulF32, CUDA_KERNELS.matmulTiledF32]) {
    using out = server.createWithData(new Uint8Array(4 * m * c), 0);
    server.execute({
      kernel,
      count: CubeCount.new2d(Math.ceil(c / 16), Math.ceil(m / 16)),
      args: new KernelArguments().withBuffers([da.ref(), db.ref(), out.ref()])
        .withMetadata({ data: new Uint32Array([m, k, c]), staticLength: 3 }),
    }, 0);
    const [bytes] = await server.read([out.copyDescriptor([m * c], [1], 4)], 0);
    const got = [...new Float32Array(bytes.slice().buffer)];
    got.forEach((v, i) => assert.ok(Math.abs(v - reference[i]) < 1e-4, `${kernel.id} [${i}]`));
  }
}
