/**
 * QA wave 8: the verdicts of other devices' work (client/timeline/_device_deps.ts) on the
 * simulated CUDA driver, where they could be skipped: a producer destroyed behind its fault,
 * helpers and views fed a copy from a faulted device, two copies' failures in one sync, a
 * consumer destroyed while verdicts are pending, what a failed copy loses (a kernel's outputs,
 * not its const inputs), and random programs over three devices (tests/_verdict_programs.ts).
 */
import assert from "node:assert/strict";
import {
  argmax,
  type ComputeError,
  createClients,
  type CudaClient,
  cumsum,
  dot,
  listDevices,
  reduce,
} from "../mod.ts";
import { CUDA_KERNELS, type CudaKernel, CudaServer } from "../runtime/server/cuda/mod.ts";
import { CubeCount, type HandleRef, KernelArguments } from "../backend.ts";
import fc from "fast-check";
import { within } from "./_device_programs.ts";
import { nvrtcName, nvrtcSkip } from "./_cuda_nvrtc.ts";
import { runVerdictProgram, VERDICT_FAIL_AT, verdictProgram } from "./_verdict_programs.ts";
import { keepBusy, SIM_LIBRARY, withSimEnv } from "./fixtures/cuda_sim.ts";

/** The sim's launch that faults, per context: the producer reaches it, consumers stay below. */
const FAIL_AT = 12;

async function onDevices(
  count: number,
  env: Record<string, string>,
  fn: (...clients: CudaClient[]) => Promise<void>,
): Promise<void> {
  const vars = { CUDA_SIM_DEVICES: String(count), CUDA_SIM_PEER: "all", ...env };
  await withSimEnv(vars, async () => {
    const clients = await createClients(
      await listDevices({ backend: "cuda", library: SIM_LIBRARY }),
    );
    // Taken at once: `client.server` throws once the test destroyed the client.
    const servers = clients.map((c) => c.server as CudaServer);
    try {
      await fn(...clients);
    } finally {
      clients[Symbol.dispose]();
      // The waits a destroy left parked return on Deno's pool in the background: the sanitizer
      // counts them, so the test ends after they did (their faults reached the calls already).
      await Promise.all(servers.map((s) => s.drained?.catch(() => {})));
    }
  });
}

/**
 * Keeps `client`'s stream 0 busy (a slow kernel), then, with `fault`, enqueues launches up to the
 * sim's FAIL_AT-th, which faults.
 */
function slowThen(client: CudaClient, fault: boolean): void {
  keepBusy(client);
  if (!fault) return;
  using x = client.createWithData(new Uint32Array([1]));
  for (let i = 2; i <= FAIL_AT; i++) {
    client.execute(CUDA_KERNELS.incrementU32, { threads: 1, buffers: [x] }); // the last faults
  }
}

const FAULT = /CUDA_ERROR_LAUNCH_FAILED/;
const code = (c: string) => (e: unknown) => (e as ComputeError).code === c;

// A destroyed producer's enqueued work drains with its context (docs/devices.md), so a copy from
// it lands; but when that work faults, the copy ran behind the fault: its bytes are not the
// source's, and the verdict the destroy cut short must say so.
for (const peer of ["all", "none"]) {
  Deno.test(`cuda: a copy from a producer destroyed before its fault showed is lost (${peer})`, async () => {
    for (const fault of [true, false]) {
      const env = { CUDA_SIM_PEER: peer, CUDA_SIM_LAUNCH_FAIL_AT: String(FAIL_AT) };
      await onDevices(2, env, async (a, b) => {
        slowThen(a, fault);
        using x = a.createWithData(new Float32Array([1, 2, 3, 4]));
        using y = a.copyTo(x, b);
        a.destroy(); // the fault, if any, shows during the drain
        const read = within(b.read(y), 5_000);
        if (fault) await assert.rejects(read, FAULT, `${peer}: not the source's bytes`);
        else assert.deepEqual([...await read], [1, 2, 3, 4], `${peer}: drained`);
        using z = b.createWithData(new Float32Array([5])); // b stays usable
        assert.deepEqual([...await b.read(z)], [5]);
        await b.sync();
      });
    }
  });
}

Deno.test("cuda: random programs over a producer that may fault and two consumers of its copies", async () => {
  await fc.assert(
    fc.asyncProperty(verdictProgram, fc.constantFrom("all", "none"), async (p, peer) => {
      const env = { CUDA_SIM_PEER: peer, CUDA_SIM_LAUNCH_FAIL_AT: String(VERDICT_FAIL_AT) };
      await onDevices(3, env, (a, b, c) => runVerdictProgram(a, [b, c], p));
    }),
    { numRuns: 30 },
  );
});

Deno.test("cuda: one sync reports the failures of two copies from a faulted source, once", async () => {
  await onDevices(2, { CUDA_SIM_LAUNCH_FAIL_AT: String(FAIL_AT) }, async (a, b) => {
    slowThen(a, true);
    using x = a.createWithData(new Uint32Array([1, 2]));
    a.copyTo(x, b).dispose(); // the copies land all the same; their verdicts are the stream's
    a.copyTo(x, b).dispose();
    await assert.rejects(within(b.sync(), 5_000), (e) => {
      assert.match(
        String(e),
        /^ComputeError: 2 errors on stream 0: .*LAUNCH_FAILED.*LAUNCH_FAILED/,
      );
      return true;
    });
    await b.sync(); // nothing left for the next sync
    await a.sync().catch(() => {});
  });
});

// The client learns from the CUDA server which buffers a kernel may write (`writtenBuffers`:
// not those bound to `const T*` in CUDA C), so a failed copy loses what was made from it, not
// the other memory a kernel or a read only read beside it.
const addConst = {
  source: `extern "C" __global__ void add_const(const float* a, const float* b, float* out) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < 4) out[i] = a[i] + b[i];
}`,
};

Deno.test({
  name: nvrtcName(
    "cuda: a failed copy loses a kernel's (or a graph's) outputs, not const inputs nor read memory",
  ),
  ignore: nvrtcSkip !== undefined,
  async fn() {
    for (const [peer, graph] of [["all", false], ["none", false], ["all", true]] as const) {
      const env = { CUDA_SIM_PEER: peer, CUDA_SIM_LAUNCH_FAIL_AT: String(FAIL_AT) };
      await onDevices(2, env, async (a, b) => {
        await b.compile(addConst); // before the producer's slow kernel runs
        slowThen(a, true);
        using x = a.createWithData(new Float32Array([1, 2, 3, 4]));
        using y = a.copyTo(x, b);
        using w = b.createWithData(new Float32Array([5, 5, 5, 5]), { stream: 1 });
        using read = b.createWithData(new Float32Array([6]), { stream: 2 });
        using z = b.zeros(4, "f32", { stream: 1 });
        if (graph) {
          using replayed = await b.capture(
            () => b.execute(addConst, { stream: 1, threads: 4, buffers: [y, w, z] }),
            { stream: 1 },
          );
          replayed.replay();
        } else b.execute(addConst, { stream: 1, threads: 4, buffers: [y, w, z] });
        // On the copy's stream, before its verdict: it may report the copy's failure (the stream's).
        const early = b.read(read).catch((e) => assert.match(String(e), FAULT));
        await assert.rejects(within<unknown>(b.read(z, { stream: 1 }), 5_000), FAULT, peer);
        await assert.rejects(b.read(y, { stream: 3 }), FAULT, "the copy is lost");
        await assert.rejects(b.read(z, { stream: 3 }), FAULT, "and what a kernel made from it");
        assert.deepEqual([...await b.read(w, { stream: 3 })], [5, 5, 5, 5], "a const input is not");
        await early;
        assert.deepEqual([...await b.read(read, { stream: 3 })], [6], "nor memory a read read");
        for (const stream of [0, 1, 2, 3]) await b.sync({ stream }).catch(() => {});
        await a.sync().catch(() => {});
      });
    }
  },
});

Deno.test("cuda: the shipped kernels' const inputs are not written (their CUDA C says so)", () => {
  // PTX keeps no const: the shipped kernels' signatures come from their CUDA C sources, so a
  // failed copy into `a` or `b` loses `out` only, and readers of `a` and `b` need not wait.
  using server = CudaServer.create({ library: SIM_LIBRARY });
  using a = server.createWithData(new Uint8Array(16), 0);
  using b = server.createWithData(new Uint8Array(16), 0);
  using out = server.createWithData(new Uint8Array(16), 0);
  const n = { data: new Uint32Array([4]), staticLength: 1 };
  const written = (kernel: CudaKernel, refs: HandleRef[], scalars: number[] = []) => {
    let args = new KernelArguments().withBuffers(refs).withMetadata(n);
    if (scalars.length > 0) args = args.withScalar("f32", scalars);
    return server.writtenBuffers({ kernel, count: CubeCount.new1d(1), args }).map((r) => r.slice);
  };
  const [ra, rb, ro] = [a.ref(), b.ref(), out.ref()];
  assert.deepEqual(written(CUDA_KERNELS.addF32, [ra, rb, ro]), [ro.slice], "add_f32");
  assert.deepEqual(
    written(CUDA_KERNELS.scaleAddF32, [ra, rb, ro], [2]),
    [ro.slice],
    "scale_add_f32",
  );
  assert.deepEqual(written(CUDA_KERNELS.copyU32, [ra, ro]), [ro.slice], "copy_u32");
  assert.deepEqual(written(CUDA_KERNELS.fillF32, [ro], [1]), [ro.slice], "fill_f32");
});

Deno.test({
  name: "cuda: destroying the consumer while verdicts are pending settles its calls with DESTROYED",
  async fn() {
    await onDevices(2, { CUDA_SIM_LAUNCH_FAIL_AT: String(FAIL_AT) }, async (a, b) => {
      slowThen(a, true);
      using x = a.createWithData(new Uint32Array([1, 2]));
      using y = a.copyTo(x, b);
      b.waitFor(a.timeline, a.signal(), { stream: 1 }); // on the device
      const pending: Promise<unknown>[] = [
        b.read(y),
        b.sync({ stream: 1 }),
        b.timeline.wait(b.signal({ stream: 1 })),
      ];
      const server = b.server as CudaServer;
      b.destroy();
      for (const call of pending) await assert.rejects(within(call, 5_000), code("DESTROYED"));
      await server.drained; // behind the device wait on the producer's faulted mark
      await assert.rejects(within(a.sync(), 5_000), FAULT); // the producer's own fault, once
      await within(a.sync(), 5_000).catch(() => {}); // (a faulted context stays unusable)
    });
  },
});

Deno.test({
  name: nvrtcName("cuda: helpers and primitives fed a copy from a faulted device fail their reads"),
  ignore: nvrtcSkip !== undefined,
  async fn() {
    await onDevices(2, { CUDA_SIM_LAUNCH_FAIL_AT: String(FAIL_AT) }, async (a, b) => {
      using warm = b.createWithData(new Float32Array([1, 2]));
      const made = [reduce(b, warm), cumsum(b, warm), argmax(b, warm), dot(b, [warm, warm])];
      await b.readMany(made); // compiled before the producer's slow kernel runs
      made.forEach((handle) => handle.dispose());
      slowThen(a, true);
      using x = a.createWithData(new Float32Array([1, 2, 3, 4]));
      using y = a.copyTo(x, b);
      using view = y.withOffsetStart(4);
      const results = [reduce(b, y), cumsum(b, view), argmax(b, view), dot(b, [y, y])];
      for (const result of results) {
        await assert.rejects(within<unknown>(b.read(result, { stream: 1 }), 5_000), FAULT);
        result.dispose();
      }
      for (const stream of [0, 1]) await b.sync({ stream }).catch(() => {});
      // The consumer's own launches stayed below the sim's faulting one: it is healthy.
      using z = b.createWithData(new Float32Array([7]));
      using sum = reduce(b, z);
      assert.deepEqual([...await b.read(sum)], [7]);
      await b.sync();
      await a.sync().catch(() => {});
    });
  },
});

// A -> B -> C: C's copy runs behind B's copy from A. Destroying B drops B's own verdicts, but C's
// copy still waits for A's: its bytes are not A's when A faulted (the random programs found it).
Deno.test("cuda: a copy relayed through a client destroyed before the first copy's verdict is lost", async () => {
  for (const peer of ["all", "none"]) {
    const env = { CUDA_SIM_PEER: peer, CUDA_SIM_LAUNCH_FAIL_AT: String(FAIL_AT) };
    await onDevices(3, env, async (a, b, c) => {
      slowThen(a, true);
      using x = a.createWithData(new Float32Array([1, 2, 3, 4]));
      using y = a.copyTo(x, b);
      using z = b.copyTo(y, c);
      b.destroy();
      await assert.rejects(within<unknown>(c.read(z), 5_000), FAULT, peer);
      await c.sync(); // reported once
      await a.sync().catch(() => {});
    });
  }
});

Deno.test("cuda: a write of all of a copy whose verdict is pending defines it: the copy's failure keeps it", async () => {
  await onDevices(2, { CUDA_SIM_LAUNCH_FAIL_AT: String(FAIL_AT) }, async (a, b) => {
    slowThen(a, true);
    using x = a.createWithData(new Uint32Array([1, 2]));
    using y = a.copyTo(x, b);
    using z = a.copyTo(x, b);
    b.write(y, new Uint32Array([7, 8]), { stream: 1 }); // after the copy, on the device too
    b.write(z, new Uint32Array([9]), { stream: 1, offset: 1 }); // a part: the rest is the copy's
    await assert.rejects(within<unknown>(b.read(z, { stream: 2 }), 5_000), FAULT);
    assert.deepEqual([...await within(b.read(y, { stream: 2 }), 5_000)], [7, 8]);
    await assert.rejects(b.read(z, { stream: 2 }), FAULT, "lost");
    for (const stream of [0, 1, 2]) await b.sync({ stream }).catch(() => {});
    await a.sync().catch(() => {});
  });
});
