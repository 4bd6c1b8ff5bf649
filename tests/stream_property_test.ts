/**
 * Random programs over up to 8 streams on the simulated server (late, out-of-order execution
 * between streams), compared with a sequential reference that applies every op in program order.
 * Programs mix valid work with disposals, uses of disposed handles (each must fail with
 * `INVALID_HANDLE` and change nothing), event-loop turns that let the GC free memory for reuse,
 * and small GC bounds that force back-pressure. Plus fixed regression programs for the hazards of
 * `runtime/stream/event.ts` and a long synchronous loop whose memory must stay bounded.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { KernelArguments } from "../runtime/core/kernel_arguments.ts";
import { CubeCount } from "../runtime/core/cube_count.ts";
import type { Handle, HandleRef } from "../runtime/core/handles/handle.ts";
import type { CopyDescriptor } from "../runtime/core/allocation.ts";
import type { StreamId } from "../runtime/core/stream_id.ts";
import { type SimKernel, SimulatedServer } from "./fixtures/simulated_server.ts";
import type { SimStream } from "./fixtures/simulated_event_backend.ts";
import { InvalidHandleError } from "../runtime/core/errors.ts";

const N = 16; // bytes per buffer (u8 elements)

/** out[i] = a[i] + 3 * b[i] + c, on u8 (wrapping). */
function axpbKernel(id = "axpb"): SimKernel {
  return {
    id,
    run([a, b, out], scalars) {
      const c = scalars.get("u8")!.bytes[0];
      for (let i = 0; i < out.length; i++) out[i] = a[i] + 3 * b[i] + c;
    },
  };
}

function reference(a: Uint8Array, b: Uint8Array, c: number): Uint8Array {
  return a.map((x, i) => x + 3 * b[i] + c);
}

function launch(
  server: SimulatedServer,
  stream: StreamId,
  buffers: Handle[],
  c: number,
  id?: string,
) {
  const bindings = new KernelArguments().withBuffers(buffers.map((h) => h.ref())).withScalar("u8", [
    c,
  ]);
  server.execute({ kernel: axpbKernel(id), count: CubeCount.new1d(1), args: bindings }, stream);
}

function read(server: SimulatedServer, stream: StreamId, handle: Handle): Promise<Uint8Array> {
  return server.read([handle.copyDescriptor([N], [1], 1)], stream).then(([bytes]) => bytes);
}

type Command =
  | { op: "alloc"; s: number; data: number[] }
  | { op: "write"; s: number; h: number; data: number[] }
  | { op: "kernel"; s: number; a: number; b: number; out: number; c: number }
  | { op: "read"; s: number; h: number }
  | { op: "dispose"; h: number }
  | { op: "stale"; s: number; h: number; use: "write" | "kernel" | "read" }
  | { op: "steps"; n: number }
  | { op: "turn" };

const stream = fc.integer({ min: 0, max: 7 });
const bytes = fc.array(fc.integer({ min: 0, max: 255 }), { minLength: N, maxLength: N });
const slot = fc.nat(15);
const command: fc.Arbitrary<Command> = fc.oneof(
  fc.record({ op: fc.constant("alloc" as const), s: stream, data: bytes }),
  fc.record({ op: fc.constant("write" as const), s: stream, h: slot, data: bytes }),
  fc.record({
    op: fc.constant("kernel" as const),
    s: stream,
    a: slot,
    b: slot,
    out: slot,
    c: fc.integer({ min: 0, max: 255 }),
  }),
  fc.record({
    op: fc.constant("kernel" as const),
    s: stream,
    a: slot,
    b: slot,
    out: slot,
    c: fc.constant(0),
  }),
  fc.record({ op: fc.constant("read" as const), s: stream, h: slot }),
  fc.record({ op: fc.constant("dispose" as const), h: slot }),
  fc.record({
    op: fc.constant("stale" as const),
    s: stream,
    h: slot,
    use: fc.constantFrom("write" as const, "kernel" as const, "read" as const),
  }),
  fc.record({ op: fc.constant("steps" as const), n: fc.integer({ min: 1, max: 6 }) }),
  fc.record({ op: fc.constant("turn" as const) }),
);

const isInvalidHandle = (e: unknown) => e instanceof InvalidHandleError;

async function runProgram(
  maxStreams: number,
  seed: number,
  maxPendingGc: number,
  program: Command[],
  batchGc = false,
): Promise<void> {
  using server = new SimulatedServer({ maxStreams, seed, maxPendingGc, batchGc });
  const live: { handle: Handle; value: Uint8Array }[] = [];
  // Disposed handles with a binding and a descriptor taken before the dispose (their memory may
  // still be pinned by queued work: using them must fail all the same).
  const dead: { binding: HandleRef; descriptor: CopyDescriptor }[] = [];
  const reads: { issued: number; expected: Uint8Array; actual: Promise<Uint8Array> }[] = [];
  const refused: Promise<void>[] = [];
  for (const [at, cmd] of program.entries()) {
    const pick = (i: number) => live[i % live.length];
    if (cmd.op === "alloc") {
      const value = Uint8Array.from(cmd.data);
      live.push({ handle: server.createWithData(value, cmd.s), value });
    } else if (cmd.op === "steps") {
      for (let i = 0; i < cmd.n; i++) server.backend.step();
    } else if (cmd.op === "turn") {
      for (let i = 0; i < 4; i++) await Promise.resolve(); // the GC frees what completed
    } else if (cmd.op === "stale") {
      if (dead.length === 0 || live.length === 0) continue;
      const gone = dead[cmd.h % dead.length];
      const other = pick(cmd.h).handle.ref();
      const before = server.multiStream.state(cmd.s).cursor;
      if (cmd.use === "read") {
        const result = server.read([gone.descriptor], cmd.s);
        refused.push(assert.rejects(result, isInvalidHandle));
      } else if (cmd.use === "write") {
        const entry = { descriptor: gone.descriptor, data: new Uint8Array(N) };
        assert.throws(() => server.write([entry], cmd.s), isInvalidHandle);
      } else {
        const bindings = new KernelArguments().withBuffers([other, gone.binding, other])
          .withScalar("u8", [1]);
        const kernel = axpbKernel();
        assert.throws(
          () => server.execute({ kernel, count: CubeCount.new1d(1), args: bindings }, cmd.s),
          isInvalidHandle,
        );
      }
      assert.equal(server.multiStream.state(cmd.s).cursor, before, "a refused use changed state");
    } else if (live.length === 0) {
      continue;
    } else if (cmd.op === "write") {
      const target = pick(cmd.h);
      target.value = Uint8Array.from(cmd.data);
      server.write(
        [{ descriptor: target.handle.copyDescriptor([N], [1], 1), data: target.value }],
        cmd.s,
      );
    } else if (cmd.op === "kernel") {
      const [a, b, out] = [pick(cmd.a), pick(cmd.b), pick(cmd.out)];
      launch(server, cmd.s, [a.handle, b.handle, out.handle], cmd.c);
      out.value = reference(a.value, b.value, cmd.c);
    } else if (cmd.op === "read") {
      const target = pick(cmd.h);
      reads.push({
        issued: at,
        expected: target.value,
        actual: read(server, cmd.s, target.handle),
      });
    } else {
      const [{ handle }] = live.splice(cmd.h % live.length, 1);
      dead.push({ binding: handle.ref(), descriptor: handle.copyDescriptor([N], [1], 1) });
      handle.dispose();
    }
    assert.ok(server.multiStream.pendingGc <= maxPendingGc, "GC bound exceeded");
  }
  // Every live handle's final value, read on a random stream.
  for (const [i, target] of live.entries()) {
    const on = (seed + i) % 8;
    reads.push({ issued: -1, expected: target.value, actual: read(server, on, target.handle) });
  }
  await Promise.all(refused);
  const actual = await Promise.all(reads.map((r) => r.actual));
  reads.forEach((r, i) =>
    assert.deepEqual(actual[i], r.expected, `stale read issued at ${r.issued}`)
  );
  for (const { handle } of live) handle.dispose();
  await server.sync(0);
  await server.multiStream.drain();
  assert.equal(server.violations, 0, server.violationLog.join("; "));
  assert.deepEqual(server.pinnedMemory().map((id) => id.pins), [], "pins left after sync + drain");
  assert.ok(server.backend.hostWaitLog.every((w) => w.complete), "a host wait resolved early");
  assert.equal(server.backend.queued, 0);
  assert.equal(server.memoryUsage(0).numberAllocs, 0, "memory left after disposing every handle");
}

Deno.test("random multi-stream programs match the sequential reference", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.integer({ min: 1, max: 8 }),
      fc.integer({ min: 1, max: 2 ** 31 - 1 }),
      fc.integer({ min: 1, max: 8 }),
      fc.array(command, { minLength: 1, maxLength: 40 }),
      fc.boolean(), // batched GC of cross-stream pins (the CUDA server's) or one task per order
      runProgram,
    ),
    { numRuns: 250 },
  );
});

Deno.test("a synchronous loop of cross-stream kernels keeps memory bounded", async () => {
  using server = new SimulatedServer({ maxStreams: 4, seed: 9 });
  const data = Uint8Array.from({ length: N }, (_, i) => i);
  using out = server.createWithData(new Uint8Array(N), 1);
  let maxInUse = 0;
  for (let i = 0; i < 20_000; i++) {
    const input = server.createWithData(data, 0); // from stream 0's pool
    launch(server, 1, [input, input, out], i % 256); // used on stream 1: pinned until done
    input.dispose();
    maxInUse = Math.max(maxInUse, server.memoryUsage(0).numberAllocs);
  }
  assert.ok(maxInUse <= 2 * server.multiStream.maxPendingGc, `${maxInUse} allocations alive`);
  assert.deepEqual(await read(server, 2, out), reference(data, data, 19_999 % 256));
  await server.sync(0);
});

/** Runs `stream`'s queue as far as it goes (until empty or blocked, or `until` says stop). */
function runStream(server: SimulatedServer, s: SimStream, until = () => false): void {
  while (!until() && server.backend.stepStream(s));
}

Deno.test("regression programs of the cross-stream hazards", async (t) => {
  await t.step("written by a kernel on T, then read on S, is not stale", async () => {
    using server = new SimulatedServer({ maxStreams: 4 });
    const data = Uint8Array.from({ length: N }, (_, i) => i);
    using h = server.createWithData(data, 0);
    launch(server, 1, [h, h, h], 1); // T writes S's handle
    const result = read(server, 0, h);
    runStream(server, server.multiStream.state(0).stream); // the worst schedule: S first
    assert.deepEqual(await result, reference(data, data, 1));
    await server.sync(0);
    assert.equal(server.violations, 0);
  });
  await t.step("S's memory used on T then disposed is not reused early", async () => {
    using server = new SimulatedServer({ maxStreams: 4 });
    const a = Uint8Array.from({ length: N }, (_, i) => i + 1);
    const h = server.createWithData(a, 0);
    using out1 = server.createWithData(new Uint8Array(N), 1);
    using out2 = server.createWithData(new Uint8Array(N), 1);
    launch(server, 1, [h, h, out1], 0, "k1"); // syncs T with S and pins h
    launch(server, 1, [h, h, out2], 0, "k2"); // already synced: pinning only the bindings that needed a wait would miss h
    h.dispose();
    const [s, tStream] = [0, 1].map((id) => server.multiStream.state(id).stream);
    runStream(server, s);
    const atK2 = () => {
      const head = tStream.queue[0];
      return head?.kind === "op" && head.label === "k2";
    };
    runStream(server, tStream, atK2);
    assert.ok(atK2(), "schedule: T stopped before k2");
    runStream(server, server.backend.streams.find((x) => x !== s && x !== tStream)!);
    await server.multiStream.drain(); // unpinned, h would be released here, before k2 ran
    const reuse = server.createWithData(new Uint8Array(N).fill(200), 0); // S reuses freed slices
    runStream(server, s);
    assert.deepEqual(await read(server, 1, out2), reference(a, a, 0));
    reuse.dispose();
    await server.sync(0);
    assert.equal(server.violations, 0, server.violationLog.join("; "));
  });
});
