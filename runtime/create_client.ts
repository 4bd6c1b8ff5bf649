/**
 * The one-call entry point: a {@linkcode ComputeClient} on the chosen backend, loaded with a
 * dynamic `import()` so a program never loads the code of a backend it does not use.
 *
 * @module
 */

import { ComputeClient } from "./client.ts";
import type { WgslKernel } from "./server/webgpu/kernel.ts";
import type { WebGpuServerOptions } from "./server/webgpu/server.ts";

/** Options of {@linkcode createClient}: the backend and its server options. */
export interface CreateClientOptions extends WebGpuServerOptions {
  /**
   * The backend. Only WebGPU ships in this release.
   * @default {"webgpu"}
   */
  backend?: "webgpu";
}

/**
 * Creates a client on a new server of the chosen backend (WebGPU on the default adapter unless
 * options say otherwise). Destroying the client destroys the server.
 *
 * @example
 * ```ts ignore
 * import { createClient } from "@gpucompute/runtime";
 * using client = await createClient({ powerPreference: "high-performance" });
 * console.log(client.server.properties.deviceName);
 * ```
 */
export async function createClient(
  options: CreateClientOptions = {},
): Promise<ComputeClient<WgslKernel>> {
  const backend = options.backend ?? "webgpu";
  if (backend !== "webgpu") {
    throw new RangeError(`backend must be "webgpu", got ${JSON.stringify(backend)}`);
  }
  // Loaded on demand so that importing the package loads no backend code it does not use.
  const { WebGpuServer } = await import("./server/webgpu/server.ts");
  return new ComputeClient(await WebGpuServer.create(options));
}
