/**
 * How the client makes and fills handles: the typed constructors' checks and host arrays, their
 * {@linkcode HandleKind}s (`_kinds.ts`), uploads and writes in stream order, through the held
 * streams when `waitFor` holds one.
 *
 * @module
 */

import { type Allocation, AllocationDescriptor, copyDescriptor } from "../core/allocation.ts";
import {
  assertDType,
  type DType,
  DTYPE_SIZE,
  dtypeOf,
  type HandleType,
  type TypedArray,
} from "../core/dtype.ts";
import type { Handle, HandleKind } from "../core/handles/handle.ts";
import { BufferTooBigError } from "../core/errors.ts";
import { resolveStreamId, type StreamId } from "../core/stream_id.ts";
import { assertNonNegativeInteger, describe } from "../core/_argument_checks.ts";
import type { ComputeServer } from "../server/server.ts";
import { checkedType, checkHandle, checkOptions } from "./_checks.ts";
import type { HeldStreams } from "./timeline/_held_streams.ts";
import { byteLength, checkWriteData, toBytes, writeRange } from "./_host_data.ts";
import { KindCache } from "./_kinds.ts";
import type { CreateOptions, TensorOptions, WriteOptions } from "./options.ts";

const BYTES: HandleKind = Object.freeze({ madeBy: "createBytes" });

/** Makes the client's handles (see the module doc). */
export class HandleFactory {
  readonly #kinds = new KindCache();
  readonly #held: HeldStreams;

  /** Handles whose uploads and writes go through `held`. */
  constructor(held: HeldStreams) {
    this.#held = held;
  }

  /**
   * The checked element type and length of a typed constructor (f32 by default). With `server`
   * (the constructors that fill a host array first: `zeros`, `full`, `arange`), a length beyond
   * the device's largest allocation is a `BufferTooBigError` before any host memory is taken.
   */
  typed<D extends DType>(
    length: number,
    dtype: D | undefined,
    options: object | undefined,
    server?: ComputeServer,
  ): D {
    if (options !== undefined) checkOptions(options);
    const type = checkedType(dtype);
    assertNonNegativeInteger(length, "length");
    if (server !== undefined) {
      const bytes = length * DTYPE_SIZE[type];
      const limit = server.properties.maxAllocationSize;
      if (bytes > limit) throw new BufferTooBigError(bytes, limit);
    }
    return type;
  }

  /** The kind of a handle made by `madeBy`, of `dtype`, with `options`' label if any. */
  kind(madeBy: string, dtype: HandleType, options?: CreateOptions): HandleKind {
    return this.#kinds.get(madeBy, dtype, options);
  }

  /** `byteSize` uninitialised bytes (`createBytes`). */
  bytes(server: ComputeServer, byteSize: number, options?: CreateOptions): Handle<"bytes"> {
    assertNonNegativeInteger(byteSize, "byteSize");
    if (options !== undefined) checkOptions(options, CREATE_KEYS.createBytes, "createBytes");
    const kind = options?.label === undefined
      ? BYTES
      : this.#kinds.get("createBytes", "bytes", options);
    const stream = resolveStreamId(options?.stream);
    return this.#allocated(server.empty(byteSize, stream, kind), stream) as Handle<"bytes">;
  }

  /** `length` uninitialised elements of a checked `type` (`empty`). */
  empty(server: ComputeServer, length: number, type: DType, options?: CreateOptions): Handle {
    if (options !== undefined) checkOptions(options, CREATE_KEYS.empty, "empty");
    const kind = this.#kinds.get("empty", type, options);
    const stream = resolveStreamId(options?.stream);
    return this.#allocated(server.empty(byteLength(length, type), stream, kind), stream);
  }

  /**
   * Memory allocated on a stream held by `waitFor` is defined by the calls held there (a
   * helper's kernel writing its result): should the wait fail, the calls held on the memory on
   * other streams fail too, rather than read what the memory held before.
   */
  #allocated(handle: Handle, stream: StreamId): Handle {
    if (this.#held.busy) this.#held.define(stream, [handle.slice.record], false);
    return handle;
  }

  /** A tensor of `shape` elements of `dtype` with its strides (`createTensor`). */
  tensor(
    server: ComputeServer,
    shape: readonly number[],
    dtype: DType,
    options: TensorOptions,
  ): Allocation {
    checkOptions(options, ["stream", "label", "kind"], "createTensor");
    assertDType(dtype, "dtype");
    const layout = options.kind ?? "contiguous";
    if (layout !== "contiguous" && layout !== "optimized") {
      throw new RangeError(`kind must be "contiguous" or "optimized", got ${describe(layout)}`);
    }
    const descriptor = AllocationDescriptor[layout](shape, DTYPE_SIZE[dtype]);
    const stream = resolveStreamId(options.stream);
    const [allocation] = server.create([descriptor], stream);
    using untyped = this.#allocated(allocation.handle, stream);
    return { handle: untyped.as(dtype), strides: allocation.strides };
  }

  /** A new handle holding `data`, of its type, made by `madeBy` (through the held path). */
  upload(
    server: ComputeServer,
    data: TypedArray | ArrayBuffer,
    madeBy: string,
    options?: CreateOptions,
  ): Handle {
    if (options !== undefined) checkOptions(options, CREATE_KEYS[madeBy], madeBy);
    const stream = resolveStreamId(options?.stream);
    const bytes = toBytes(data);
    const kind = this.#kinds.get(madeBy, dtypeOf(data), options);
    if (!this.#held.held(stream)) return server.createWithData(bytes, stream, kind);
    // A held stream (waitFor) takes the data when the write runs.
    const handle = server.empty(bytes.byteLength, stream, kind);
    this.#write(server, handle, bytes, 0, stream);
    // Should the wait fail, the write does not run: no other stream may read the bytes then.
    this.#held.define(stream, [handle.slice.record]);
    return handle;
  }

  /** Writes `data` (of the handle's type) into `handle` at `options.offset` elements. */
  write(
    server: ComputeServer,
    handle: Handle,
    data: TypedArray | ArrayBuffer,
    options: WriteOptions,
  ): void {
    checkHandle(handle, "handle");
    checkOptions(options, ["stream", "offset"], "write");
    checkWriteData(handle, data);
    const offset = options.offset ?? 0;
    assertNonNegativeInteger(offset, "offset");
    this.#write(server, handle, toBytes(data), offset, resolveStreamId(options.stream));
  }

  #write(
    server: ComputeServer,
    handle: Handle,
    bytes: Uint8Array,
    offset: number,
    stream: StreamId,
  ): void {
    const ref = writeRange(handle, bytes, offset);
    if (this.#held.busy) server.checkRef?.(ref); // another client's handle: at the call
    const descriptor = copyDescriptor(ref, [bytes.byteLength], [1], 1);
    const whole = offset === 0 && !handle.offsetStart && bytes.byteLength === handle.fullSize;
    if (whole) this.#held.lost.found(handle.slice.record); // defined again, if it was lost
    this.#held.runVoid(stream, [handle.slice.record], [handle], () => {
      server.write([{ descriptor, data: bytes }], stream);
      if (whole && this.#held.deps.any) this.#held.deps.define([handle.slice.record]);
    });
  }
}

/** The option keys of each constructor (`CreateOptions`, `FullOptions`, `ArangeOptions`). */
const CREATE_KEYS: Readonly<Record<string, readonly string[]>> = {
  createBytes: ["stream", "label"],
  createWithData: ["stream", "label"],
  empty: ["stream", "label"],
  zeros: ["stream", "label"],
  full: ["stream", "label", "dtype"],
  arange: ["stream", "label", "start", "step"],
};
