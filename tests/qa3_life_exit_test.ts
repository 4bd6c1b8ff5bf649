/**
 * Clients left alive do not hold the process: a program that makes a client (WebGPU on the
 * fallback adapter, CUDA on the simulated driver), uses it (reads, a profile, a trace, a graph, a
 * timed-out wait, a kernel fault, a destroy with a held read pending) and ends its module without
 * `destroy()` exits at once with status 0 (tests/fixtures/qa3_life_idle_exit.ts).
 */
import assert from "node:assert/strict";
import { listDevices } from "../mod.ts";

const [adapter] = await listDevices({ backend: "webgpu" });
const root = new URL("..", import.meta.url).pathname;
const fixture = "tests/fixtures/qa3_life_idle_exit.ts";

/** Runs the fixture; its status, output and seconds taken (killed after `limitMs`). */
async function runFixture(backend: string, state: string, limitMs: number) {
  const began = performance.now();
  const child = new Deno.Command("deno", {
    args: [
      "run",
      "--unstable-webgpu",
      "--allow-ffi",
      "--allow-read=tests/fixtures",
      fixture,
      backend,
      state,
    ],
    cwd: root,
    env: { CUDA_SIM_LAUNCH_FAIL_AT: state === "fault" ? "1" : "0" },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const timer = setTimeout(() => child.kill("SIGKILL"), limitMs);
  const output = await child.output();
  clearTimeout(timer);
  const text = new TextDecoder().decode(output.stdout) + new TextDecoder().decode(output.stderr);
  return { code: output.code, text, ms: performance.now() - began };
}

const cases: [string, string[]][] = [
  ["webgpu", ["read", "graph", "timeout", "destroyed"]],
  ["cuda", ["read", "profile", "trace", "timeout", "fault", "destroyed"]],
];

for (const [backend, states] of cases) {
  Deno.test({
    name: `${backend}: a program that leaves its client alive exits at once (${states.join(", ")})`,
    ignore: backend === "webgpu" && adapter === undefined,
    async fn() {
      // At once: each takes well under a second here; 20 s only bounds a loaded machine.
      const results = await Promise.all(states.map((state) => runFixture(backend, state, 20_000)));
      results.forEach(({ code, text, ms }, i) => {
        assert.equal(
          code,
          0,
          `${states[i]}: exit status ${code} after ${Math.round(ms)} ms: ${text}`,
        );
        assert.match(text, /done/, states[i]);
        assert.ok(ms < 10_000, `${states[i]}: exited after ${Math.round(ms)} ms`);
      });
      // The fault reaches the read: found at its enqueue, or by its wait (timing decides).
      const fault = states.indexOf("fault");
      if (fault >= 0) assert.match(results[fault].text, /faulted read (STREAM_UNHEALTHY|DRIVER)/);
    },
  });
}
