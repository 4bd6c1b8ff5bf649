/**
 * The entry point for backend authors: the server contract every backend implements, and the
 * shared core it is built from (handles and bindings, memory pools, stream pools, the event
 * `MultiStream` and the task-queue `SchedulerMultiStream`).
 *
 * Layers import one way: `runtime/core` (vocabulary) ← `runtime/memory` ← `runtime/stream` ←
 * `runtime/server/server.ts` (the contract) ← backends ← the client. Users of kernels import the
 * package root instead.
 *
 * @example Allocate through the pools of a custom storage
 * ```ts ignore
 * import { MemoryManagement, type ComputeStorage } from "@gpucompute/runtime/backend";
 * declare const storage: ComputeStorage<Uint8Array>;
 * using memory = new MemoryManagement(storage);
 * using slice = memory.reserve(256);
 * ```
 *
 * @module
 */

export * from "./runtime/core/errors.ts";
export * from "./runtime/core/format_bytes.ts";
export * from "./runtime/core/handles/handle.ts";
export * from "./runtime/core/dtype.ts";
export * from "./runtime/core/allocation.ts";
export * from "./runtime/core/kernel_arguments.ts";
export * from "./runtime/core/cube_count.ts";
export * from "./runtime/core/kernel.ts";
export * from "./runtime/core/stream_id.ts";
export * from "./runtime/core/handles/slice_record.ts";
export * from "./runtime/core/handles/slice.ts";
export * from "./runtime/core/config.ts";
export * from "./runtime/core/logging.ts";
export * from "./runtime/memory/storage.ts";
export * from "./runtime/memory/memory_usage.ts";
export * from "./runtime/memory/memory_management.ts";
export * from "./runtime/stream/stream_pool.ts";
export {
  type EventStreamBackend,
  type GcPayload,
  MultiStream,
  type MultiStreamOptions,
  OrderedStream,
  type OrderOptions,
  type RequiredWaits,
} from "./runtime/stream/event.ts";
export * from "./runtime/stream/scheduler.ts";
export * from "./runtime/stream/stream_errors.ts";
export type * from "./runtime/stream/wait_recorder.ts";
export * from "./runtime/server/server.ts";
export type * from "./runtime/server/backend_descriptor.ts";
export type * from "./runtime/server/texture_server.ts";
export type { TextureArray } from "./runtime/client/textures/_textures.ts";
export type { TextureView } from "./runtime/client/textures/texture_view.ts";
export { TextureViewRef } from "./runtime/core/handles/texture_view_ref.ts";
export {
  type AnyBackend,
  backendNames,
  type BackendRegistration,
  loadBackend,
  registerBackend,
} from "./runtime/backends/registry.ts";
export type { BuiltinBackends } from "./runtime/backends/builtin.ts";
export type * from "./runtime/core/trace.ts";
export type * from "./sync/timeline_signal.ts";
export * from "./runtime/server/shared/mod.ts";
