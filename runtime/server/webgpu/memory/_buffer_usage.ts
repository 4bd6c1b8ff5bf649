/**
 * `GPUBufferUsage` flags, defined once. Mirrors the WebGPU constants so that modules need not
 * touch the `GPUBufferUsage` global at import time (it is absent where WebGPU is unavailable).
 *
 * @module
 */

/** The `GPUBufferUsage` bits the backend uses. */
export const BufferUsage = {
  MAP_READ: 0x1,
  COPY_SRC: 0x4,
  COPY_DST: 0x8,
  UNIFORM: 0x40,
  STORAGE: 0x80,
  INDIRECT: 0x100,
  QUERY_RESOLVE: 0x200,
} as const;
