import assert from "node:assert/strict";
import { readPermittedEnv, resolveConfig } from "../backend.ts";

Deno.test("defaults, options, then environment overrides", () => {
  assert.deepEqual(resolveConfig({}, () => undefined), {
    maxStreams: 8,
    maxTasks: 256,
    strategy: "interleave",
  });
  const env: Record<string, string> = {
    GPU_RUNTIME_MAX_STREAMS: "16",
    GPU_RUNTIME_STRATEGY: "sequential",
  };
  const config = resolveConfig({ maxStreams: 4, maxTasks: 7 }, (name) => env[name]);
  assert.equal(config.maxStreams, 16, "environment wins over options");
  assert.equal(config.maxTasks, 7);
  assert.equal(config.strategy, "sequential");
});

Deno.test("malformed overrides and options raise errors naming the source", () => {
  assert.throws(
    () => resolveConfig({}, (name) => name === "GPU_RUNTIME_MAX_TASKS" ? "12abc" : undefined),
    /GPU_RUNTIME_MAX_TASKS/,
  );
  assert.throws(
    () => resolveConfig({}, (name) => name === "GPU_RUNTIME_STRATEGY" ? "random" : undefined),
    /GPU_RUNTIME_STRATEGY must be one of interleave, sequential/,
  );
  assert.throws(() => resolveConfig({ maxStreams: 0 }, () => undefined), RangeError);
  assert.throws(() => resolveConfig({ strategy: "fast" as "interleave" }, () => undefined));
});

Deno.test({
  name: "without env permission the environment is skipped, never an error",
  permissions: { env: false },
  fn() {
    assert.equal(readPermittedEnv("GPU_RUNTIME_MAX_STREAMS"), undefined);
    assert.equal(resolveConfig().maxStreams, 8);
  },
});
