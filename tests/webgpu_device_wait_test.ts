/**
 * A wait on the WebGPU device that fails on its own (`runtime/server/webgpu/queue/_device_wait.ts`):
 * a map of the runtime's own staging buffer fails only on a device that is no longer valid (an
 * H100 through Vulkan failed one with `OperationError: validation error occurred` after a kernel
 * faulted), so the error is `DEVICE_LOST`, with the loss's own message where the device's `lost`
 * resolves soon after, else naming what failed.
 */
import assert from "node:assert/strict";
import { ComputeError, createClient, DeviceLostError, KernelArgumentError } from "../mod.ts";
import type { WebGpuServer } from "../runtime/server/webgpu/mod.ts";
import { awaitDevice } from "../runtime/server/webgpu/queue/_device_wait.ts";

const adapter = await navigator.gpu?.requestAdapter();
const ignore = adapter === null || adapter === undefined; // no WebGPU adapter on this machine

const mapFailed = () =>
  Promise.reject(new DOMException("validation error occurred", "OperationError"));

Deno.test("a failed wait waits for the device's loss and reports it", async () => {
  let polls = 0;
  const loss = new DeviceLostError("The WebGPU device was lost (unknown: a fault)");
  const closed = () => ++polls < 4 ? undefined : loss;
  await assert.rejects(awaitDevice(mapFailed(), closed, "the map of a read"), (e) => e === loss);
  assert.ok(polls >= 4, `${polls}`);
});

Deno.test("a failed wait with no loss observed is DEVICE_LOST naming what failed", async () => {
  const error = await awaitDevice(mapFailed(), () => undefined, "the map of a read").then(
    () => undefined,
    (e) => e,
  );
  assert.ok(error instanceof DeviceLostError, String(error));
  assert.match(
    error.message,
    /lost: the map of a read failed \(OperationError: validation error occurred\)/,
  );
  assert.ok(error.cause instanceof DOMException);
  // The runtime's own typed errors pass through; a value comes back when nothing closed.
  const typed = new KernelArgumentError("k", "buffer 0", "is wrong");
  await assert.rejects(awaitDevice(Promise.reject(typed), () => undefined), (e) => e === typed);
  assert.equal(await awaitDevice(Promise.resolve(7), () => undefined), 7);
  const closed = new DeviceLostError("The WebGPU device was lost (gone)");
  await assert.rejects(awaitDevice(Promise.resolve(7), () => closed), (e) => e === closed);
});

Deno.test({
  name:
    "a read on a device destroyed behind the client's back is DEVICE_LOST with the loss's reason",
  ignore,
  async fn() {
    using client = await createClient({ adapter: adapter! });
    using x = client.createWithData(new Float32Array([1, 2, 3]));
    assert.deepEqual(await client.read(x), new Float32Array([1, 2, 3]));
    (client.server as WebGpuServer).device.destroy();
    const error = await client.read(x).then(() => undefined, (e) => e);
    assert.ok(error instanceof ComputeError && error.code === "DEVICE_LOST", String(error));
    // The loss's own reason, not the failed map's "OperationError: validation error occurred"
    // (which the device lost on the H100 reported, and this read did before the wait for `lost`).
    assert.match(error.message, /^The WebGPU device was lost \(destroyed: /);
  },
});
