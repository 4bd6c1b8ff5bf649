/**
 * The package in a real browser: headless Chromium (Debian's `chromium-headless-shell`) on
 * WebGPU through its bundled SwiftShader, the pages bundled with `deno bundle --platform
 * browser` and served on 127.0.0.1 (tests/browser/). Each page's cases come back as steps, with
 * the page's error text. Without the browser the Chromium test is skipped, with the reason;
 * under CI=true a missing browser fails instead (CI installs it: tools/install_browser.sh).
 *
 * Permissions: --allow-run=deno,/usr/bin/chromium-headless-shell --allow-net=127.0.0.1
 * --allow-read=.tmp,examples,/usr/bin/chromium-headless-shell --allow-write=.tmp and
 * --allow-env=CI plus the variables puppeteer-core reads (see tools/run_tests.sh). With
 * --allow-write=docs/web_example.png the web example's screenshot also goes to docs/.
 *
 * @module
 */

import assert from "node:assert/strict";
import fc from "fast-check";
import nodeAssert from "node:assert/strict";
import browserAssert, { isDeepStrictEqual } from "./browser/_assert.ts";
import { browserPath, singleFileBundle } from "./browser/_bundle.ts";
import type { CaseResult } from "./browser/_page_harness.ts";
import { BrowserSession, chromiumMissing } from "./browser/_session.ts";

const SCREENSHOT = "docs/web_example.png";
const missing = chromiumMissing();
const ci = Deno.permissions.querySync({ name: "env", variable: "CI" }).state === "granted" &&
  Deno.env.get("CI") === "true";

Deno.test("the browser path of the package bundle names no node: module and no Deno global", async () => {
  await Deno.mkdir(".tmp", { recursive: true });
  const dir = await Deno.makeTempDir({ dir: ".tmp", prefix: "browser_bundle_" });
  try {
    const path = await browserPath(dir);
    assert.deepEqual(path.offenders, []);
    // The walk found the Deno-only chunks (the CUDA backend, loaded through the registry, and the
    // file cache) and left them out.
    assert.equal(path.denoOnly.length, 2, path.denoOnly.join(", "));
    assert.ok(path.loaded.includes("mod.js") && path.loaded.length > 5, path.loaded.join(", "));
    // Without code splitting the Deno-only modules are inlined (and run only on Deno), but a
    // `node:` import would be hoisted to the top of the file and stop it loading in a browser.
    const single = await singleFileBundle(`${dir}/single.js`);
    assert.deepEqual(single.match(/node:[\w/]+/g) ?? [], []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the page's node:assert/strict agrees with Node's on deep equality", () => {
  const same = (a: unknown, b: unknown) => {
    let node = true;
    try {
      nodeAssert.deepEqual(a, b);
    } catch {
      node = false;
    }
    assert.equal(isDeepStrictEqual(a, b), node, `${Deno.inspect(a)} vs ${Deno.inspect(b)}`);
  };
  const value = fc.oneof(
    fc.anything({ withMap: true, withSet: true, withDate: true, withTypedArray: true }),
    fc.float32Array({ maxLength: 4 }),
  );
  fc.assert(fc.property(value, value, same), { numRuns: 500 });
  fc.assert(fc.property(value, (v) => same(v, structuredClone(v))), { numRuns: 300 });
  browserAssert.throws(() => browserAssert.equal(0, -0));
  browserAssert.throws(() => browserAssert.throws(() => {}));
  browserAssert.throws(() =>
    browserAssert.throws(() => {
      throw new TypeError("x");
    }, RangeError)
  );
  browserAssert.throws(() =>
    browserAssert.throws(() => {
      throw new Error("x");
    }, () => false)
  );
});

Deno.test({
  name: `in headless Chromium on WebGPU${missing && !ci ? ` (skipped: ${missing})` : ""}`,
  ignore: missing !== undefined && !ci,
  async fn(t) {
    if (missing) throw new Error(`CI=true, yet ${missing}`);
    await using session = await BrowserSession.start();
    await replay(t, await session.run(session.url("suite")));
    await replay(t, await session.run(session.url("tune", "load=1")));
    await replay(t, await session.run(session.url("tune", "load=2")));
    await replay(t, await session.run(session.url("plain", "", false)));
    // Served as `deno task web` serves it: no cross-origin isolation.
    await t.step("the web example runs the demo and draws its trace", async () => {
      await session.withPage(session.sourcePage("examples/web/index.html", false), async (page) => {
        await page.waitForFunction("document.body.dataset.state !== undefined", {
          timeout: 60_000,
        });
        const [state, status] = await page.evaluate(
          `[document.body.dataset.state, document.getElementById("status").textContent]`,
        ) as [string, string];
        assert.equal(state, "pass", status ?? "");
        const kernels = await page.$$eval("#timeline svg rect title", (titles) => titles.length);
        assert.ok(kernels > 5, `${kernels} kernel bars`);
        const png = await page.screenshot({ fullPage: true });
        await Deno.writeFile(".tmp/web_example.png", png);
        const docs = Deno.permissions.querySync({ name: "write", path: SCREENSHOT }).state;
        if (docs === "granted") await Deno.writeFile(SCREENSHOT, png);
      });
    });
  },
});

interface Node {
  name: string;
  result?: CaseResult;
  children: Node[];
}

/** Replays a page's results as nested test steps, failing with the page's error text. */
async function replay(
  t: Deno.TestContext,
  { results, console }: { results: CaseResult[]; console: string[] },
) {
  const root: Node = { name: "", children: [] };
  for (const result of results) {
    let node = root;
    for (const name of result.path) {
      let child = node.children.find((c) => c.name === name);
      if (child === undefined) node.children.push(child = { name, children: [] });
      node = child;
    }
    node.result = result;
  }
  if (root.children.length === 0) {
    throw new Error(`The page reported nothing:\n${console.join("\n")}`);
  }
  for (const node of root.children) await step(t, node);
}

async function step(t: Deno.TestContext, node: Node): Promise<void> {
  const { result } = node;
  if (result?.skipped !== undefined) {
    await t.step({ name: `${node.name} (skipped: ${result.skipped})`, ignore: true, fn() {} });
    return;
  }
  await t.step(node.name, async (t) => {
    for (const child of node.children) await step(t, child);
    if (result === undefined) throw new Error("The page never ran this case");
    if (!result.ok) throw new Error(result.error);
  });
}
