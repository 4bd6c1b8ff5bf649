/**
 * Writes of bytes that do not fill whole 4-byte words (an `i8`, `u8`, `f16`, `i16` or `u16`
 * element at an odd position). WebGPU copies only whole words, so such a word is patched on the
 * device, in stream order, by a one-invocation compute pass per word: `word = (word & ~mask) |
 * (value & mask)`, keeping the bytes the write does not cover. The patches are encoded after the
 * write's copies, in the same copy task.
 *
 * @module
 */

import { BufferUsage } from "./_buffer_usage.ts";

/** One word to patch: `mask` selects the bytes of `value` that land at byte `offset`. */
export interface WordPatch {
  readonly resource: GPUBuffer;
  /** Byte offset of the word in `resource` (a multiple of 4). */
  readonly offset: number;
  readonly mask: number;
  readonly value: number;
}

const SOURCE = `
@group(0) @binding(0) var<storage, read_write> dst: array<u32>;
@group(0) @binding(1) var<storage, read> edit: vec4u;
@compute @workgroup_size(1) fn main() {
  dst[edit.x] = (dst[edit.x] & ~edit.y) | (edit.z & edit.y);
}`;

const pipelines = new WeakMap<GPUDevice, GPUComputePipeline>();

/**
 * The patches of the bytes `[start, end)` of `data` (placed at byte `at` of `resource`) that
 * fall in partial words: at most one at each end.
 */
export function partialWords(
  resource: GPUBuffer,
  at: number,
  data: Uint8Array,
  words: readonly number[],
): WordPatch[] {
  return words.map((word) => {
    let mask = 0;
    let value = 0;
    for (let byte = 0; byte < 4; byte++) {
      const i = word + byte - at;
      if (i < 0 || i >= data.length) continue;
      mask |= 0xff << (8 * byte);
      value |= data[i] << (8 * byte);
    }
    return { resource, offset: word, mask: mask >>> 0, value: value >>> 0 };
  });
}

/**
 * Encodes the patches (one dispatch each) and returns the buffer holding their words, to destroy
 * once submitted.
 */
export function encodePatches(
  device: GPUDevice,
  encoder: GPUCommandEncoder,
  patches: readonly WordPatch[],
): GPUBuffer {
  // Bind-group offsets are multiples of the alignment (a power of two, at least 32 by the spec).
  const stride = Math.max(16, device.limits.minStorageBufferOffsetAlignment);
  const words = device.createBuffer({
    size: patches.length * stride,
    usage: BufferUsage.STORAGE,
    mappedAtCreation: true,
  });
  const view = new Uint32Array(words.getMappedRange());
  // The word is bound through a window that starts at an aligned offset: its index in there.
  const windows = patches.map((patch) => patch.offset - (patch.offset % stride));
  patches.forEach((patch, i) => {
    view.set([(patch.offset - windows[i]) / 4, patch.mask, patch.value, 0], (i * stride) / 4);
  });
  words.unmap();
  const pipeline = pipelineOf(device);
  const layout = pipeline.getBindGroupLayout(0);
  const pass = encoder.beginComputePass();
  pass.setPipeline(pipeline);
  patches.forEach((patch, i) => {
    const window = {
      buffer: patch.resource,
      offset: windows[i],
      size: patch.offset - windows[i] + 4,
    };
    const entries = [
      { binding: 0, resource: window },
      { binding: 1, resource: { buffer: words, offset: i * stride, size: 16 } },
    ];
    pass.setBindGroup(0, device.createBindGroup({ layout, entries }));
    pass.dispatchWorkgroups(1);
  });
  pass.end();
  return words;
}

function pipelineOf(device: GPUDevice): GPUComputePipeline {
  let pipeline = pipelines.get(device);
  if (pipeline === undefined) {
    const module = device.createShaderModule({ code: SOURCE, label: "gpucompute.patch_words" });
    pipeline = device.createComputePipeline({
      layout: "auto",
      compute: { module, entryPoint: "main" },
      label: "gpucompute.patch_words",
    });
    pipelines.set(device, pipeline);
  }
  return pipeline;
}
