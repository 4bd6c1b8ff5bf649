/**
 * The main browser page (bundled by tests/browser/_bundle.ts, served cross-origin isolated):
 * the server conformance suite on WebGPU, the README's example programs, the helpers, streams
 * with cross-stream ordering, profiling, trace export and what differs in a browser. Written
 * against the public API like a user's page; results go back to `deno test` through
 * `runGroups`.
 *
 * @module
 */

import assert from "node:assert/strict";
import { configure, reset } from "@logtape/logtape";
import {
  createClient,
  createClients,
  dot,
  elementwise,
  listDevices,
  reduce,
  type WgslKernel,
} from "../../mod.ts";
import { asyncStreamScope, currentStreamId, withStream } from "../../backend.ts";
import { WebGpuServer } from "../../runtime/server/webgpu/mod.ts";
import { renderTraceSvg, toChromeTrace } from "../../runtime/trace/mod.ts";
import { serverConformance } from "../server_conformance.ts";
import { clientConformance, scaleWgsl, type StepContext } from "../client_conformance.ts";
import { CUBE_SIZE, fill, increment, scaleAdd } from "../_wgsl_kernels.ts";
import { runGroups, Skip } from "./_page_harness.ts";
import { primitivesAGroup } from "./_primitives_a_group.ts";
import { primitivesGroup } from "./_primitives_b_group.ts";
import { primitivesCGroup } from "./_primitives_c_group.ts";
import { issue27Group } from "./_issue27_group.ts";
import { qa4Group } from "./_qa4_group.ts";

/** The DOMParser of the page (the tests type-check without the DOM library). */
type DomParser = new () => {
  parseFromString(text: string, type: string): { querySelector(selector: string): unknown };
};

const n = 4096;
const ramp = (length: number, f: (i: number) => number) =>
  Float32Array.from({ length }, (_, i) => f(i));
const axpb: WgslKernel = {
  id: "page.axpb",
  source: `
struct P { a: f32, b: f32, n: u32 }
@group(0) @binding(0) var<storage, read_write> x: array<f32>;
@group(0) @binding(1) var<uniform> p: P;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3u) {
  if (id.x < p.n) { x[id.x] = p.a * x[id.x] + p.b; }
}`,
};

runGroups({
  "server conformance (WebGPU)": (t) =>
    serverConformance(t as unknown as Deno.TestContext, {
      createServer: () => WebGpuServer.create(),
      kernels: { fill, scaleAdd, increment },
      cubeSize: CUBE_SIZE,
    }),

  "client conformance (WebGPU)": (t) =>
    clientConformance(t as unknown as StepContext, {
      createClient: () => createClient(),
      scale: scaleWgsl,
      typedKernels: true,
    }),

  "README examples": async (t) => {
    // Each program checks itself against the CPU and throws on a mismatch.
    await t.step("saxpy", () => import("../../examples/saxpy.ts").then(() => {}));
    await t.step("softmax", () => import("../../examples/softmax.ts").then(() => {}));
    await t.step("two_streams", () => import("../../examples/two_streams.ts").then(() => {}));
    await t.step("signal_pipeline (a module Worker)", async () => {
      await import("../../examples/signal_pipeline.ts");
    });
    await t.step("graph (1,000 replays of a captured step)", async () => {
      const { heatDiffusion } = await import("../../examples/graph.ts");
      await heatDiffusion({ n: 128 });
    });
  },

  "helpers": async (t) => {
    using client = await createClient();
    const xs = ramp(n, (i) => (i % 17) - 8);
    const ys = ramp(n, (i) => (i % 5) * 0.5);
    using x = client.createWithData(xs);
    using y = client.createWithData(ys);
    await t.step("elementwise with params", async () => {
      const saxpy = elementwise({
        inputs: ["x", "y"],
        params: { a: "f32" },
        expression: "a * x + y",
      });
      using out = saxpy.run(client, { x, y }, { params: { a: 3 } });
      assert.deepEqual(await client.read(out, Float32Array), xs.map((v, i) => 3 * v + ys[i]));
    });
    await t.step("reduce sum, max, min", async () => {
      using sum = reduce(client, x);
      using max = reduce(client, x, { op: "max" });
      using min = reduce(client, x, { op: "min" });
      const [s, hi, lo] = await client.readMany([sum, max, min], Float32Array);
      assert.equal(s[0], xs.reduce((a, b) => a + b, 0));
      assert.equal(hi[0], 8);
      assert.equal(lo[0], -8);
    });
    await t.step(
      "max and min start from the infinities (no constant infinity in WGSL)",
      async () => {
        using down = client.createWithData(new Float32Array([-Infinity, -Infinity]));
        using up = client.createWithData(new Float32Array([Infinity, Infinity]));
        using max = reduce(client, down, { op: "max" });
        using min = reduce(client, up, { op: "min" });
        const [hi, lo] = await client.readMany([max, min], Float32Array);
        assert.deepEqual([hi[0], lo[0]], [-Infinity, Infinity]);
      },
    );
    await t.step("dot", async () => {
      using d = dot(client, [x, y]);
      const [value] = await client.read(d, Float32Array);
      assert.equal(value, xs.reduce((acc, v, i) => acc + v * ys[i], 0));
    });
  },

  "streams": async (t) => {
    using client = await createClient();
    await t.step("a consumer stream waits for two producer streams, no flush or sync", async () => {
      const add = elementwise({ inputs: ["a", "b"], expression: "a + b" });
      using a = client.createWithData(ramp(n, (i) => i), { stream: 1 });
      using b = client.createWithData(ramp(n, () => 1), { stream: 2 });
      for (let r = 0; r < 8; r++) {
        client.execute(axpb, { threads: n, buffers: [a], params: { a: 1, b: 1, n }, stream: 1 });
        client.execute(axpb, { threads: n, buffers: [b], params: { a: 2, b: 0, n }, stream: 2 });
      }
      using c = add.run(client, { a, b }, { stream: 3 });
      assert.deepEqual(
        await client.read(c, Float32Array, { stream: 3 }),
        ramp(n, (i) => i + 8 + 256),
      );
    });
    await t.step(
      "withStream scopes the synchronous part of fn (no AsyncLocalStorage)",
      async () => {
        assert.equal(asyncStreamScope(), false);
        const warnings: string[] = [];
        await configure({
          sinks: { list: (record) => warnings.push(record.message.join("")) },
          loggers: [{
            category: ["gpucompute", "stream"],
            lowestLevel: "warning",
            sinks: ["list"],
          }],
        });
        try {
          const scoped = () =>
            withStream(5, async () => {
              const before = currentStreamId();
              await null;
              return [before, currentStreamId()];
            });
          assert.deepEqual(await scoped(), [5, 0]);
          assert.deepEqual(await scoped(), [5, 0]);
          assert.equal(warnings.length, 1, "the first async fn is warned about, once");
          assert.match(
            warnings[0],
            /^withStream\(5, fn\).*stream 5 applied until fn's first await only; give the calls/,
          );
        } finally {
          await reset();
        }
      },
    );
    await t.step(
      "after an await, { stream } names the stream; the scope no longer does",
      async () => {
        using v = client.createWithData(ramp(n, () => 1));
        const double = (stream?: number) =>
          client.execute(axpb, { threads: n, buffers: [v], params: { a: 2, b: 0, n }, stream });
        const recorder = client.trace();
        await client.withStream(5, async () => {
          double(); // the synchronous part: stream 5
          await null;
          double(); // after the await: the outer stream, 0
          double(5);
        });
        const doubled = await client.read(v, Float32Array);
        const trace = await recorder.stop();
        const streams = trace.events.flatMap((e) => e.type === "kernel" ? [e.stream] : []);
        assert.deepEqual(streams, [5, 0, 5]);
        assert.deepEqual(doubled, ramp(n, () => 8)); // ordered across the streams all the same
      },
    );
    await t.step(
      "docs/browser.md's example: a handle made after an await is on stream 0",
      async () => {
        const double = elementwise({ inputs: ["x"], expression: "2.0 * x" });
        using x = client.arange(4, "f32");
        const streams = await client.withStream(2, async () => {
          using a = double.run(client, { x });
          await client.sync();
          using b = double.run(client, { x });
          return [a.stream, b.stream];
        });
        assert.deepEqual(streams, [2, 0]);
        using y = double.run(client, { x }, { stream: 2 });
        assert.deepEqual([...await client.read(y, { stream: 2 })], [0, 2, 4, 6]);
      },
    );
  },

  "profiling": async (t) => {
    using client = await createClient();
    if (!client.server.properties.deviceTimer) throw new Skip("the adapter has no timestamp-query");
    using v = client.createWithData(ramp(1 << 16, (i) => i));
    await t.step("a profiled window is timed on the device, per kernel too", async () => {
      const run = () =>
        client.execute(axpb, {
          threads: 1 << 16,
          buffers: [v],
          params: { a: 1, b: 1, n: 1 << 16 },
        });
      const { duration } = await client.profile(() => {
        run();
        run();
      }, { perKernel: true });
      assert.equal(duration.timing, "device");
      assert.ok(duration.milliseconds > 0, `${duration.milliseconds} ms`);
      assert.deepEqual(duration.kernels?.map((k) => k.kernel), ["page.axpb", "page.axpb"]);
      for (const k of duration.kernels!) assert.ok(k.end >= k.start);
    });
  },

  "trace export": async (t) => {
    using client = await createClient();
    using v = client.createWithData(ramp(n, () => 0), { stream: 1 });
    const recorder = client.trace();
    client.execute(axpb, { threads: n, buffers: [v], params: { a: 1, b: 2, n }, stream: 1 });
    await client.read(v, Float32Array, { stream: 2 });
    const trace = await recorder.stop();
    await t.step("the trace holds the launch and the cross-stream read", () => {
      const kernels = trace.events.filter((e) => e.type === "kernel");
      assert.deepEqual(kernels.map((k) => [k.kernel, k.stream]), [["page.axpb", 1]]);
      assert.ok(trace.events.some((e) => e.type === "read"));
    });
    await t.step("Chrome trace JSON and SVG timeline", () => {
      const json = JSON.parse(JSON.stringify(toChromeTrace(trace)));
      assert.ok(json.traceEvents.some((e: { name: string }) => e.name === "page.axpb"));
      const svg = renderTraceSvg(trace, { title: "page" });
      assert.match(svg, /^<svg[^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
      const doc = new (globalThis as unknown as { DOMParser: DomParser }).DOMParser()
        .parseFromString(svg, "image/svg+xml");
      assert.equal(doc.querySelector("parsererror"), null, "the SVG parses");
      assert.match(svg, /page\.axpb/);
    });
  },

  "what a browser lacks": async (t) => {
    const unavailable = (e: unknown) =>
      (e as { code?: string }).code === "BACKEND_UNAVAILABLE" && /not Deno/.test(String(e));
    await t.step("the CUDA backend is unavailable with a clear error", async () => {
      await assert.rejects(createClient({ backend: "cuda" }), unavailable);
      await assert.rejects(listDevices({ backend: "cuda" }), unavailable);
    });
  },

  "several devices": async (t) => {
    const found = await listDevices();
    await t.step("listDevices lists the WebGPU adapter only", () => {
      assert.ok(found.length >= 1 && found.every((device) => device.backend === "webgpu"));
    });
    // A browser's adapter makes one device: each client requests the adapter again.
    const [adapter] = await listDevices({ backend: "webgpu" });
    using clients = await createClients([adapter, adapter]);
    const [a, b] = clients;
    await t.step("two devices of one adapter exchange data with copyTo", async () => {
      using x = a.createWithData(ramp(n, (i) => i));
      using y = a.copyTo(x, b, { chunkBytes: 4096 });
      a.write(x, new Float32Array(n));
      const got = await b.read(y);
      assert.equal(got.findIndex((v, i) => v !== i), -1);
    });
    await t.step("one waits for the other's timeline", async () => {
      using v = a.createWithData(ramp(n, () => 1));
      a.execute(axpb, { threads: n, buffers: [v], params: { a: 2, b: 0, n } });
      b.waitFor(a.timeline, a.signal());
      using w = b.createWithData(new Float32Array([7]));
      assert.deepEqual([...await b.read(w)], [7]);
      assert.ok(a.timeline.value >= 1n);
    });
  },
  ...primitivesAGroup,
  ...primitivesGroup,
  ...primitivesCGroup,
  ...issue27Group,
  ...qa4Group,
});
