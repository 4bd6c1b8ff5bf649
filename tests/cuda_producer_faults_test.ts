/**
 * A producer's failure reaches the calls a consumer holds behind its timeline, the same way on
 * WebGPU (two devices of the fallback adapter) and on the simulated CUDA driver (two devices):
 * a failed wait of the producer fails them with `ABORTED` naming the producer, a destroyed
 * producer with `DESTROYED` naming it; each fault is reported once; nothing stays pending.
 */
import assert from "node:assert/strict";
import {
  AbortedError,
  type ComputeClient,
  CpuTimelineSignal,
  createClient,
  createClients,
  DestroyedError,
  type Handle,
  listDevices,
} from "../mod.ts";
import type { KernelMetadata } from "../backend.ts";
import { CUDA_KERNELS } from "../runtime/server/cuda/mod.ts";
import { increment } from "./_wgsl_kernels.ts";
import { within } from "./_device_programs.ts";
import { SIM_LIBRARY, withSimEnv } from "./fixtures/cuda_sim.ts";

type Pair = readonly [ComputeClient, ComputeClient];
interface Backend {
  readonly name: string;
  readonly ignore: boolean;
  readonly kernel: KernelMetadata;
  open(env?: Record<string, string>): Promise<Pair & Disposable>;
}

const [adapter] = await listDevices({ backend: "webgpu" });
const backends: Backend[] = [{
  name: "webgpu",
  ignore: adapter === undefined, // no WebGPU adapter on this machine
  kernel: increment,
  async open() {
    const clients = await createClients([adapter!, adapter!]);
    return Object.assign([clients[0], clients[1]] as const, {
      [Symbol.dispose]: () => clients[Symbol.dispose](),
    });
  },
}, {
  name: "cuda",
  ignore: false,
  kernel: CUDA_KERNELS.incrementU32,
  async open(env = {}) {
    return await withSimEnv({ CUDA_SIM_DEVICES: "2", ...env }, async () => {
      const clients = await createClients(
        await listDevices({ backend: "cuda", library: SIM_LIBRARY }),
      );
      return Object.assign([clients[0], clients[1]] as const, {
        [Symbol.dispose]: () => clients[Symbol.dispose](),
      });
    });
  },
}];

const bump = (b: Backend, client: ComputeClient, y: Handle, stream: number) =>
  client.execute(b.kernel as never, { stream, threads: 1, buffers: [y] });

/** The error names the producer and the value, and is of `type`. */
function fromProducer(type: typeof AbortedError | typeof DestroyedError, value: bigint) {
  return (error: unknown) => {
    assert.ok(error instanceof type, `a ${type.name}, got ${error}`);
    assert.match(error.message, new RegExp(`Timeline value ${value} of client \\d+ \\(`));
    return true;
  };
}

for (const b of backends) {
  Deno.test({
    name: `${b.name}: a producer's failed wait fails the consumer's held calls once, naming it`,
    ignore: b.ignore,
    async fn() {
      using pair = await b.open();
      const [producer, consumer] = pair;
      const gate = new CpuTimelineSignal(); // never set: the producer's wait times out
      producer.waitFor(gate, 1, { timeoutMs: 30 });
      const mark = producer.signal(); // held behind the wait: never reached
      using y = consumer.createWithData(new Uint32Array([1]), { stream: 1 });
      consumer.waitFor(producer.timeline, mark, { stream: 1 });
      bump(b, consumer, y, 1); // held
      const held = consumer.read(y, { stream: 1 });
      await assert.rejects(within(held, 5_000), fromProducer(AbortedError, mark));
      await held.catch((e) => assert.equal(e.cause.code, "TIMEOUT", "the cause is kept"));
      await consumer.sync({ stream: 1 }); // reported once: the held read had it
      assert.deepEqual([...await consumer.read(y, { stream: 1 })], [1], "the kernel did not run");
      // The producer's own stream reports its timeout once.
      await assert.rejects(producer.sync(), (e) => (e as { code?: string }).code === "TIMEOUT");
      await producer.sync();
      // Later waits for the value (or a later one) reject at once instead of hanging.
      await assert.rejects(within(producer.timeline.wait(mark), 1_000), AbortedError);
      consumer.waitFor(producer.timeline, mark + 1n, { stream: 2 });
      await assert.rejects(within(consumer.read(y, { stream: 2 }), 1_000), AbortedError);
    },
  });

  Deno.test({
    name: `${b.name}: destroying the producer fails the consumer's held calls with DESTROYED`,
    ignore: b.ignore,
    async fn() {
      using pair = await b.open();
      const [producer, consumer] = pair;
      const gate = new CpuTimelineSignal();
      producer.waitFor(gate, 1);
      const mark = producer.signal(); // held: not reached when the producer is destroyed
      using y = consumer.createWithData(new Uint32Array([1, 2]), { stream: 1 });
      consumer.waitFor(producer.timeline, mark, { stream: 1 });
      bump(b, consumer, y, 1); // held
      const held = consumer.read(y, { stream: 1 });
      producer.destroy();
      await assert.rejects(within(held, 5_000), fromProducer(DestroyedError, mark));
      await consumer.sync({ stream: 1 }); // reported once
      assert.deepEqual([...await consumer.read(y, { stream: 1 })], [1, 2]);
      // The timeline stays readable after destroy, through the client as through a reference.
      assert.equal(producer.timeline.isReached(mark), false);
      await assert.rejects(producer.timeline.wait(mark), fromProducer(DestroyedError, mark));
    },
  });
}

Deno.test("cuda: a producer's launch fault fails the consumer's held calls, naming it", async () => {
  // The producer's first launch faults (sticky): its mark's event fails in its GC.
  using pair = await backends[1].open({ CUDA_SIM_LAUNCH_FAIL_AT: "1" });
  const [producer, consumer] = pair;
  using x = producer.createWithData(new Uint32Array([1]));
  const gate = new CpuTimelineSignal();
  producer.waitFor(gate, 1); // the fault comes after the consumer waits
  bump(backends[1], producer, x, 0);
  const mark = producer.signal();
  using y = consumer.createWithData(new Uint32Array([5]), { stream: 1 });
  // A timeout keeps the wait on the host: the held calls must still settle by the fault.
  consumer.waitFor(producer.timeline, mark, { stream: 1, timeoutMs: 60_000 });
  const held = consumer.read(y, { stream: 1 });
  gate.set(1);
  await assert.rejects(within(held, 5_000), (e) => {
    fromProducer(AbortedError, mark)(e);
    assert.match(String(e), /CUDA_ERROR_LAUNCH_FAILED|unhealthy/);
    return true;
  });
  await consumer.sync({ stream: 1 });
  await assert.rejects(producer.sync(), /CUDA_ERROR_LAUNCH_FAILED|unhealthy/);
});

Deno.test("a client's timeline is readable after destroy(); waits for unreached values reject", async () => {
  using client = await createClient({ backend: "cuda", library: SIM_LIBRARY });
  const mark = client.signal();
  await client.timeline.wait(mark, { timeoutMs: 5_000 });
  const kept = client.timeline;
  client.destroy();
  assert.equal(client.timeline, kept);
  assert.equal(client.timeline.isReached(mark), true);
  await client.timeline.wait(mark); // reached before: still reached
  await assert.rejects(client.timeline.wait(mark + 1n), DestroyedError);
});

Deno.test({
  name: "webgpu: a producer's launch the device refuses fails the consumer's held calls",
  ignore: backends[0].ignore,
  async fn() {
    // The kernel writes a read-only binding: WebGPU refuses it after `execute` returned, so the
    // mark's queue work completes without it. The mark must fail, not be reached: the consumer
    // would read data the producer never wrote.
    using pair = await backends[0].open();
    const [producer, consumer] = pair;
    using x = producer.createWithData(new Uint32Array([1]));
    using y = producer.createWithData(new Uint32Array([0]));
    producer.execute({
      source: `@group(0) @binding(0) var<storage, read> x: array<u32>;
@group(0) @binding(1) var<storage, read_write> y: array<u32>;
@compute @workgroup_size(1) fn main() { x[0] = 7u; y[0] = 1u; }`,
    } as never, { threads: 1, buffers: [x, y] });
    const mark = producer.signal();
    using z = consumer.createWithData(new Uint32Array([5]), { stream: 1 });
    consumer.waitFor(producer.timeline, mark, { stream: 1 });
    const held = consumer.read(z, { stream: 1 });
    await assert.rejects(within(held, 10_000), (e) => {
      fromProducer(AbortedError, mark)(e);
      assert.equal((e as Error & { cause?: { name?: string } }).cause?.name, "CompilationError");
      return true;
    });
    await consumer.sync({ stream: 1 }); // reported once
    // The producer's own stream still reports its error once, and it goes on working.
    await assert.rejects(producer.sync(), (e) => (e as Error).name === "CompilationError");
    await producer.sync();
    bump(backends[0], producer, y, 0);
    assert.deepEqual([...await producer.read(y)], [1], "the producer's later launch ran");
    await assert.rejects(within(producer.timeline.wait(mark), 1_000), AbortedError);
  },
});

Deno.test({
  name: "webgpu: a mark after a refused launch the producer already reported is reached",
  ignore: backends[0].ignore,
  async fn() {
    using pair = await backends[0].open();
    const [producer, consumer] = pair;
    using y = producer.createWithData(new Uint32Array([0]));
    producer.execute({
      source: `@group(0) @binding(0) var<storage, read> y: array<u32>;
@compute @workgroup_size(1) fn main() { y[0] = 1u; }`,
    } as never, { threads: 1, buffers: [y] });
    await assert.rejects(producer.sync(), (e) => (e as Error).name === "CompilationError");
    bump(backends[0], producer, y, 0); // runs: the refused launch lost only itself
    const mark = producer.signal();
    using copy = producer.copyTo(y, consumer);
    consumer.waitFor(producer.timeline, mark);
    assert.deepEqual([...await within(consumer.read(copy), 10_000)], [1]);
    assert.equal(producer.timeline.isReached(mark), true);
  },
});
