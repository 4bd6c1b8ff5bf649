/**
 * The web example's script (index.html loads it bundled as main.js; `deno task web` bundles and
 * serves it): the demo's workload (examples/_demo_workload.ts) on the visitor's GPU, twice (the
 * first run tunes), the second run's trace drawn as the SVG timeline, and its steps, the tuning
 * picks and the checks of both runs as tables. The tuner keeps
 * its picks in IndexedDB, so a second visit runs no benchmark. `document.body.dataset.state`
 * ends as `pass`, `fail` or `error` (the browser test waits for it).
 *
 * @module
 */

import { createClient, formatMemoryUsage } from "../../mod.ts";
import { renderTraceSvg } from "../../runtime/trace/mod.ts";
import { Tuner } from "../../runtime/tune/mod.ts";
import { runDemo } from "../_demo_workload.ts";

// The few DOM calls of the page, typed here: this repository type-checks without the DOM
// library (in a browser project of your own, use `"lib": ["dom"]` and `document` as usual).
interface Element {
  textContent: string | null;
  innerHTML: string;
  className: string;
  readonly children: ArrayLike<Element>;
  readonly firstElementChild: Element | null;
  append(...nodes: Element[]): void;
  replaceChildren(...nodes: Element[]): void;
}
const { document } = globalThis as unknown as {
  document: {
    getElementById(id: string): Element | null;
    createElement(tag: string): Element;
    body: { dataset: Record<string, string> };
  };
};
const $ = (id: string) => document.getElementById(id)!;

function rows(table: string, cells: string[][]): void {
  $(table).replaceChildren(...cells.map((row) => {
    const tr = document.createElement("tr");
    for (const cell of row) {
      const td = document.createElement("td");
      td.textContent = cell;
      tr.append(td);
    }
    return tr;
  }));
}

async function main(): Promise<"pass" | "fail"> {
  if (!("gpu" in navigator)) throw new Error("This browser has no WebGPU (navigator.gpu)");
  using client = await createClient();
  const { deviceName, deviceTimer } = client.server.properties;
  $("status").textContent = `Running on ${deviceName}…`;
  const tuner = new Tuner(client, { name: "web-demo" });
  // The first run tunes (or finds the picks in IndexedDB); the second, recorded, shows the
  // workload itself on the timeline, every kernel the tuned pick.
  const first = await runDemo(client, tuner);
  $("status").textContent = `Tuned; running again with a trace on ${deviceName}…`;
  const run = await runDemo(client, tuner, { trace: true });
  $("timeline").innerHTML = renderTraceSvg(run.trace!, {
    title: `${deviceName} (${deviceTimer ? "device timer" : "wall clock"})`,
  });
  const ms = (value: number) => `${value.toFixed(3)} ms`;
  rows("steps", run.steps.map((s) => [`stream ${s.stream}`, s.name, ms(s.duration.milliseconds)]));
  rows(
    "tunings",
    first.tunings.map(({ what, outcome, seconds }) => [
      what,
      outcome.fastest,
      outcome.fromCache ? "from IndexedDB" : `tuned in ${seconds.toFixed(2)} s`,
    ]),
  );
  const checks = run.checks.map((c, i) => ({ ...c, ok: c.ok && first.checks[i].ok }));
  rows("checks", checks.map((c) => [c.ok ? "ok" : "FAIL", c.name, c.detail ?? ""]));
  for (const [i, check] of checks.entries()) {
    $("checks").children[i].firstElementChild!.className = check.ok ? "ok" : "bad";
  }
  const passed = checks.every((c) => c.ok);
  $("status").textContent =
    `${passed ? "All results match the CPU" : "MISMATCH"} on ${deviceName}` +
    ` · memory at the end: ${formatMemoryUsage(run.memory)}`;
  return passed ? "pass" : "fail";
}

main().then(
  (state) => document.body.dataset.state = state,
  (error) => {
    $("status").textContent = `Error: ${error instanceof Error ? error.message : error}`;
    document.body.dataset.state = "error";
    throw error;
  },
);
