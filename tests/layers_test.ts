import { deepEqual, equal } from "node:assert/strict";
import { layerOf, layerViolations } from "../tools/layers.ts";

Deno.test("layerOf places each folder in its layer", () => {
  deepEqual(
    [
      "runtime/core/handle.ts",
      "runtime/memory/sliced_pool.ts",
      "runtime/stream/event.ts",
      "runtime/server/server.ts",
      "runtime/server/shared/copy_target.ts",
      "runtime/server/webgpu/server.ts",
      "runtime/client/client.ts",
      "runtime/client/_held_streams.ts",
      "sync/cpu_signal.ts",
      "runtime/trace/chrome_trace.ts",
      "tests/x_test.ts",
    ].map(layerOf),
    [
      "core",
      "memory",
      "stream",
      "contract",
      "server-shared",
      "backend:webgpu",
      "client",
      "client",
      "sync",
      "trace",
      undefined,
    ],
  );
});

Deno.test("imports running back up a layer are reported", () => {
  const violations = layerViolations([
    { from: "runtime/core/handle.ts", to: "runtime/memory/slice.ts" },
    { from: "runtime/memory/sliced_pool.ts", to: "runtime/server/server.ts" },
    { from: "runtime/stream/event.ts", to: "runtime/server/webgpu/server.ts" },
    { from: "runtime/server/webgpu/server.ts", to: "runtime/server/cuda/_ffi.ts" },
    { from: "runtime/server/webgpu/server.ts", to: "runtime/client/client.ts" },
    { from: "sync/cpu_signal.ts", to: "runtime/stream/event.ts" },
    { from: "runtime/client/create_client.ts", to: "runtime/server/webgpu/server.ts" },
    { from: "runtime/trace/chrome_trace.ts", to: "runtime/server/server.ts" },
    { from: "runtime/client/devices.ts", to: "runtime/server/cuda/devices.ts" },
    { from: "runtime/server/shared/lease.ts", to: "runtime/server/webgpu/server.ts" },
    { from: "runtime/stream/event.ts", to: "runtime/server/shared/lease.ts" },
  ]);
  equal(violations.length, 11, violations.join("\n"));
});

Deno.test("imports down the layers are allowed", () => {
  deepEqual(
    layerViolations([
      { from: "runtime/memory/sliced_pool.ts", to: "runtime/core/errors.ts" },
      { from: "runtime/stream/event.ts", to: "runtime/memory/memory_usage.ts" },
      { from: "runtime/server/server.ts", to: "runtime/stream/event.ts" },
      { from: "runtime/server/server.ts", to: "sync/timeline_signal.ts" },
      { from: "runtime/server/webgpu/server.ts", to: "runtime/server/server.ts" },
      { from: "runtime/server/webgpu/server.ts", to: "runtime/server/shared/lease.ts" },
      { from: "runtime/server/shared/lease.ts", to: "runtime/server/server.ts" },
      { from: "runtime/server/webgpu/server.ts", to: "runtime/server/webgpu/device.ts" },
      { from: "runtime/client/client.ts", to: "runtime/server/server.ts" },
      {
        from: "runtime/client/create_client.ts",
        to: "runtime/server/webgpu/server.ts",
        dynamic: true,
      },
      { from: "runtime/client/devices.ts", to: "runtime/server/cuda/devices.ts", dynamic: true },
      { from: "runtime/client/devices.ts", to: "runtime/client/create_client.ts" },
      { from: "runtime/tune/tuner.ts", to: "runtime/client/client.ts" },
      { from: "mod.ts", to: "runtime/server/webgpu/kernel.ts" },
      { from: "runtime/trace/svg_timeline.ts", to: "runtime/core/trace.ts" },
    ]),
    [],
  );
});
