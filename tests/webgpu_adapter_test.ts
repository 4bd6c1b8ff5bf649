/**
 * Every WebGPU test file ignores its tests where `requestAdapter()` finds no adapter, so that the
 * suite runs on any machine. Under CI that would turn a broken driver install into a green run
 * with the WebGPU half of the suite unexercised: with `CI=true` (the runner grants `--allow-env=CI`)
 * a missing adapter fails here instead.
 */
import assert from "node:assert/strict";

const adapter = await navigator.gpu?.requestAdapter();

/** The variable's value where this process may read it, else undefined (no permission prompt). */
function env(name: string): string | undefined {
  const { state } = Deno.permissions.querySync({ name: "env", variable: name });
  return state === "granted" ? Deno.env.get(name) : undefined;
}

/** `CI` set to `true` or `1`, as CI services set it. */
const ci = ["true", "1"].includes(env("CI")?.toLowerCase() ?? "");

Deno.test({
  name: "a WebGPU adapter is found (required when CI=true, ignored elsewhere when there is none)",
  ignore: !adapter && !ci,
  async fn() {
    assert.ok(
      adapter,
      "CI=true but navigator.gpu.requestAdapter() found no adapter: the WebGPU tests would all " +
        "be ignored. Install a Vulkan driver (Mesa lavapipe: mesa-vulkan-drivers libvulkan1), " +
        "as .ci/run does.",
    );
    // A usable adapter, not just an object: a device comes from it.
    const device = await adapter.requestDevice();
    device.destroy();
  },
});

Deno.test("no adapter: NO_ADAPTER saying what a Linux GPU needs in Deno", async () => {
  const { WebGpuDevice } = await import("../runtime/server/webgpu/mod.ts");
  const gpu = (globalThis.navigator as { gpu?: GPU }).gpu;
  if (gpu === undefined) return; // nothing to stub: the other branch is the same error
  const real = gpu.requestAdapter;
  gpu.requestAdapter = () => Promise.resolve(null);
  try {
    await assert.rejects(
      WebGpuDevice.request(),
      (e: unknown) =>
        (e as { code?: string }).code === "NO_ADAPTER" &&
        /libvulkan\.so\.1/.test((e as Error).message) &&
        /DENO_WEBGPU_BACKEND=vulkan/.test((e as Error).message),
    );
  } finally {
    gpu.requestAdapter = real;
  }
});
