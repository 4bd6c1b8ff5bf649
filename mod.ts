/**
 * A GPU compute runtime for Deno: run WGSL compute kernels on WebGPU (Deno's built-in
 * `navigator.gpu`, including the CPU fallback adapter) through one client with logical streams,
 * pooled memory, automatic cross-stream ordering, profiling and typed errors.
 *
 * This entry point is for people who run kernels. Backend authors import `./backend` (the server
 * contract, handles, pools and multi-stream managers); the WebGPU backend itself is `./webgpu`.
 *
 * @example Double four numbers
 * ```ts ignore
 * import { createClient, CubeCount } from "@gpucompute/runtime";
 * using client = await createClient();
 * using data = client.createWithData(new Float32Array([1, 2, 3, 4]));
 * client.execute({
 *   id: "double",
 *   entryPoint: "main",
 *   workgroupSize: [64, 1, 1],
 *   source: `@group(0) @binding(0) var<storage, read_write> v: array<f32>;
 *     @compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3u) {
 *       if (g.x < arrayLength(&v)) { v[g.x] = v[g.x] * 2.0; } }`,
 * }, { count: CubeCount.new1d(1), buffers: [data] });
 * console.log(await client.read(data, Float32Array)); // Float32Array [2, 4, 6, 8]
 * ```
 *
 * @module
 */

export {
  createClient,
  type CreateClientOptions,
  type CreateCudaClientOptions,
} from "./runtime/create_client.ts";
export {
  ComputeClient,
  type ComputeClientOptions,
  type CreateOptions,
  type ExecuteOptions,
  type Profiled,
  type StreamOptions,
  type TypedArray,
  type TypedArrayConstructor,
  type WriteOptions,
} from "./runtime/client.ts";
export type { WgslKernel } from "./runtime/server/webgpu/kernel.ts";
export type { CudaKernel } from "./runtime/server/cuda/kernel.ts";
export type { CudaServerOptions } from "./runtime/server/cuda/server.ts";
export type { CudaDeviceOptions } from "./runtime/server/cuda/device.ts";
export type { CudaDriverOptions } from "./runtime/server/cuda/_ffi.ts";
export type { WebGpuServerOptions } from "./runtime/server/webgpu/server.ts";
export type { WebGpuDeviceOptions } from "./runtime/server/webgpu/device.ts";
export { CubeCount, type CubeCountConstructors } from "./runtime/core/cube_count.ts";
export { Handle } from "./runtime/core/handle.ts";
export type { StreamId } from "./runtime/core/stream_id.ts";
export type { ExecutionMode, KernelMetadata, MemoryAllocationMode } from "./runtime/core/kernel.ts";
export type { LogVerbosity, RuntimeOptions, SchedulerStrategy } from "./runtime/core/config.ts";
export type { ProfileDuration } from "./runtime/server/server.ts";
export { formatMemoryUsage, type MemoryUsage } from "./runtime/memory/memory_usage.ts";
export { formatBytes } from "./runtime/core/format_bytes.ts";
export {
  BackendUnavailableError,
  BufferTooBigError,
  CompilationError,
  ComputeError,
  type ComputeErrorCode,
  InvalidHandleError,
  OutOfMemoryError,
  RuntimeError,
  StreamUnhealthyError,
  UnsupportedError,
} from "./runtime/core/errors.ts";
