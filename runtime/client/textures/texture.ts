/**
 * {@linkcode Texture}: a 2-D texture made by `client.createTexture`, bound in `buffers` to a
 * kernel's texture bindings (`texture_2d<T>`, `texture_storage_2d<F, A>`), written and read
 * back through the client like a handle, and disposed like one.
 *
 * @module
 */

import { HandleRef } from "../../core/handles/handle_ref.ts";
import type { SliceHandle } from "../../core/handles/slice.ts";
import { InvalidHandleError } from "../../core/errors.ts";
import type { StreamId } from "../../core/stream_id.ts";
import type { TextureFormat } from "../../core/handles/texture_format.ts";

/**
 * A 2-D texture on a client's device. Work on it is ordered across streams like a buffer's.
 *
 * @example Make, fill and read back an image
 * ```ts
 * import { createClient } from "@gpucompute/runtime";
 * using client = await createClient();
 * using image = client.createTexture({ width: 2, height: 1, format: "r32float" });
 * client.write(image, new Float32Array([1, 2]));
 * console.log(await client.read(image)); // Float32Array [1, 2]
 * ```
 */
export class Texture implements Disposable {
  /** Texels per row. */
  readonly width: number;
  /** Rows. */
  readonly height: number;
  /** The texel format. */
  readonly format: TextureFormat;
  /** The caller's name for it, if any. */
  readonly label: string | undefined;
  readonly #slice: SliceHandle;
  readonly #ref: HandleRef;

  /** Wraps the owner of a texture a server made (see `client.createTexture`). */
  constructor(
    slice: SliceHandle,
    shape: { width: number; height: number; format: TextureFormat; label?: string },
    stream: StreamId,
  ) {
    this.#slice = slice;
    this.width = shape.width;
    this.height = shape.height;
    this.format = shape.format;
    this.label = shape.label;
    this.#ref = new HandleRef(slice.ref(), {
      offsetStart: 0,
      offsetEnd: 0,
      stream,
      cursor: 0,
      fullSize: 0,
      dtype: "bytes",
      label: shape.label ?? `${shape.format} texture ${shape.width}x${shape.height}`,
      madeBy: "createTexture",
    });
  }

  /** True after {@linkcode dispose}. */
  get disposed(): boolean {
    return this.#slice.disposed;
  }

  /** The texture's ref (what launches bind); `INVALID_HANDLE` after {@linkcode dispose}. */
  ref(): HandleRef {
    if (this.#slice.disposed) {
      throw new InvalidHandleError(`Texture '${this.#ref.label}' was used after dispose()`);
    }
    return this.#ref;
  }

  /** Releases the texture once the work queued on it has run. Idempotent. */
  dispose(): void {
    this.#slice.dispose();
  }

  /** Same as {@linkcode dispose}, for `using`. */
  [Symbol.dispose](): void {
    this.dispose();
  }
}
