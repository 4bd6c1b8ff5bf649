/**
 * GPU compute for Deno: run WGSL compute kernels on WebGPU (Deno's built-in `navigator.gpu`,
 * including the CPU fallback adapter) through one client with logical streams, pooled memory,
 * automatic cross-stream ordering, profiling and typed errors.
 *
 * A kernel is its WGSL source: the entry point, workgroup size and bindings are read from it.
 * `buffers` fill the `var<storage>` bindings in binding order (`read` or `read_write`), `params`
 * fill the `var<uniform>` struct by field name, and `threads` says how many invocations to run.
 * {@linkcode elementwise}, {@linkcode reduce} and {@linkcode dot} build common kernels for you.
 *
 * Timeline signals order work across Workers and the GPU: `client.signal()` marks a point of a
 * stream on `client.timeline`, and `client.waitFor(signal, value)` holds a stream until a host
 * producer is done. `CpuTimelineSignal` (shared with Workers through shared memory) is exported
 * here; `./sync` adds the WebGPU queue signal.
 *
 * Several devices: {@linkcode listDevices} finds them, {@linkcode createClients} opens a client
 * per device, `client.copyTo(handle, other)` moves data between them and
 * `other.waitFor(client.timeline, client.signal())` orders one's work after the other's.
 *
 * This entry point is for people who run kernels. Backend authors import `./backend` (the server
 * contract, handles, pools and multi-stream managers, and the vocabulary types this entry point
 * only refers to, such as `CubeCountConstructors` or `MemoryAllocationMode`); the WebGPU backend
 * itself, with its device options and CubeCL's info-buffer packing, is `./webgpu`; the writers
 * of recorded traces (Perfetto JSON, SVG timeline) and the trace's types are `./trace`.
 *
 * @example SAXPY with a read-only input and named parameters
 * ```ts
 * import { createClient, type WgslKernel } from "@gpucompute/runtime";
 * const saxpy: WgslKernel = {
 *   source: `
 * struct Params { a: f32, n: u32 }
 * @group(0) @binding(0) var<storage, read> x: array<f32>;
 * @group(0) @binding(1) var<storage, read_write> y: array<f32>;
 * @group(0) @binding(2) var<uniform> p: Params;
 * @compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3u) {
 *   if (id.x < p.n) { y[id.x] = p.a * x[id.x] + y[id.x]; }
 * }`,
 * };
 * using client = await createClient();
 * using x = client.createWithData(new Float32Array([1, 2, 3, 4]));
 * using y = client.createWithData(new Float32Array([1, 1, 1, 1]));
 * client.execute(saxpy, { threads: 4, buffers: [x, y], params: { a: 2, n: 4 } });
 * console.log(await client.read(y, Float32Array)); // Float32Array [3, 5, 7, 9]
 * ```
 *
 * @module
 */

export {
  createClient,
  type CreateClientOptions,
  type CreateCudaClientOptions,
  type CreateRegisteredClientOptions,
  type CudaClient,
  type WebGpuClient,
} from "./runtime/backends/create_client.ts";
export {
  createClients,
  type DeviceInfo,
  listDevices,
  type ListDevicesOptions,
} from "./runtime/backends/devices.ts";
export { ComputeClient } from "./runtime/client/client.ts";
export { Texture } from "./runtime/client/textures/texture.ts";
export type { TextureFormat } from "./runtime/core/handles/texture_format.ts";
export type { SamplerDescriptor } from "./runtime/server/texture_server.ts";
export type { CaptureOptions, LaunchGraph, ReplayOptions } from "./runtime/client/_capture.ts";
export type {
  ArangeOptions,
  ArraysOf,
  ComputeClientOptions,
  CopyToOptions,
  CreateOptions,
  CreateTextureOptions,
  ExecuteOptions,
  FullOptions,
  Profiled,
  StreamOptions,
  TensorOptions,
  WaitForOptions,
  WriteOptions,
} from "./runtime/client/options.ts";
export type {
  ArrayOf,
  DType,
  DTypeOf,
  HandleType,
  TypedArray,
  TypedArrayConstructor,
} from "./runtime/core/dtype.ts";
export type { WgslKernel } from "./runtime/server/webgpu/kernel.ts";
export type { CudaKernel } from "./runtime/server/cuda/kernel.ts";
export type { KernelParams } from "./runtime/core/kernel.ts";
export type { WebGpuServerOptions } from "./runtime/server/webgpu/server.ts";
export { CubeCount } from "./runtime/core/cube_count.ts";
export type { Handle } from "./runtime/core/handles/handle.ts";
export type { ProfileDuration } from "./runtime/server/server.ts";
export { formatMemoryUsage, type MemoryUsage } from "./runtime/memory/memory_usage.ts";
export {
  type ElementType,
  elementwise,
  type ElementwiseKernel,
  type ElementwiseRunOptions,
  type ElementwiseSpec,
  type InputType,
} from "./runtime/kernels/elementwise.ts";
export {
  dot,
  reduce,
  type ReduceOp,
  type ReduceOptions,
  type ResultType,
} from "./runtime/kernels/reduce.ts";
export {
  reduction,
  type ReductionKernel,
  type ReductionRunOptions,
  type ReductionSpec,
} from "./runtime/kernels/reduction.ts";
// Primitives (#30): scan, sort, select.
export { cumsum, scan, type ScanOp, type ScanOptions } from "./runtime/kernels/scan/scan.ts";
export { argmax, argmin, type ArgOptions } from "./runtime/kernels/select/argmax.ts";
export { topk, type TopkOptions, type TopkResult } from "./runtime/kernels/select/topk.ts";
export {
  argsort,
  sort,
  type SortOptions,
  type SortPairsOptions,
} from "./runtime/kernels/sort/sort.ts";
export { type KernelRecording, recordKernels } from "./runtime/kernels/record_kernels.ts";
export {
  AbortedError,
  BackendUnavailableError,
  BufferTooBigError,
  CompilationError,
  ComputeError,
  DestroyedError,
  DeviceLostError,
  DriverError,
  InvalidHandleError,
  KernelArgumentError,
  NoAdapterError,
  OutOfMemoryError,
  StreamUnhealthyError,
  TimeoutError,
  UnsupportedError,
} from "./runtime/core/errors.ts";
export { CpuTimelineSignal } from "./sync/cpu_signal.ts";
export type { TimelineSignal } from "./sync/timeline_signal.ts";
// Primitives (#30): histogram, scatter, random numbers, linear algebra.
export { random, type RandomOptions } from "./runtime/kernels/random/random.ts";
export { histogram, type HistogramOptions } from "./runtime/kernels/histogram/histogram.ts";
export { bincount, type BincountOptions } from "./runtime/kernels/histogram/bincount.ts";
export { transpose, type TransposeOptions } from "./runtime/kernels/linalg/transpose.ts";
export { gather, type GatherOptions } from "./runtime/kernels/linalg/gather.ts";
export { scatterAdd, type ScatterAddOptions } from "./runtime/kernels/scatter/scatter_add.ts";
export {
  segmentReduce,
  type SegmentReduceOptions,
} from "./runtime/kernels/scatter/segment_reduce.ts";
export { matmul, type MatmulOptions } from "./runtime/kernels/linalg/matmul.ts";
