/**
 * Launch graphs on WebGPU: capture records (runs nothing), replay runs the sequence in order with
 * updated params, orders against other streams, holds its handles, and refuses misuse with typed
 * errors while the runtime stays usable.
 */
import assert from "node:assert/strict";
import {
  ComputeError,
  createClient,
  DestroyedError,
  KernelArgumentError,
  type WgslKernel,
} from "../mod.ts";
import type { WebGpuServer } from "../runtime/server/webgpu/server.ts";
import { helperReplayCases } from "./_graph_helper_cases.ts";

const adapter = await navigator.gpu?.requestAdapter();
const ignore = adapter === null || adapter === undefined;

/** x[i] = x[i] * 2 + dt (order-sensitive: (x*2+a)*2+b differs from (x*2+b)*2+a). */
const step: WgslKernel = {
  id: "graph_test_step",
  source: `
@group(0) @binding(0) var<storage, read_write> x: array<f32>;
@group(0) @binding(1) var<uniform> dt: f32;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3u) {
  if (g.x < arrayLength(&x)) { x[g.x] = x[g.x] * 2.0 + dt; }
}`,
};
/** y[i] = y[i] + x[i]. */
const accumulate: WgslKernel = {
  id: "graph_test_accumulate",
  source: `
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3u) {
  if (g.x < arrayLength(&y)) { y[g.x] = y[g.x] + x[g.x]; }
}`,
};

const isCode = (code: string) => (e: unknown) => e instanceof ComputeError && e.code === code;

Deno.test({
  name: "capture runs nothing; replays run the sequence in order, with params rewritten in place",
  ignore,
  async fn() {
    using client = await createClient();
    using x = client.createWithData(new Float32Array([1, 2, 3]));
    using y = client.zeros(3);
    using graph = await client.capture(() => {
      client.execute(step, { threads: 3, buffers: [x], params: { dt: 1 } });
      client.execute(accumulate, { threads: 3, buffers: [x, y] });
      client.execute(step, { threads: 3, buffers: [x], params: { dt: 0.5 } });
    }, { label: "solver" });
    assert.equal(graph.launches, 3);
    assert.equal(graph.label, "solver");
    assert.deepEqual(await client.read(x), new Float32Array([1, 2, 3])); // nothing ran
    const cpuX = [1, 2, 3], cpuY = [0, 0, 0];
    const cpu = (a: number, b: number) => {
      for (let i = 0; i < 3; i++) {
        cpuX[i] = cpuX[i] * 2 + a;
        cpuY[i] += cpuX[i];
        cpuX[i] = cpuX[i] * 2 + b;
      }
    };
    for (let r = 0; r < 5; r++) {
      graph.replay();
      cpu(1, 0.5);
    }
    // `dt` is the param of both step launches: both get it.
    graph.replay({ params: { dt: 0.25 } });
    cpu(0.25, 0.25);
    graph.replay();
    cpu(0.25, 0.25);
    assert.deepEqual(await client.read(x), new Float32Array(cpuX));
    assert.deepEqual(await client.read(y), new Float32Array(cpuY));
  },
});

Deno.test({
  name: "a replay encodes its dispatches in one pass; a reader on another stream sees its writes",
  ignore,
  async fn() {
    using client = await createClient();
    const server = client.server as WebGpuServer;
    using x = client.createWithData(new Float32Array(256).fill(1), { stream: 1 });
    using graph = await client.capture(() => {
      for (let i = 0; i < 16; i++) {
        client.execute(step, { threads: 256, buffers: [x], params: { dt: 0 }, stream: 1 });
      }
    }, { stream: 1 });
    await client.sync({ stream: 1 });
    const before = server.stats().passes;
    graph.replay();
    const read = await client.read(x, { stream: 2 }); // ordered after the replay on stream 1
    assert.deepEqual(read, new Float32Array(256).fill(2 ** 16));
    assert.equal(server.stats().passes - before, 1);
    // A submission of replays alone needs no validation scope (validated at capture); one that
    // holds other work has one.
    const device = server.device, push = device.pushErrorScope.bind(device);
    let scopes = 0;
    device.pushErrorScope = (filter) => (scopes++, push(filter));
    try {
      graph.replay();
      client.flush({ stream: 1 });
      assert.equal(scopes, 0);
      client.execute(step, { threads: 256, buffers: [x], params: { dt: 1 }, stream: 1 });
      graph.replay();
      client.flush({ stream: 1 });
      assert.equal(scopes, 1);
    } finally {
      device.pushErrorScope = push;
    }
    const cpu = 2 ** 16 * 2 ** 16; // then * 2 + 1, then 16 doublings
    assert.deepEqual(
      await client.read(x, { stream: 1 }),
      new Float32Array(256).fill((cpu * 2 + 1) * 2 ** 16),
    );
  },
});

Deno.test({
  name: "capture refuses allocation, host I/O, sync, signals, other streams and clients, nesting",
  ignore,
  async fn() {
    using client = await createClient();
    using other = await createClient();
    using x = client.zeros(4);
    using foreign = other.zeros(4);
    const refused: string[] = [];
    const tryAll = (calls: Record<string, () => unknown>) => {
      for (const [name, call] of Object.entries(calls)) {
        try {
          const result = call();
          if (result instanceof Promise) result.catch(() => {});
          refused.push(`${name}: not refused`);
        } catch (e) {
          refused.push(`${name}: ${e instanceof ComputeError ? e.code : e}`);
        }
      }
    };
    await assert.rejects(
      client.capture(() => {
        tryAll({
          zeros: () => client.zeros(4),
          createWithData: () => client.createWithData(new Float32Array(1)),
          write: () => client.write(x, new Float32Array(4)),
          read: () => void client.read(x).catch(() => {}),
          signal: () => client.signal(),
          waitFor: () => client.waitFor(client.timeline, 1),
          otherStream: () =>
            client.execute(step, { threads: 4, buffers: [x], stream: 3, params: { dt: 1 } }),
          foreign: () =>
            client.execute(step, { threads: 4, buffers: [foreign], params: { dt: 1 } }),
        });
        return client.sync(); // rejects: capture rejects with it
      }),
      isCode("CAPTURE_UNSUPPORTED"),
    );
    assert.deepEqual(refused, [
      "zeros: CAPTURE_UNSUPPORTED",
      "createWithData: CAPTURE_UNSUPPORTED",
      "write: CAPTURE_UNSUPPORTED",
      "read: not refused", // a read is async: it rejects (checked below)
      "signal: CAPTURE_UNSUPPORTED",
      "waitFor: CAPTURE_UNSUPPORTED",
      "otherStream: CAPTURE_UNSUPPORTED",
      "foreign: INVALID_HANDLE",
    ]);
    let readError: unknown;
    let nested: unknown;
    using empty = await client.capture(async () => {
      await client.read(x).catch((e) => readError = e);
      await client.capture(() => {}).catch((e) => nested = e);
    });
    assert.ok(isCode("CAPTURE_UNSUPPORTED")(readError));
    assert.ok(isCode("CAPTURE_UNSUPPORTED")(nested));
    assert.equal(empty.launches, 0);
    // A kernel error rejects the capture itself; the client stays usable.
    await assert.rejects(
      client.capture(() => client.execute(step, { threads: 4, buffers: [x], params: { dtt: 1 } })),
      KernelArgumentError,
    );
    const broken: WgslKernel = { id: "graph_test_broken", source: "fn main( {" };
    await assert.rejects(
      client.capture(() => client.execute(broken, { threads: 1, buffers: [] })),
      isCode("COMPILATION"),
    );
    client.execute(step, { threads: 4, buffers: [x], params: { dt: 3 } });
    assert.deepEqual(await client.read(x), new Float32Array(4).fill(3));
  },
});

Deno.test({
  name: "capture({ stream }) records the launches fn makes on the current stream, as profile does",
  ignore,
  async fn() {
    using client = await createClient();
    using x = client.createWithData(new Float32Array([1, 2]));
    // fn's calls run on the capture's stream (refused before: "execute on stream 0 during a
    // capture of stream 3"), also after an await; an explicit other stream is still refused.
    using graph = await client.capture(async () => {
      client.execute(step, { threads: 2, buffers: [x], params: { dt: 1 } });
      await Promise.resolve();
      client.execute(step, { threads: 2, buffers: [x], params: { dt: 0 } });
      assert.throws(
        () => client.execute(step, { threads: 2, buffers: [x], stream: 0, params: { dt: 1 } }),
        isCode("CAPTURE_UNSUPPORTED"),
      );
    }, { stream: 3 });
    assert.equal(graph.stream, 3);
    graph.replay();
    assert.deepEqual(await client.read(x, { stream: 3 }), new Float32Array([6, 10]));
  },
});

Deno.test({
  name: "a graph holds its handles; bad params, disposed graphs and clients are typed errors",
  ignore,
  async fn() {
    const client = await createClient();
    const x = client.createWithData(new Float32Array([1, 1]));
    const graph = await client.capture(() => {
      client.execute(step, { threads: 2, buffers: [x], params: { dt: 1 } });
    });
    x.dispose(); // disposed elsewhere: the graph still holds the memory
    using y = client.full(2, 7); // may not reuse x's memory while the graph lives
    graph.replay();
    graph.replay();
    assert.throws(() => graph.replay({ params: { nope: 1 } }), KernelArgumentError);
    assert.throws(() => graph.replay({ params: { dt: [1, 2] } }), KernelArgumentError);
    graph.replay({ params: { dt: 0 } }); // the refused params changed nothing
    assert.deepEqual(await client.read(y), new Float32Array([7, 7]));
    using probe = client.zeros(2);
    using check = await client.capture(() => {
      client.execute(accumulate, { threads: 2, buffers: [y, probe] });
    });
    check.replay();
    assert.deepEqual(await client.read(probe), new Float32Array([7, 7]));
    graph.dispose();
    graph.dispose(); // idempotent
    assert.throws(() => graph.replay(), DestroyedError);
    // The server destroyed under its client: a replay (which calls no server method) refuses too.
    const other = await createClient();
    const z = other.zeros(2);
    const lone = await other.capture(() => {
      other.execute(step, { threads: 2, buffers: [z], params: { dt: 1 } });
    });
    other.server.destroy();
    assert.throws(() => lone.replay(), DestroyedError);
    other.destroy();
    client.destroy();
    assert.throws(() => check.replay(), DestroyedError);
    await assert.rejects(client.capture(() => {}), DestroyedError);
    assert.ok(check.disposed);
  },
});

Deno.test({
  name: "a trace and a per-kernel profile show a replay as its kernels under the graph's label",
  ignore,
  async fn() {
    using client = await createClient();
    using x = client.zeros(4);
    using graph = await client.capture(() => {
      client.execute(step, { threads: 4, buffers: [x], params: { dt: 1 } });
      client.execute(step, { threads: 4, buffers: [x], params: { dt: 2 } });
    }, { label: "twice" });
    const recorder = client.trace();
    graph.replay();
    await client.sync();
    const trace = await recorder.stop();
    const names = trace.events.filter((e) => e.type === "kernel").map((e) => e.kernel);
    assert.deepEqual(names, ["twice/graph_test_step", "twice/graph_test_step"]);
    assert.deepEqual(await client.read(x), new Float32Array(4).fill(4));
    if (!adapter?.features.has("timestamp-query")) return; // per-kernel profiles need timestamps
    const { duration } = await client.profile(() => graph.replay(), { perKernel: true });
    const kernels = duration.kernels!;
    assert.deepEqual(kernels.map((k) => k.kernel), names);
    assert.ok(kernels.every((k) => k.start <= k.end) && kernels[0].end <= kernels[1].start + 1e-6);
    assert.deepEqual(await client.read(x), new Float32Array(4).fill((4 * 2 + 1) * 2 + 2));
  },
});

Deno.test({
  name: "captured helpers replay with new caller params; the helpers' own params are refused",
  ignore,
  async fn() {
    using client = await createClient();
    await helperReplayCases(client);
  },
});
