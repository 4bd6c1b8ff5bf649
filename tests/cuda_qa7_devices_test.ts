/**
 * QA wave 7: docs/devices.md as a contract on the simulated CUDA driver with two devices, for
 * the claims the other device tests leave out: a producer's launch fault reaches a consumer whose
 * wait went to the device, a copy from a faulted producer, another client's handle and a
 * destroyed destination refused at the call on the CUDA routes, a destroyed source after copyTo.
 */
import assert from "node:assert/strict";
import {
  AbortedError,
  type ComputeError,
  CpuTimelineSignal,
  createClients,
  type CudaClient,
  listDevices,
} from "../mod.ts";
import { CUDA_KERNELS } from "../runtime/server/cuda/mod.ts";
import { within } from "./_device_programs.ts";
import { keepBusy, SIM_LIBRARY, withSimEnv } from "./fixtures/cuda_sim.ts";

async function onTwo(
  env: Record<string, string>,
  fn: (a: CudaClient, b: CudaClient) => Promise<void>,
): Promise<void> {
  await withSimEnv({ CUDA_SIM_DEVICES: "2", CUDA_SIM_PEER: "all", ...env }, async () => {
    using clients = await createClients(
      await listDevices({ backend: "cuda", library: SIM_LIBRARY }),
    );
    await fn(clients[0], clients[1]);
  });
}

const code = (c: string) => (e: unknown) => (e as ComputeError).code === c;

// The consumer's stream runs past a device wait (cuStreamWaitEvent) on a mark whose work faulted:
// what the host tells of its later work waits for the mark's verdict (client/timeline/_device_deps.ts).
for (const call of ["read", "sync"] as const) {
  Deno.test({
    name: `cuda: a producer's fault fails a consumer's ${call} after a wait on the device`,
    async fn() {
      await onTwo({ CUDA_SIM_LAUNCH_FAIL_AT: "2" }, async (producer, consumer) => {
        keepBusy(producer); // keeps the fault after the consumer's wait
        using x = producer.createWithData(new Uint32Array([1]));
        producer.execute(CUDA_KERNELS.incrementU32, { threads: 1, buffers: [x] }); // faults
        const mark = producer.signal();
        using y = consumer.createWithData(new Uint32Array([5]), { stream: 1 });
        consumer.waitFor(producer.timeline, mark, { stream: 1 }); // cuStreamWaitEvent
        consumer.execute(CUDA_KERNELS.incrementU32, { stream: 1, threads: 1, buffers: [y] });
        const held = call === "read"
          ? consumer.read(y, { stream: 1 })
          : consumer.sync({ stream: 1 });
        // The doc: every wait for a mark that is never reached rejects with AbortedError. On the
        // device the consumer's kernel ran past it: its read must not return that as a result.
        await assert.rejects(within<unknown>(held, 5_000), (e) => {
          assert.ok(e instanceof AbortedError, `an AbortedError, got ${e}`);
          assert.match(e.message, new RegExp(`Timeline value ${mark} of client \\d+ \\(`));
          return true;
        });
        await consumer.sync({ stream: 1 }); // reported once
        await assert.rejects(within(producer.timeline.wait(mark), 1_000), AbortedError);
        await assert.rejects(producer.sync(), /CUDA_ERROR_LAUNCH_FAILED|unhealthy/);
      });
    },
  });
}

Deno.test("cuda: copyTo refuses another client's handle and a destroyed destination", async () => {
  for (const peer of ["all", "none"]) {
    await onTwo({ CUDA_SIM_PEER: peer }, async (a, b) => {
      using x = b.createWithData(new Uint32Array([1, 2, 3]));
      assert.throws(
        () => a.copyTo(x, b),
        (e) => code("INVALID_HANDLE")(e) && /handle/i.test(String(e)),
      );
      using z = a.createWithData(new Uint32Array([7, 8]));
      using w = a.copyTo(z, b);
      assert.deepEqual([...await b.read(w)], [7, 8]);
      assert.deepEqual([...await b.read(x)], [1, 2, 3]);
      b.destroy();
      assert.throws(() => a.copyTo(z, b), code("DESTROYED"));
      assert.deepEqual([...await a.read(z)], [7, 8]); // a stays usable
    });
  }
});

// A copy whose source work faulted lands on the destination's device all the same (the staged
// route with the pinned buffer's old bytes, the peer route with the bytes from before the faulted
// kernel): the new handle is lost once the source side's failure is known.
for (const peer of ["all", "none"]) {
  Deno.test({
    name: `cuda: a copy after the source's work faulted fails the destination's read (${peer})`,
    async fn() {
      await onTwo({ CUDA_SIM_PEER: peer, CUDA_SIM_LAUNCH_FAIL_AT: "2" }, async (a, b) => {
        keepBusy(a); // keeps the fault after copyTo
        using x = a.createWithData(new Uint32Array([1, 2]));
        a.execute(CUDA_KERNELS.incrementU32, { threads: 2, buffers: [x] }); // faults
        using y = a.copyTo(x, b);
        // The source's fault, as the source's own calls get it (a failed copy passes its error on).
        await assert.rejects(within<unknown>(b.read(y), 5_000), /CUDA_ERROR_LAUNCH_FAILED/);
        await b.sync(); // reported once
        assert.throws(() => b.execute(CUDA_KERNELS.incrementU32, { threads: 2, buffers: [y] }));
        await assert.rejects(a.sync(), /CUDA_ERROR_LAUNCH_FAILED|unhealthy/);
      });
    },
  });
}

Deno.test("cuda: destroying the source after copyTo: an enqueued copy lands, a held one fails", async () => {
  for (const peer of ["all", "none"]) {
    await onTwo({ CUDA_SIM_PEER: peer }, async (a, b) => {
      using x = a.createWithData(new Uint32Array([1, 2]));
      using y = a.copyTo(x, b); // enqueued on the devices
      const gate = new CpuTimelineSignal();
      a.waitFor(gate, 1); // the next copy waits behind this on a's stream
      using z = a.copyTo(x, b); // holds b's stream 0 (its destination stream) until enqueued
      a.destroy();
      assert.deepEqual([...await within(b.read(y, { stream: 1 }), 5_000)], [1, 2], peer);
      await assert.rejects(within<unknown>(b.read(z), 5_000), code("DESTROYED"));
    });
  }
});

/** Keeps `client`'s stream 0 busy, then enqueues a kernel that faults (the sim's 2nd launch). */
function faultLater(client: CudaClient): void {
  keepBusy(client);
  using x = client.createWithData(new Uint32Array([1]));
  client.execute(CUDA_KERNELS.incrementU32, { threads: 1, buffers: [x] }); // faults
}

Deno.test("cuda: a consumer's mark behind a device wait on a faulted mark is never reached", async () => {
  await onTwo({ CUDA_SIM_LAUNCH_FAIL_AT: "2" }, async (producer, consumer) => {
    faultLater(producer);
    const mark = producer.signal();
    consumer.waitFor(producer.timeline, mark, { stream: 1 }); // on the device
    using y = consumer.createWithData(new Uint32Array([5]), { stream: 1 });
    consumer.execute(CUDA_KERNELS.incrementU32, { stream: 1, threads: 1, buffers: [y] });
    const next = consumer.signal({ stream: 1 });
    await assert.rejects(within(consumer.timeline.wait(next), 5_000), (e) => {
      assert.ok(e instanceof AbortedError, `an AbortedError, got ${e}`);
      assert.match(e.message, new RegExp(`Timeline value ${next} of client \\d+ \\(cuda`));
      return true;
    });
    await assert.rejects(consumer.sync({ stream: 1 }), AbortedError); // reported once
    await consumer.sync({ stream: 1 });
    // The timeline stays broken from that value on (docs/devices.md), on every stream.
    const later = consumer.signal({ stream: 2 });
    await assert.rejects(within(consumer.timeline.wait(later), 5_000), AbortedError);
    await producer.sync().catch(() => {});
  });
});

Deno.test("cuda: memory made from a copy whose source faulted is lost, and defined again by a write", async () => {
  for (const peer of ["all", "none"]) {
    await onTwo({ CUDA_SIM_PEER: peer, CUDA_SIM_LAUNCH_FAIL_AT: "2" }, async (a, b) => {
      faultLater(a);
      using x = a.createWithData(new Float32Array([1, 2, 3, 4]));
      using y = a.copyTo(x, b);
      using z = b.zeros(4, "f32");
      using other = b.createWithData(new Float32Array([9, 9, 9, 9]), { stream: 2 });
      const meta = { data: new Uint32Array([4]), staticLength: 1 };
      b.execute(CUDA_KERNELS.addF32, { threads: 4, buffers: [y, y, z], metadata: meta });
      const early = b.read(z, { stream: 3 }); // before the source's fault is known
      await assert.rejects(within<unknown>(early, 5_000), /CUDA_ERROR_LAUNCH_FAILED/, peer);
      await assert.rejects(b.read(z), /CUDA_ERROR_LAUNCH_FAILED/, "lost for good");
      assert.throws(() =>
        b.execute(CUDA_KERNELS.addF32, { threads: 4, buffers: [z, z, z], metadata: meta })
      );
      assert.deepEqual([...await b.read(other, { stream: 2 })], [9, 9, 9, 9], "other memory");
      b.write(z, new Float32Array([5, 6, 7, 8]));
      assert.deepEqual([...await b.read(z)], [5, 6, 7, 8]);
      for (const stream of [0, 1, 2, 3]) await b.sync({ stream }).catch(() => {});
      for (const stream of [0, 1, 2, 3]) await b.sync({ stream }); // nothing left to report
      await a.sync().catch(() => {});
    });
  }
});

Deno.test("cuda: work behind other devices' marks and copies that succeed reads its results at once", async () => {
  for (const peer of ["all", "none"]) {
    await onTwo({ CUDA_SIM_PEER: peer }, async (a, b) => {
      using x = a.createWithData(new Float32Array([1, 2, 3, 4]));
      const meta = { data: new Uint32Array([4]), staticLength: 1 };
      a.execute(CUDA_KERNELS.addF32, { threads: 4, buffers: [x, x, x], metadata: meta });
      const mark = a.signal();
      b.waitFor(a.timeline, mark, { stream: 1 });
      using y = a.copyTo(x, b, { destinationStream: 1 });
      using z = b.zeros(4, "f32", { stream: 1 });
      b.execute(CUDA_KERNELS.addF32, { stream: 1, threads: 4, buffers: [y, y, z], metadata: meta });
      const next = b.signal({ stream: 1 });
      assert.deepEqual([...await within(b.read(z, { stream: 2 }), 5_000)], [4, 8, 12, 16], peer);
      await within(b.timeline.wait(next), 5_000);
      await b.sync({ stream: 1 });
      assert.deepEqual([...await b.read(y)], [2, 4, 6, 8]);
    });
  }
});
