/**
 * Whether a client's device is a CPU adapter: the one place the kernels ask which shape of
 * kernel suits the device (the radix sort, `sort/_variant.ts`). A CPU adapter runs a WebGPU
 * "GPU" on the host's few cores (Mesa's llvmpipe and lavapipe, SwiftShader, Microsoft's WARP):
 * invocations are SIMD lanes of a few threads, workgroup barriers are dear and long serial runs
 * per invocation are fast; a real GPU wants many threads and workgroup memory instead.
 *
 * - WebGPU: the adapter reports itself as a fallback adapter (`GPUAdapterInfo.isFallbackAdapter`,
 *   where the device offers it), or its name (`DeviceProperties.deviceName`) names one of the
 *   software rasterizers above.
 * - CUDA: never; the simulated driver of the tests included (it stands for a GPU).
 *
 * @module
 */

import type { ComputeClient } from "../client/client.ts";

/** Device names of the software (CPU) WebGPU adapters. */
const CPU_ADAPTER_NAME = /llvmpipe|lavapipe|swiftshader|\bwarp\b|microsoft basic render/i;

/** Whether `client`'s device is a CPU adapter (see the module doc). */
export function isCpuAdapter(client: ComputeClient): boolean {
  const { backend, deviceName } = client.server.properties;
  if (backend !== "webgpu") return false;
  const device = (client.server as { device?: { adapterInfo?: { isFallbackAdapter?: boolean } } })
    .device;
  if (device?.adapterInfo?.isFallbackAdapter === true) return true;
  return CPU_ADAPTER_NAME.test(deviceName);
}
