/**
 * The conformance suite of the {@linkcode ComputeServer} contract, shared by every backend.
 * A backend's test file calls {@linkcode serverConformance} with a target that creates servers and
 * provides three kernels with the semantics documented on {@linkcode ConformanceKernels}.
 *
 * @module
 */

import assert from "node:assert/strict";
import {
  AllocationDescriptor,
  type ComputeServer,
  CubeCount,
  KernelArguments,
  type KernelMetadata,
} from "../backend.ts";
import { asF32, asU32, code, f32, meta, u32 } from "./_bytes.ts";
import { CpuTimelineSignal } from "../sync/cpu_signal.ts";

/**
 * Kernels every backend provides for the suite. Lengths come from metadata word 0; scalars are
 * passed with `KernelArguments.withScalar`.
 */
export interface ConformanceKernels<K extends KernelMetadata> {
  /** Buffers `[out: u32[]]`, metadata `[n]`, scalar u32 `[value]`: `out[i] = value` for i < n. */
  readonly fill: K;
  /**
   * Buffers `[a: f32[], b: f32[], out: f32[]]`, metadata `[n]`, scalar f32 `[s]`:
   * `out[i] = a[i] * s + b[i]` for i < n.
   */
  readonly scaleAdd: K;
  /** Buffers `[a: u32[]]`, no metadata nor scalars: `a[i] += 1` over the whole buffer. */
  readonly increment: K;
}

/** What the suite needs from a backend. */
export interface ConformanceTarget<K extends KernelMetadata> {
  /** Creates a fresh server (the suite destroys it). */
  createServer(): Promise<ComputeServer<K>>;
  /** The kernels. */
  readonly kernels: ConformanceKernels<K>;
  /** Invocations per cube of the kernels (1-D). */
  readonly cubeSize: number;
  /** Steps this backend skips, by step name, each with the reason (printed with the skip). */
  readonly skip?: Readonly<Record<string, string>>;
}

/** The name of the optional trace step, for backends that declare a skip of it. */
export const TRACE_STEP = "a trace holds every kernel launched while recording, once";

/** Runs every step of the contract against `target`. */
export async function serverConformance<K extends KernelMetadata>(
  t: Deno.TestContext,
  target: ConformanceTarget<K>,
): Promise<void> {
  const server = await target.createServer();
  const { fill, scaleAdd, increment } = target.kernels;
  const cubes = (n: number) => CubeCount.new1d(Math.ceil(n / target.cubeSize));
  const step = (name: string, fn: () => void | Promise<void>) => {
    const reason = target.skip?.[name];
    if (reason === undefined) return t.step(name, fn);
    return t.step({ name: `${name} (skipped: ${reason})`, ignore: true, fn });
  };
  try {
    await step("create contiguous and optimized", () => {
      const before = server.memoryUsage(0);
      const [a, b] = server.create([
        AllocationDescriptor.contiguous([3, 5], 4),
        AllocationDescriptor.optimized([2, 7], 2),
      ], 0);
      assert.deepEqual(a.strides, [5, 1]);
      assert.equal(a.handle.size(), 60);
      assert.equal(b.strides.length, 2);
      assert.ok(b.handle.size() >= 28 && b.strides[1] === 1 && b.strides[0] >= 7);
      const during = server.memoryUsage(0);
      assert.equal(during.numberAllocs, before.numberAllocs + 2);
      assert.ok(during.bytesInUse >= before.bytesInUse + 60 + 28);
      a.handle.dispose();
      b.handle.dispose();
      assert.equal(server.memoryUsage(0).numberAllocs, before.numberAllocs);
    });

    await step(
      "empty reserves bytes like create, on its stream; bad sizes are typed errors",
      async () => {
        const before = server.memoryUsage(2).numberAllocs;
        using bytes = server.empty(12, 2);
        using none = server.empty(0, 2);
        assert.deepEqual([bytes.size(), bytes.stream, none.size()], [12, 2, 0]);
        assert.equal(server.memoryUsage(2).numberAllocs, before + 2);
        server.write([{ descriptor: bytes.copyDescriptor([3], [1], 4), data: u32([4, 5, 6]) }], 2);
        const [back] = await server.read([bytes.copyDescriptor([3], [1], 4)], 2);
        assert.deepEqual(asU32(back), [4, 5, 6]);
        for (const bad of [-1, 1.5, Number.NaN]) {
          assert.throws(() => server.empty(bad, 2), RangeError);
        }
        assert.throws(() => server.empty("8" as unknown as number, 2), TypeError);
        assert.throws(() => server.empty(8, -1), RangeError);
        assert.equal(
          server.memoryUsage(2).numberAllocs,
          before + 2,
          "nothing reserved on bad input",
        );
      },
    );

    await step("createWithData, write and read of many in one call", async () => {
      using odd = server.createWithData(new Uint8Array([1, 2, 3, 4, 5, 6, 7]), 0);
      using words = server.createWithData(u32([10, 20, 30, 40]), 0);
      const [target1] = server.create([AllocationDescriptor.contiguous([3], 4)], 0);
      using written = target1.handle;
      server.write([{ descriptor: written.copyDescriptor([3], [1], 4), data: u32([7, 8, 9]) }], 0);
      using tail = words.withOffsetStart(8); // a second owner: disposed like any handle
      const [a, b, c, d] = await server.read([
        odd.copyDescriptor([7], [1], 1),
        words.copyDescriptor([4], [1], 4),
        written.copyDescriptor([3], [1], 4),
        tail.copyDescriptor([2], [1], 4),
      ], 0);
      assert.deepEqual([...a], [1, 2, 3, 4, 5, 6, 7]);
      assert.deepEqual(asU32(b), [10, 20, 30, 40]);
      assert.deepEqual(asU32(c), [7, 8, 9]);
      assert.deepEqual(asU32(d), [30, 40]);
    });

    await step("execute with a static count, then read", async () => {
      const n = 100;
      using out = server.createWithData(new Uint8Array(n * 4), 0);
      server.execute({
        kernel: fill,
        count: cubes(n),
        args: new KernelArguments().withBuffer(out.ref()).withMetadata(meta(n))
          .withScalar("u32", [42]),
      }, 0);
      using a = server.createWithData(f32([...Array(n).keys()]), 0);
      using b = server.createWithData(f32(Array(n).fill(0.5)), 0);
      using c = server.createWithData(new Uint8Array(n * 4), 0);
      server.execute({
        kernel: scaleAdd,
        count: cubes(n),
        args: new KernelArguments().withBuffers([a.ref(), b.ref(), c.ref()])
          .withMetadata(meta(n)).withScalar("f32", [3]),
      }, 0);
      const [filled, result] = await server.read([
        out.copyDescriptor([n], [1], 4),
        c.copyDescriptor([n], [1], 4),
      ], 0);
      assert.deepEqual(asU32(filled), Array(n).fill(42));
      assert.deepEqual(asF32(result), [...Array(n).keys()].map((i) => i * 3 + 0.5));
    });

    await step("execute with a dynamic count", async () => {
      const n = 4 * target.cubeSize;
      using counter = server.createWithData(u32([2, 1, 1]), 0); // only half the cubes
      using a = server.createWithData(u32(Array(n).fill(5)), 0);
      server.execute({
        kernel: increment,
        count: CubeCount.dynamic(counter.ref()),
        args: new KernelArguments().withBuffer(a.ref()),
      }, 0);
      const [bytes] = await server.read([a.copyDescriptor([n], [1], 4)], 0);
      const half = 2 * target.cubeSize;
      assert.deepEqual(asU32(bytes), [...Array(half).fill(6), ...Array(n - half).fill(5)]);
    });

    await step("flush and sync", async () => {
      using a = server.createWithData(u32([1, 2, 3, 4]), 3);
      for (let i = 0; i < 3; i++) {
        server.execute({
          kernel: increment,
          count: cubes(4),
          args: new KernelArguments().withBuffer(a.ref()),
        }, 3);
      }
      server.flush(3);
      await server.sync(3);
      const [bytes] = await server.read([a.copyDescriptor([4], [1], 4)], 3);
      assert.deepEqual(asU32(bytes), [4, 5, 6, 7]);
    });

    await step("signal marks a timeline after the stream's work, in order (optional)", async () => {
      // Optional in the contract: without it the client marks through sync.
      if (server.signal === undefined) return;
      const timeline = new CpuTimelineSignal();
      const order: number[] = [];
      const waits = [2, 1].map((v) => timeline.wait(v).then(() => order.push(v)));
      using a = server.createWithData(u32([0, 0]), 1);
      const bump = (stream: number) =>
        server.execute({
          kernel: increment,
          count: cubes(2),
          args: new KernelArguments().withBuffer(a.ref()),
        }, stream);
      bump(1);
      server.signal(timeline, 1n, 1);
      bump(2);
      server.signal(timeline, 2n, 2);
      await Promise.all(waits);
      assert.deepEqual(order, [1, 2]);
      server.signal(timeline, 1n, 1); // a lower mark never lowers the timeline
      await server.sync(1);
      assert.equal(timeline.value, 2n);
      const [bytes] = await server.read([a.copyDescriptor([2], [1], 4)], 1);
      assert.deepEqual(asU32(bytes), [2, 2]);
    });

    await step("memoryUsage and memoryCleanup", () => {
      const handles = server.create([AllocationDescriptor.contiguous([1 << 16], 4)], 0);
      assert.ok(server.memoryUsage(0).bytesReserved >= 1 << 18);
      for (const { handle } of handles) handle.dispose();
      server.memoryCleanup(0);
      const after = server.memoryUsage(0);
      assert.equal(after.numberAllocs, 0);
      assert.equal(after.bytesInUse, 0);
      assert.equal(after.bytesReserved, 0);
    });

    await step(
      "profiling windows nest; unknown tokens (or another stream's) are rejected",
      async () => {
        using a = server.createWithData(u32(Array(256).fill(0)), 0);
        const run = () =>
          server.execute({
            kernel: increment,
            count: cubes(256),
            args: new KernelArguments().withBuffer(a.ref()),
          }, 0);
        const outer = server.startProfile(0);
        run();
        const inner = server.startProfile(0);
        run();
        const innerTime = await server.endProfile(0, inner);
        run();
        const outerTime = await server.endProfile(0, outer);
        const timing = server.properties.deviceTimer ? "device" : "system";
        assert.equal(innerTime.timing, timing);
        assert.equal(outerTime.timing, timing);
        assert.ok(innerTime.milliseconds > 0 && outerTime.milliseconds >= innerTime.milliseconds);
        await assert.rejects(
          server.endProfile(0, outer),
          (e) => code(e) === "PROFILE_NOT_REGISTERED",
        );
        await assert.rejects(
          server.endProfile(0, { id: 9999 }),
          (e) => code(e) === "PROFILE_NOT_REGISTERED",
        );
        // Closed on another stream than its own: refused, and the window stays open.
        const other = server.startProfile(0);
        run();
        await assert.rejects(
          server.endProfile(1, other),
          (e) => code(e) === "PROFILE_NOT_REGISTERED",
        );
        assert.ok((await server.endProfile(0, other)).milliseconds > 0);
        const [bytes] = await server.read([a.copyDescriptor([256], [1], 4)], 0);
        assert.deepEqual(asU32(bytes), Array(256).fill(4));
      },
    );

    await step(
      "per-kernel windows list their own stream's kernels, or are UNSUPPORTED",
      async () => {
        using a = server.createWithData(u32(Array(256).fill(0)), 1);
        using b = server.createWithData(u32(Array(256).fill(0)), 2);
        const run = (handle: typeof a, stream: number) =>
          server.execute({
            kernel: increment,
            count: cubes(256),
            args: new KernelArguments().withBuffer(handle.ref()),
          }, stream);
        let token;
        try {
          token = server.startProfile(1, { perKernel: true });
        } catch (error) {
          assert.equal(code(error), "UNSUPPORTED", "only a server without a device timer refuses");
          assert.equal(server.properties.deviceTimer, false);
          return;
        }
        run(a, 1);
        run(b, 2); // another stream: not in the window
        run(a, 1);
        const duration = await server.endProfile(1, token);
        assert.deepEqual(duration.kernels?.map((k) => [k.kernel, k.stream, k.workgroups]), [
          [increment.id, 1, [Math.ceil(256 / target.cubeSize), 1, 1]],
          [increment.id, 1, [Math.ceil(256 / target.cubeSize), 1, 1]],
        ]);
        for (const k of duration.kernels!) assert.ok(k.end >= k.start);
        const [as, bs] = await server.read([
          a.copyDescriptor([256], [1], 4),
          b.copyDescriptor([256], [1], 4),
        ], 0);
        assert.deepEqual([asU32(as)[0], asU32(bs)[0]], [2, 1]);
      },
    );

    await step(TRACE_STEP, async () => {
      const { startTrace, stopTrace } = server;
      assert.ok(startTrace && stopTrace, "traces are optional: declare a skip with the reason");
      using a = server.createWithData(u32(Array(256).fill(0)), 1);
      const run = (stream: number) =>
        server.execute({
          kernel: increment,
          count: cubes(256),
          args: new KernelArguments().withBuffer(a.ref()),
        }, stream);
      run(1); // before the recording
      startTrace.call(server);
      assert.throws(() => startTrace.call(server), (e) => code(e) === "TRACE_ACTIVE");
      run(1);
      run(2);
      await server.sync(0);
      const trace = await stopTrace.call(server);
      run(1); // after it
      await assert.rejects(stopTrace.call(server), (e) => code(e) === "PROFILE_NOT_REGISTERED");
      const kernels = trace.events.flatMap((e) =>
        e.type === "kernel" ? [[e.kernel, e.stream]] : []
      );
      assert.deepEqual(kernels, [[increment.id, 1], [increment.id, 2]]);
      assert.deepEqual(
        trace.events.flatMap((e) => e.type === "wait" ? [[e.stream, e.on]] : []),
        [[2, 1]],
      );
      assert.equal(trace.timing, server.properties.deviceTimer ? "device" : "system");
      const [bytes] = await server.read([a.copyDescriptor([256], [1], 4)], 0);
      assert.equal(asU32(bytes)[0], 4);
    });

    await step("allocationMode persistent survives automatic use", async () => {
      server.allocationMode("persistent", 0);
      using kept = server.createWithData(u32([9, 8]), 0);
      server.allocationMode("auto", 0);
      assert.throws(() => server.allocationMode("bogus" as "auto", 0), RangeError);
      const [bytes] = await server.read([kept.copyDescriptor([2], [1], 4)], 0);
      assert.deepEqual(asU32(bytes), [9, 8]);
    });

    await step("getResource leases the memory until released", async () => {
      const a = server.createWithData(new Uint8Array(64), 0);
      const tail = a.withOffsetStart(16);
      const resource = server.getResource(tail.ref(), 0);
      tail.dispose();
      using base = server.getResource(a.ref(), 0);
      assert.equal(resource.size, 48);
      assert.equal(resource.offset, base.offset + 16);
      assert.equal(resource.resource, base.resource);
      const id = a.slice.record;
      a.dispose();
      assert.equal(id.released, false, "a lease keeps the memory");
      resource.release();
      resource.release();
      assert.equal(resource.released, true);
      base[Symbol.dispose]();
      await server.sync(0); // queued work on the memory may pin it until it runs
      assert.equal(id.released, true);
    });

    await step("staging is provided or UNSUPPORTED", () => {
      try {
        const buffers = server.staging([8, 16], 0);
        assert.deepEqual(buffers.map((b) => b.byteLength), [8, 16]);
      } catch (error) {
        assert.equal(code(error), "UNSUPPORTED");
      }
    });

    await step("copyTo another server, or UNSUPPORTED", async () => {
      const other = await target.createServer();
      try {
        using a = server.createWithData(u32([3, 1, 4, 1, 5]), 0);
        try {
          const { handle } = await server.copyTo(
            other as typeof server,
            a.copyDescriptor([5], [1], 4),
            { source: 0, destination: 1 },
          );
          using copied = handle;
          const [bytes] = await other.read([copied.copyDescriptor([5], [1], 4)], 1);
          assert.deepEqual(asU32(bytes), [3, 1, 4, 1, 5]);
        } catch (error) {
          assert.equal(code(error), "UNSUPPORTED");
        }
      } finally {
        other.destroy();
      }
    });

    await step("execute rejects malformed launches before enqueueing anything", async () => {
      using a = server.createWithData(u32([1, 2, 3, 4]), 0);
      const launch = (count: unknown, buffers: unknown[]) => () =>
        server.execute({
          kernel: increment,
          count: count as CubeCount,
          args: Object.assign(new KernelArguments(), { buffers }),
        }, 0);
      const good = CubeCount.new1d(1);
      assert.throws(launch({ kind: "static", x: -1, y: 1, z: 1 }, [a.ref()]), RangeError);
      assert.throws(launch({ kind: "static", x: 1.5, y: 1, z: 1 }, [a.ref()]), RangeError);
      assert.throws(launch({ kind: "bogus" }, [a.ref()]), TypeError);
      assert.throws(launch(null, [a.ref()]), TypeError);
      assert.throws(launch(good, [null]), TypeError);
      assert.throws(() => new KernelArguments().withScalar("u32", [-1]), RangeError);
      server.execute({
        kernel: increment,
        count: cubes(4),
        args: new KernelArguments().withBuffer(a.ref()),
      }, 0);
      const [bytes] = await server.read([a.copyDescriptor([4], [1], 4)], 0);
      assert.deepEqual(asU32(bytes), [2, 3, 4, 5]);
    });

    await step("destroy settles a pending read and sync with DESTROYED", async () => {
      const doomed = await target.createServer();
      using a = doomed.createWithData(u32([1, 2, 3]), 0);
      const read = doomed.read([a.copyDescriptor([3], [1], 4)], 0);
      const sync = doomed.sync(0);
      doomed.destroy();
      const destroyed = (e: unknown) => code(e) === "DESTROYED";
      await Promise.all([assert.rejects(read, destroyed), assert.rejects(sync, destroyed)]);
    });

    await step("destroy is idempotent; later calls throw DESTROYED", async () => {
      const doomed = await target.createServer();
      using a = doomed.createWithData(u32([1]), 0);
      doomed.destroy();
      doomed.destroy();
      assert.equal(doomed.destroyed, true);
      assert.throws(
        () => doomed.create([AllocationDescriptor.contiguous([1], 4)], 0),
        (e) => code(e) === "DESTROYED",
      );
      assert.throws(() => doomed.empty(4, 0), (e) => code(e) === "DESTROYED");
      assert.throws(() => doomed.flush(0), (e) => code(e) === "DESTROYED");
      await assert.rejects(
        doomed.read([a.copyDescriptor([1], [1], 4)], 0),
        (e) => code(e) === "DESTROYED",
      );
      await assert.rejects(doomed.sync(0), (e) => code(e) === "DESTROYED");
    });
  } finally {
    server.destroy();
  }
}
