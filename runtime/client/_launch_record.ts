/**
 * The client's launch record: filled by `execute` from its options (handles turned into refs),
 * read by the server during the call only (the contract of `ComputeServer.execute`, which checks
 * it), then cleared so it keeps nothing alive.
 *
 * @module
 */

import type { LostMemory } from "./timeline/_lost_memory.ts";
import type { DeviceDeps } from "./timeline/_device_deps.ts";
import { KernelArguments, STORAGE_TYPE_SIZE, type StorageType } from "../core/kernel_arguments.ts";
import { CubeCount } from "../core/cube_count.ts";
import { Handle } from "../core/handles/handle.ts";
import { HandleRef } from "../core/handles/handle_ref.ts";
import type { KernelMetadata, KernelParams } from "../core/kernel.ts";
import { assertU32, describe } from "../core/_argument_checks.ts";
import type { ComputeServer, KernelLaunch } from "../server/server.ts";
import { resolveStreamId } from "../core/stream_id.ts";
import type { StreamErrors } from "../stream/stream_errors.ts";
import type { ExecuteOptions } from "./options.ts";
import type { SamplerDescriptor } from "../server/texture_server.ts";
import { Texture } from "./textures/texture.ts";
import { TextureView } from "./textures/texture_view.ts";
import { InvalidHandleError } from "../core/errors.ts";

const SINGLE: CubeCount = CubeCount.newSingle();
const NO_BUFFERS: readonly Handle[] = Object.freeze([]);

/** A `threads` cube count being filled in. */
type ThreadsCount = { kind: "threads"; x: number; y: number; z: number };

/** A launch filled from `execute` options; one is reused by every launch that is not held. */
export class LaunchRecord<K extends KernelMetadata> implements KernelLaunch<K> {
  kernel: K = undefined!;
  count: CubeCount = SINGLE;
  readonly args: KernelArguments = new KernelArguments();
  params: KernelParams | undefined = undefined;
  overrides: ExecuteOptions["overrides"] = undefined;
  /** The WGSL names of the buffers when named (reused), else `undefined`. */
  bufferNames: string[] | undefined = undefined;
  samplers: SamplerDescriptor[] | undefined = undefined;
  samplerNames: string[] | undefined = undefined;
  readonly #names: string[] = [];
  /** The `threads` count that `count` points to for `threads` launches. */
  readonly #threads: ThreadsCount = { kind: "threads", x: 1, y: 1, z: 1 };

  /**
   * Fills the record: the buffers as refs (`TypeError` for anything but a handle or a ref;
   * `INVALID_HANDLE` for a disposed handle), scalars, metadata, the count and params. Everything
   * else is the server's to check.
   */
  fill(kernel: K, options: ExecuteOptions): void {
    const buffers = options.buffers ?? NO_BUFFERS;
    const refs = this.args.buffers;
    if (Array.isArray(buffers)) {
      let i = 0;
      try {
        for (; i < buffers.length; i++) {
          const item = buffers[i];
          if (item instanceof Handle) refs.push(item.ref());
          else if (item instanceof HandleRef) refs.push(item);
          else refs.push(refOf(item, i));
        }
      } catch (error) {
        throw naming(error, `buffers[${i}]`);
      }
    } else this.#named(buffers);
    if (options.samplers !== undefined) this.#samplers(options.samplers);
    if (options.scalars !== undefined) addScalars(this.args, options.scalars);
    if (options.metadata !== undefined) this.args.withMetadata(options.metadata);
    this.kernel = kernel;
    this.count = this.#count(options);
    // An array (PTX params by position) is the server's to check, as any other value.
    this.params = options.params as KernelParams | undefined;
    this.overrides = options.overrides;
  }

  /** Buffers by WGSL name: refs in key order, names beside them (the server binds by name). */
  #named(buffers: unknown): void {
    if (typeof buffers !== "object" || buffers === null) {
      throw new TypeError(
        `buffers must be an array or an object by name, got ${describe(buffers)}`,
      );
    }
    const names = this.#names;
    names.length = 0;
    for (const [name, item] of Object.entries(buffers)) {
      try {
        this.args.buffers.push(refOf(item, name));
      } catch (error) {
        throw naming(error, `buffers.${name}`);
      }
      names.push(name);
    }
    this.bufferNames = names;
  }

  #samplers(samplers: ExecuteOptions["samplers"]): void {
    if (Array.isArray(samplers)) this.samplers = [...samplers];
    else if (typeof samplers === "object" && samplers !== null) {
      this.samplerNames = Object.keys(samplers);
      this.samplers = Object.values(samplers);
    } else {
      throw new TypeError(
        `samplers must be an array or an object by name, got ${describe(samplers)}`,
      );
    }
  }

  /**
   * `ComputeClient.execute` on a stream nothing holds: fills this record, runs the launch, clears
   * it (the server reads it during the call only, so one record serves every such launch).
   */
  run(
    server: ComputeServer<K>,
    { errors, lost, deps }: { errors: StreamErrors; lost: LostMemory; deps: DeviceDeps },
    kernel: K,
    options: ExecuteOptions,
  ): void {
    try {
      this.fill(kernel, options);
      const stream = resolveStreamId(options.stream);
      errors.throwFor(stream);
      if (lost.any) { for (const ref of this.args.buffers) lost.check(ref.slice.record); }
      server.execute(this, stream);
      if (deps.any) deps.useLaunch(server, this, stream); // after: the server's checks passed
    } catch (error) {
      throw this.named(server, error);
    } finally {
      this.clear();
    }
  }

  /**
   * `error` as thrown, or, for a server's `INVALID_HANDLE` (another client's handle), led by the
   * buffer argument it names (`buffers[1]`), found by asking the server of each buffer in turn.
   */
  named(server: ComputeServer<K>, error: unknown): unknown {
    if (!(error instanceof InvalidHandleError) || NAMED.has(error)) {
      return error; // not the server's, or named already (a disposed handle, `fill`)
    }
    const refs = this.args.buffers, names = this.bufferNames;
    for (let i = 0; i < refs.length; i++) {
      try {
        server.checkRef?.(refs[i]);
      } catch (found) {
        if (found instanceof InvalidHandleError) {
          return naming(error, names === undefined ? `buffers[${i}]` : `buffers.${names[i]}`);
        }
      }
    }
    return error;
  }

  /** Drops every reference of the last launch. */
  clear(): void {
    this.bufferNames = this.samplers = this.samplerNames = undefined;
    this.args.clear();
    this.count = SINGLE; // a caller's count may hold a ref
    this.kernel = undefined!;
    this.params = undefined;
    this.overrides = undefined;
  }

  /** The cube count: `count` as given (the server checks it), or `threads` written in place. */
  #count(options: ExecuteOptions): CubeCount {
    const { threads, count } = options;
    if ((threads === undefined) === (count === undefined)) {
      throw new TypeError("execute needs exactly one of threads or count");
    }
    if (count !== undefined) return workgroups(count);
    const into = this.#threads;
    if (typeof threads === "number") {
      into.x = threads;
      into.y = into.z = 1;
    } else if (Array.isArray(threads)) {
      if (threads.length < 1 || threads.length > 3) {
        throw new RangeError(`threads must have 1 to 3 dimensions, got ${threads.length}`);
      }
      into.x = threads[0] ?? 1;
      into.y = threads[1] ?? 1;
      into.z = threads[2] ?? 1;
    } else {
      throw new TypeError(`threads must be a number or [x, y, z], got ${typeof threads}`);
    }
    // Named as the caller wrote it, the same on every backend.
    assertU32(into.x, "threads x");
    assertU32(into.y, "threads y");
    assertU32(into.z, "threads z");
    return into;
  }
}

/** `count` as a cube count: `n` and `[x, y, z]` count workgroups as `CubeCount.static` does. */
function workgroups(count: NonNullable<ExecuteOptions["count"]>): CubeCount {
  if (typeof count !== "number" && !Array.isArray(count)) {
    if (typeof count === "object" && count !== null) return count as CubeCount;
    throw new TypeError(`count must be n, [x, y, z] or a CubeCount, got ${describe(count)}`);
  }
  const [x = 1, y = 1, z = 1] = typeof count === "number" ? [count] : count;
  if (Array.isArray(count) && (count.length < 1 || count.length > 3)) {
    throw new RangeError(`count must have 1 to 3 dimensions, got ${count.length}`);
  }
  assertU32(x, "count x");
  assertU32(y, "count y");
  assertU32(z, "count z");
  return { kind: "static", x, y, z };
}

/** The ref of buffer `key` (an index or a WGSL name; the message is built on a refusal only). */
/** A disposed handle's `INVALID_HANDLE`, its message led by the argument it was given as. */
function naming(error: unknown, what: string): unknown {
  if (!(error instanceof InvalidHandleError)) return error;
  const named = new InvalidHandleError(`${what}: ${error.message}`, { cause: error });
  NAMED.add(named);
  return named;
}

/** The errors {@linkcode naming} made (a held launch's is named once, at the call). */
const NAMED = new WeakSet<object>();

function refOf(item: unknown, key: number | string): HandleRef {
  if (item instanceof Handle) return item.ref();
  if (item instanceof HandleRef) return item;
  if (item instanceof Texture || item instanceof TextureView) return item.ref();
  const what = typeof key === "number" ? `buffers[${key}]` : `buffers.${key}`;
  throw new TypeError(
    `${what} must be a Handle, a HandleRef, a Texture or a TextureView, got ${describe(item)}`,
  );
}

function addScalars(
  args: KernelArguments,
  scalars: Partial<Record<StorageType, readonly (number | bigint)[]>>,
): void {
  if (typeof scalars !== "object" || scalars === null) {
    throw new TypeError(`scalars must be an object by storage type, got ${describe(scalars)}`);
  }
  for (const [type, values] of Object.entries(scalars)) {
    if (!Object.hasOwn(STORAGE_TYPE_SIZE, type)) {
      throw new TypeError(
        `scalars.${type}: unknown storage type (one of ${Object.keys(STORAGE_TYPE_SIZE)})`,
      );
    }
    if (values !== undefined) args.withScalar(type as StorageType, values);
  }
}

/**
 * `params` as they are now: plain objects, arrays, typed arrays, views and buffers copied (deep),
 * anything else as it is. A launch that runs after its call (held behind a `waitFor`, captured,
 * a replay's new params) runs the values of its call, as one on a free stream does: a change to
 * the caller's objects afterwards is no change to the launch.
 */
export function snapshotParams<T>(params: T): T {
  if (typeof params !== "object" || params === null) return params;
  if (Array.isArray(params)) return params.map(snapshotParams) as T;
  if (params instanceof DataView) {
    const { buffer, byteOffset, byteLength } = params;
    return new DataView(buffer.slice(byteOffset, byteOffset + byteLength)) as T;
  }
  if (ArrayBuffer.isView(params)) return (params as unknown as Uint8Array).slice() as T;
  if (params instanceof ArrayBuffer) return params.slice(0) as T;
  const proto = Object.getPrototypeOf(params);
  if (proto !== Object.prototype && proto !== null) return params;
  const copy = Object.create(proto);
  for (const [key, value] of Object.entries(params)) {
    // defined, not assigned: a param named `__proto__` stays a param
    Object.defineProperty(copy, key, {
      value: snapshotParams(value),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return copy;
}
