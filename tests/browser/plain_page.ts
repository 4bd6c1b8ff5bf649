/**
 * A page served WITHOUT cross-origin isolation (no COOP/COEP headers), as most pages are: the
 * client runs kernels there too; only what needs `SharedArrayBuffer` (CPU timeline signals, the
 * client's timeline) is unavailable, with a clear `UNSUPPORTED` error.
 *
 * @module
 */

import assert from "node:assert/strict";
import { CpuTimelineSignal, createClient, elementwise } from "../../mod.ts";
import { runGroups } from "./_page_harness.ts";

runGroups({
  "page without cross-origin isolation": async (t) => {
    assert.equal((globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated, false);
    using client = await createClient();
    await t.step("kernels run", async () => {
      const square = elementwise({ inputs: ["x"], expression: "x * x" });
      using x = client.createWithData(new Float32Array([1, 2, 3, 4]));
      using y = square.run(client, { x });
      assert.deepEqual(await client.read(y, Float32Array), new Float32Array([1, 4, 9, 16]));
    });
    await t.step("timeline signals say they need cross-origin isolation", () => {
      const unsupported = (e: unknown) =>
        (e as { code?: string }).code === "UNSUPPORTED" && /cross-origin isolated/.test(String(e));
      assert.throws(() => new CpuTimelineSignal(), unsupported);
      assert.throws(() => client.timeline, unsupported);
    });
    await t.step("the package bundled as one file (no code splitting) loads and runs", async () => {
      // A specifier the bundler cannot follow: the page loads the server's single-file bundle.
      const single = "/pages/single/mod.js";
      const pkg: typeof import("../../mod.ts") = await import(single);
      using other = await pkg.createClient();
      const saxpy = pkg.elementwise({
        inputs: ["x", "y"],
        params: { a: "f32" },
        expression: "a * x + y",
      });
      using x = other.createWithData(new Float32Array([1, 2, 3]));
      using y = other.createWithData(new Float32Array([10, 20, 30]));
      using out = saxpy.run(other, { x, y }, { params: { a: 2 } });
      assert.deepEqual(await other.read(out, Float32Array), new Float32Array([12, 24, 36]));
    });
  },
});
