/**
 * Every error reaches its caller, whatever the timing (issue #18, item 3 and "Errors that must
 * reach their caller"): a kernel writing its read-only binding never runs, held calls settle on
 * destroy and on a failed wait, profiles count held work, compile errors come early.
 */
import assert from "node:assert/strict";
import {
  CompilationError,
  createClient,
  type CudaClient,
  DestroyedError,
  TimeoutError,
  type WebGpuClient,
  type WgslKernel,
} from "../mod.ts";
import { CpuTimelineSignal } from "../sync/mod.ts";
import type { WebGpuServer } from "../runtime/server/webgpu/mod.ts";

const adapter = await navigator.gpu?.requestAdapter();
const ignore = adapter === null || adapter === undefined; // no WebGPU adapter on this machine

let fresh = 0;
/** A new kernel each call (never compiled before): it writes `x`, declared read-only. */
const writesReadOnly = (): WgslKernel => ({
  id: `writes_read_only_${fresh++}`,
  source: `
@group(0) @binding(0) var<storage, read> x: array<u32>;
@group(0) @binding(1) var<storage, read_write> y: array<u32>;
@compute @workgroup_size(1) fn main() {
  x[0] = 7u;
  y[0] = 1u;
}`,
});

const add: WgslKernel = {
  id: "add_one",
  source: `
@group(0) @binding(0) var<storage, read_write> v: array<u32>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3u) {
  if (g.x < arrayLength(&v)) { v[g.x] = v[g.x] + 1u; }
}`,
};

const compileError = (e: unknown) =>
  e instanceof CompilationError && e.line === 5 && /writing to this location/.test(e.message) &&
  !/\n: /.test(e.message); // naga's repeated last line is dropped

Deno.test({
  name: "a kernel that writes its read-only binding never runs, whatever the timing",
  ignore,
  async fn(t) {
    using client = await createClient({ adapter: adapter! });
    const server = client.server as WebGpuServer;
    const setup = () => {
      const x = client.createWithData(new Uint32Array([1, 2]));
      const y = client.createWithData(new Uint32Array([0, 0]));
      return { x, y, [Symbol.dispose]: () => (x.dispose(), y.dispose()) };
    };
    const unchanged = async (x: { dispose(): void } & Parameters<typeof client.read>[0]) =>
      assert.deepEqual([...await client.read(x)], [1, 2], "the kernel never ran");

    await t.step("execute, then read in the same tick", async () => {
      using h = setup();
      client.execute(writesReadOnly(), { threads: 1, buffers: [h.x, h.y] });
      await assert.rejects(client.read(h.x), compileError);
      await unchanged(h.x);
      assert.deepEqual([...await client.read(h.y)], [0, 0]);
    });

    await t.step("execute, then sync in the same tick", async () => {
      using h = setup();
      client.execute(writesReadOnly(), { threads: 1, buffers: [h.x, h.y] });
      await assert.rejects(client.sync(), compileError);
      await unchanged(h.x);
    });

    await t.step("execute, flush, then work of another stream and a read", async () => {
      using h = setup();
      using other = client.createWithData(new Uint32Array([5]), { stream: 1 });
      client.execute(writesReadOnly(), { threads: 1, buffers: [h.x, h.y] });
      client.flush();
      client.execute(add, { threads: 1, buffers: [other], stream: 1 });
      assert.ok(server.stats().parkedSubmits > 0, "the submission waited for the validation");
      assert.deepEqual([...await client.read(other, { stream: 1 })], [6], "other work went on");
      await assert.rejects(client.sync(), compileError); // stream 0's error, at its next sync
      await unchanged(h.x);
    });

    await t.step("with an await in between: refused at execute", async () => {
      using h = setup();
      const kernel = writesReadOnly();
      await assert.rejects(client.compile(kernel), compileError);
      assert.throws(
        () => client.execute(kernel, { threads: 1, buffers: [h.x, h.y] }),
        compileError,
      );
      await unchanged(h.x);
    });
  },
});

Deno.test({
  name: "held calls: destroy settles them at once, a failed wait fails them, profiles count them",
  ignore,
  async fn(t) {
    await t.step(
      "destroy while calls are held: DESTROYED at once, nothing kept alive",
      async () => {
        const client = await createClient({ adapter: adapter! });
        const never = new CpuTimelineSignal(); // its producer never sets it
        using data = client.zeros(4, "u32");
        client.waitFor(never, 1);
        const read = client.read(data);
        const sync = client.sync();
        client.execute(add, { threads: 4, buffers: [data] });
        const started = performance.now();
        client.destroy();
        for (const pending of [read, sync]) {
          await assert.rejects(
            pending,
            (e) => e instanceof DestroyedError && e.code === "DESTROYED",
          );
        }
        assert.ok(performance.now() - started < 1000, "settled at once");
        // The test's op sanitizer fails it if the abandoned wait kept anything alive.
      },
    );

    await t.step("a wait that times out fails the held calls; later calls run", async () => {
      using client = await createClient({ adapter: adapter! });
      using data = client.zeros(4, "u32");
      client.waitFor(new CpuTimelineSignal(), 1, { timeoutMs: 20 });
      client.execute(add, { threads: 4, buffers: [data] }); // held, then dropped
      await assert.rejects(client.read(data), TimeoutError);
      // The read took the fault: the held launch behind the same wait does not report it again.
      await client.sync();
      client.execute(add, { threads: 4, buffers: [data] });
      assert.deepEqual([...await client.read(data)], [1, 1, 1, 1], "only the later launch ran");
    });

    await t.step("profile on a held stream measures what ran", async () => {
      using client = await createClient({ adapter: adapter! });
      using data = client.zeros(1 << 16, "u32");
      const produced = new CpuTimelineSignal();
      client.waitFor(produced, 1, { stream: 1 });
      const profiled = client.profile(() => {
        for (let i = 0; i < 4; i++) client.execute(add, { threads: 1 << 16, buffers: [data] });
      }, { stream: 1, perKernel: client.server.properties.deviceTimer });
      setTimeout(() => produced.set(1), 5);
      const { duration } = await profiled;
      assert.ok(duration.milliseconds > 0, `${duration.milliseconds} ms`);
      if (client.server.properties.deviceTimer) {
        assert.deepEqual(duration.kernels?.map((k) => k.kernel), Array(4).fill("add_one"));
      }
      assert.equal((await client.read(data, { stream: 1 }))[0], 4);
    });
  },
});

Deno.test({
  name: "a profile whose kernel failed rejects with the error, not a time for work that never ran",
  ignore,
  async fn() {
    using client = await createClient();
    using x = client.createWithData(new Uint32Array([1]));
    using y = client.createWithData(new Uint32Array([0]));
    // Refused before: the profile resolved { milliseconds: 0 } and the next read threw.
    for (const perKernel of [false, true]) {
      await assert.rejects(
        client.profile(() => client.execute(writesReadOnly(), { threads: 1, buffers: [x, y] }), {
          stream: 2,
          perKernel,
        }),
        compileError,
      );
      // Reported once: the stream's next read has nothing left to throw; nothing ran.
      assert.deepEqual([...await client.read(y, { stream: 2 })], [0]);
    }
    const { duration } = await client.profile(() =>
      client.execute(add, { threads: 1, buffers: [y] })
    );
    assert.ok(duration.milliseconds > 0);
    assert.deepEqual([...await client.read(y)], [1]);
  },
});

/** Exact type equality (assignability both ways is not enough for generic classes). */
type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true
  : false;

Deno.test("createClient is typed as the WebGPU client by default, per-backend aliases exist", () => {
  const defaultIsWebGpu: Equals<Awaited<ReturnType<typeof createClient>>, WebGpuClient> = true;
  const cudaIsNot: Equals<WebGpuClient, CudaClient> = false;
  assert.ok(defaultIsWebGpu && !cudaIsNot);
});
