/**
 * The backend registry: where `createClient` and `listDevices` find backends by name. The shipped
 * ones come from `builtin.ts`; {@linkcode registerBackend} adds another (a test backend, a
 * backend of another package) for as long as its registration lives.
 *
 * @module
 */

import type { BackendDescriptor, DeviceEntry } from "../server/backend_descriptor.ts";
import type { KernelMetadata } from "../core/kernel.ts";
import { deno } from "../core/_platform.ts";
import { BackendUnavailableError } from "../core/errors.ts";
import { BUILTIN_BACKENDS } from "./builtin.ts";

/**
 * Any backend's description, as the registry holds it.
 *
 * @example
 * ```ts
 * import type { AnyBackend } from "@gpucompute/runtime/backend";
 * import { webgpuBackend } from "@gpucompute/runtime/webgpu";
 * const backend: AnyBackend = webgpuBackend;
 * console.log(backend.name, backend.streamEngine); // webgpu scheduler
 * ```
 */
// deno-lint-ignore no-explicit-any
export type AnyBackend = BackendDescriptor<KernelMetadata, any, any>;

/**
 * One registration: a backend's name, whether it needs Deno, and how to load its description
 * (an `import()`, so a program never loads the code of a backend it does not use).
 *
 * @example
 * ```ts ignore
 * import type { BackendRegistration } from "@gpucompute/runtime/backend";
 * const registration: BackendRegistration = {
 *   name: "mine",
 *   requiresDeno: false,
 *   load: async () => (await import("./my_backend.ts")).myBackend,
 * };
 * ```
 */
export interface BackendRegistration {
  /** The backend's name (`createClient({ backend })`, the prefix of its device ids). */
  readonly name: string;
  /** Whether it needs Deno: elsewhere it is `BACKEND_UNAVAILABLE` without being loaded. */
  readonly requiresDeno: boolean;
  /** Loads its description. */
  readonly load: () => Promise<AnyBackend>;
}

const registrations = new Map<string, BackendRegistration>(
  BUILTIN_BACKENDS.map((registration) => [registration.name, registration]),
);

/** The first shipped backend: what `createClient()` opens when no backend or device is named. */
export const DEFAULT_BACKEND: string = BUILTIN_BACKENDS[0].name;

/**
 * Registers a backend under its name, until the returned registration is disposed (a shipped
 * backend cannot be replaced: `RangeError`).
 *
 * @example A backend registered for one test: here WebGPU again, under another name
 * ```ts
 * import { registerBackend } from "@gpucompute/runtime/backend";
 * import { createClient } from "@gpucompute/runtime";
 * import { webgpuBackend } from "@gpucompute/runtime/webgpu";
 * {
 *   using _ = registerBackend({
 *     name: "gpu2",
 *     requiresDeno: false,
 *     load: () => Promise.resolve({ ...webgpuBackend, name: "gpu2" }), // its own name
 *   });
 *   using client = await createClient({ backend: "gpu2" });
 *   using x = client.createWithData(new Float32Array([1, 2, 3]));
 *   console.log(await client.read(x)); // Float32Array [1, 2, 3]
 * } // unregistered: createClient({ backend: "gpu2" }) is a RangeError again
 * ```
 */
export function registerBackend(registration: BackendRegistration): Disposable {
  const { name, load, requiresDeno } = registration ?? {};
  if (typeof name !== "string" || !/^[a-z][a-z0-9_-]*$/.test(name)) {
    throw new TypeError(
      `registration.name must be a lowercase name (letters, digits, _ and -), got ${
        JSON.stringify(name)
      }`,
    );
  }
  if (typeof load !== "function") throw new TypeError("registration.load must be a function");
  if (typeof requiresDeno !== "boolean") {
    throw new TypeError("registration.requiresDeno must be a boolean");
  }
  if (registrations.has(name)) {
    throw new RangeError(`A backend named ${JSON.stringify(name)} is registered already`);
  }
  const entry: BackendRegistration = { name, load, requiresDeno };
  registrations.set(name, entry);
  return {
    [Symbol.dispose]: () => {
      if (registrations.get(name) === entry) registrations.delete(name);
    },
  };
}

/**
 * The names of the registered backends, shipped ones first.
 *
 * @example
 * ```ts
 * import { backendNames } from "@gpucompute/runtime/backend";
 * console.log(backendNames()); // ["webgpu", "cuda"]
 * ```
 */
export function backendNames(): string[] {
  return [...registrations.keys()];
}

/**
 * The description of the backend `name`: `RangeError` for a name nobody registered,
 * `BACKEND_UNAVAILABLE` for a backend that needs Deno elsewhere.
 *
 * @example
 * ```ts
 * import { loadBackend } from "@gpucompute/runtime/backend";
 * const webgpu = await loadBackend("webgpu");
 * console.log(webgpu.streamEngine); // "scheduler"
 * ```
 */
export async function loadBackend(name: string): Promise<AnyBackend> {
  const registration = registrations.get(name);
  if (registration === undefined) {
    throw new RangeError(
      `backend must be one of ${backendNames().map((n) => JSON.stringify(n)).join(", ")}, got ${
        JSON.stringify(name)
      }`,
    );
  }
  if (registration.requiresDeno && deno === undefined) {
    throw new BackendUnavailableError(name, "it needs Deno's FFI, and this host is not Deno", []);
  }
  const backend = await registration.load();
  if (backend.name !== name) {
    throw new TypeError(
      `The backend registered as ${JSON.stringify(name)} describes itself as ${
        JSON.stringify(backend.name)
      }`,
    );
  }
  return backend;
}

/** Whether `value` is a `listDevices()` entry (a `GPUDevice` has no `backend` and `id`). */
export function isDeviceEntry(value: unknown): value is DeviceEntry {
  return typeof value === "object" && value !== null && "backend" in value && "id" in value &&
    typeof (value as DeviceEntry).backend === "string";
}

/**
 * The listed device of an id (`"cuda:1"`): lists the named backend's devices (with `options`,
 * e.g. the CUDA driver `library`) and picks the entry. `TypeError` for a malformed id,
 * `RangeError` for an unknown backend or an index it does not list.
 */
export async function deviceById(
  id: string,
  options: Readonly<Record<string, unknown>> = {},
): Promise<DeviceEntry> {
  const match = /^([a-z][a-z0-9_-]*):(0|[1-9][0-9]*)$/.exec(id);
  if (match === null) {
    throw new TypeError(
      `options.device must be a device id such as "webgpu:0" or "cuda:1", got ${
        JSON.stringify(id)
      }`,
    );
  }
  const [, name, index] = match;
  const backend = await loadBackend(name);
  const devices = await backend.listDevices(options);
  const found = devices.find((device) => device.id === id);
  if (found === undefined) {
    throw new RangeError(
      `options.device ${JSON.stringify(id)}: the ${name} backend lists ${devices.length} device${
        devices.length === 1 ? "" : "s"
      } (${devices.map((device) => device.id).join(", ") || "none"}), not index ${index}`,
    );
  }
  return found;
}
