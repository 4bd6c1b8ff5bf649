/**
 * {@linkcode ServerState}: whether a server may still be used. Every call of a server checks it
 * first (`DESTROYED` after `destroy()`, then the stream id), and `destroy()` runs once.
 *
 * @module
 */

import { DestroyedError } from "../../core/errors.ts";
import { assertStreamId, type StreamId } from "../../core/stream_id.ts";

/**
 * The usable/destroyed state of one server.
 *
 * @example
 * ```ts
 * import { ServerState } from "@gpucompute/runtime/backend";
 * const state = new ServerState("WebGPU server");
 * state.assertUsable(0); // fine
 * console.log(state.markDestroyed(), state.markDestroyed()); // true false
 * try {
 *   state.assertUsable(0);
 * } catch (error) {
 *   console.log((error as Error).message); // The WebGPU server was destroyed
 * }
 * ```
 */
export class ServerState {
  /** What the server is called in messages (`"WebGPU server"`). */
  readonly name: string;
  #destroyed = false;

  /** Creates the state of a usable server called `name` in messages. */
  constructor(name: string) {
    this.name = name;
  }

  /** True after {@linkcode markDestroyed}. */
  get destroyed(): boolean {
    return this.#destroyed;
  }

  /** Marks the server destroyed; `false` when it already was (so `destroy()` runs once). */
  markDestroyed(): boolean {
    if (this.#destroyed) return false;
    this.#destroyed = true;
    return true;
  }

  /**
   * Throws `DESTROYED` once destroyed, then `TypeError` / `RangeError` for a bad stream id (when
   * one is given).
   */
  assertUsable(stream?: StreamId): void {
    if (this.#destroyed) throw this.destroyedError();
    // An ordinary id passes without a call (this runs on every server call).
    if (stream !== undefined && (stream >>> 0) !== stream) assertStreamId(stream);
  }

  /** The error of a call on (or a wait outliving) the destroyed server. */
  destroyedError(options?: ErrorOptions): DestroyedError {
    return new DestroyedError(`The ${this.name} was destroyed`, options);
  }
}
