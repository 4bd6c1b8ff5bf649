/**
 * What a backend tells the runtime about itself, once, in its own folder (`<name>/backend.ts`):
 * its name, how to list its devices, how to open a server, the kernels it runs and the stream
 * engine its server orders work with. `createClient` and `listDevices` (`runtime/backends/`)
 * read backends only through this shape, so the client layer never names one; adding a backend
 * is its folder plus one line in `runtime/backends/builtin.ts` (see docs/architecture.md,
 * "Adding a backend").
 *
 * @module
 */

import type { KernelMetadata } from "../core/kernel.ts";
import type { ComputeServer } from "./server.ts";

/**
 * What every `listDevices()` entry has, whatever its backend: the backend's name, a stable `id`
 * (`"<backend>:<index>"`, accepted by `createClient({ device })`), its position in its backend's
 * list, and a name for people.
 *
 * @example
 * ```ts
 * import type { DeviceEntry } from "@gpucompute/runtime/backend";
 * const entry: DeviceEntry = { backend: "cuda", id: "cuda:0", index: 0, name: "NVIDIA H100" };
 * ```
 */
export interface DeviceEntry {
  /** The backend that found the device. */
  readonly backend: string;
  /** `"<backend>:<index>"`: stable for the process, accepted by `createClient({ device })`. */
  readonly id: string;
  /** Position in the backend's list (`listDevices({ backend })`), from 0. */
  readonly index: number;
  /** The device's name. */
  readonly name: string;
}

/**
 * The stream engine a backend's server orders its streams with: `"event"` (CubeCL's
 * event-based `MultiStream`, for devices with many hardware queues and events: CUDA) or
 * `"scheduler"` (the task-queue `SchedulerMultiStream`, for one queue per device: WebGPU).
 *
 * @example
 * ```ts
 * import type { StreamEngine } from "@gpucompute/runtime/backend";
 * const engine: StreamEngine = "scheduler";
 * ```
 */
export type StreamEngine = "event" | "scheduler";

/**
 * One backend, described once (see the module doc). `K` is its kernel type, `O` the options of
 * `createClient` it understands, `D` its `listDevices()` entries.
 *
 * @example A backend that opens a server built elsewhere
 * ```ts ignore
 * import type { BackendDescriptor } from "@gpucompute/runtime/backend";
 * declare function openMyServer(): Promise<import("@gpucompute/runtime/backend").ComputeServer>;
 * const mine: BackendDescriptor = {
 *   name: "mine",
 *   streamEngine: "event",
 *   kernels: "host functions",
 *   requiresDeno: false,
 *   listDevices: () => Promise.resolve([{ backend: "mine", id: "mine:0", index: 0, name: "mine" }]),
 *   openServer: () => openMyServer(),
 * };
 * ```
 */
export interface BackendDescriptor<
  K extends KernelMetadata = KernelMetadata,
  O extends object = Record<string, unknown>,
  D extends DeviceEntry = DeviceEntry,
> {
  /** The name users pass as `createClient({ backend })`, and the prefix of its device ids. */
  readonly name: string;
  /** The stream engine of its servers. */
  readonly streamEngine: StreamEngine;
  /** What its kernels are, for error messages ("WGSL source", "PTX or CUDA C"). */
  readonly kernels: string;
  /** Whether it needs Deno (FFI): elsewhere it is `BACKEND_UNAVAILABLE` without being loaded. */
  readonly requiresDeno: boolean;
  /**
   * The devices it finds, in a stable order. `BACKEND_UNAVAILABLE` when it cannot run here (no
   * library, no device, no permission); `options` are `listDevices`' own.
   */
  listDevices(options: Readonly<Record<string, unknown>>): Promise<readonly D[]>;
  /**
   * A new server from `createClient` options (without `backend` and `device`), on `device` when
   * the caller named one of this backend's entries.
   */
  openServer(options: O, device: D | undefined): Promise<ComputeServer<K>>;
}
