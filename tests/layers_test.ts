import { deepEqual, equal } from "node:assert/strict";
import { layerOf, layerViolations } from "../tools/layers.ts";

Deno.test("layerOf places each folder in its layer", () => {
  deepEqual(
    [
      "runtime/core/handles/handle.ts",
      "runtime/memory/sliced_pool.ts",
      "runtime/stream/event.ts",
      "runtime/server/server.ts",
      "runtime/server/shared/copy_target.ts",
      "runtime/server/webgpu/server.ts",
      "runtime/client/client.ts",
      "runtime/client/_held_streams.ts",
      "runtime/backends/create_client.ts",
      "runtime/server/backend_descriptor.ts",
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
      "backends",
      "contract",
      "sync",
      "trace",
      undefined,
    ],
  );
});

Deno.test("imports running back up a layer are reported", () => {
  const violations = layerViolations([
    { from: "runtime/core/handles/handle.ts", to: "runtime/memory/slice.ts" },
    { from: "runtime/memory/sliced_pool.ts", to: "runtime/server/server.ts" },
    { from: "runtime/stream/event.ts", to: "runtime/server/webgpu/server.ts" },
    { from: "runtime/server/webgpu/server.ts", to: "runtime/server/cuda/_ffi.ts" },
    { from: "runtime/server/webgpu/server.ts", to: "runtime/client/client.ts" },
    { from: "sync/cpu_signal.ts", to: "runtime/stream/event.ts" },
    { from: "runtime/backends/create_client.ts", to: "runtime/server/webgpu/server.ts" },
    { from: "runtime/trace/chrome_trace.ts", to: "runtime/server/server.ts" },
    { from: "runtime/backends/devices.ts", to: "runtime/server/cuda/devices.ts" },
    { from: "runtime/server/shared/lease.ts", to: "runtime/server/webgpu/server.ts" },
    { from: "runtime/stream/event.ts", to: "runtime/server/shared/lease.ts" },
    { from: "runtime/client/client.ts", to: "runtime/backends/registry.ts" },
  ]);
  equal(violations.length, 12, violations.join("\n"));
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
        from: "runtime/backends/create_client.ts",
        to: "runtime/server/webgpu/backend.ts",
        dynamic: true,
      },
      { from: "runtime/backends/builtin.ts", to: "runtime/server/cuda/backend.ts", dynamic: true },
      { from: "runtime/backends/devices.ts", to: "runtime/backends/create_client.ts" },
      { from: "runtime/server/cuda/backend.ts", to: "runtime/server/backend_descriptor.ts" },
      { from: "runtime/tune/tuner.ts", to: "runtime/client/client.ts" },
      { from: "mod.ts", to: "runtime/server/webgpu/kernel.ts" },
      { from: "runtime/trace/svg_timeline.ts", to: "runtime/core/trace.ts" },
    ]),
    [],
  );
});

Deno.test("inside a backend, concern folders import one way; type-only imports are free", () => {
  const violations = layerViolations([
    // value imports against the order: compile < queue < memory < profile < launch < assembly
    {
      from: "runtime/server/webgpu/compile/pipeline_cache.ts",
      to: "runtime/server/webgpu/launch/_check_launch.ts",
    },
    { from: "runtime/server/cuda/queue/streams.ts", to: "runtime/server/cuda/memory/memory.ts" },
    { from: "runtime/server/cuda/device.ts", to: "runtime/server/cuda/compile/_module_load.ts" },
    { from: "runtime/server/webgpu/launch/launcher.ts", to: "runtime/server/webgpu/server.ts" },
    { from: "runtime/server/webgpu/stuff/x.ts", to: "runtime/server/webgpu/kernel.ts" },
  ]);
  equal(violations.length, 5, violations.join("\n"));
  deepEqual(
    layerViolations([
      {
        from: "runtime/server/webgpu/launch/launcher.ts",
        to: "runtime/server/webgpu/compile/_reflect.ts",
      },
      { from: "runtime/server/webgpu/launch/launcher.ts", to: "runtime/server/webgpu/kernel.ts" },
      { from: "runtime/server/cuda/memory/_read.ts", to: "runtime/server/cuda/queue/streams.ts" },
      {
        from: "runtime/server/webgpu/queue/encoder.ts",
        to: "runtime/server/webgpu/launch/_param_chunks.ts",
        typeOnly: true,
      },
      { from: "runtime/server/cuda/server.ts", to: "runtime/server/cuda/launch/launcher.ts" },
      { from: "runtime/server/cuda/kernel.ts", to: "runtime/server/cuda/kernels/ptx.ts" },
    ]),
    [],
  );
});
