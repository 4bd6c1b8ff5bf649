/**
 * The shared server layer: what every backend does the same way, taking the backend's
 * primitives (its layout of an allocation or a copy, its reservation, where a ref's memory is,
 * its `read` and `write`). A backend calls into it; it never calls back into a backend on its own.
 *
 * - `server_state.ts`: usable or destroyed, checked first by every call.
 * - `allocate.ts`: `create` with every descriptor checked first and rollback, `empty` and
 *   `createWithData` with their handle kind.
 * - `copy_target.ts`: copy descriptors and write entries checked, with one error text.
 * - `lease.ts`: the resource lease of `getResource`.
 * - `host_copy.ts`: the server-to-server copy through the host.
 *
 * @module
 */

export * from "./server_state.ts";
export * from "./allocate.ts";
export * from "./copy_target.ts";
export * from "./lease.ts";
export * from "./host_copy.ts";
