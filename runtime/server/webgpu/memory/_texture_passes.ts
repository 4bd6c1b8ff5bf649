/**
 * The passes that fill and read the textures WebGPU does not copy: `depth32float` (no
 * `copyBufferToTexture` into it) and multisampled textures (no copies at all).
 *
 * A fill is a render pass per layer drawing one full-screen triangle whose fragment shader reads
 * the texels from a storage buffer and writes `@builtin(frag_depth)` (depth formats) or the color.
 * It reads `@builtin(sample_index)`, so it runs once per sample and writes that sample's value:
 * the data is laid out [layer][y][x][sample][channels]. A read of a multisampled texture is a
 * compute pass that `textureLoad`s every sample into a storage buffer in the same layout. The
 * pipelines are made once per format and sample count and kept (one `TexturePasses` per device).
 *
 * @module
 */

import { TEXTURE_FORMATS, type TextureFormat } from "../../../core/handles/texture_format.ts";
import type { CopyTask } from "../queue/_tasks.ts";
import { BufferUsage } from "./_buffer_usage.ts";
import type { PendingTextureRead, TextureEntry } from "./textures.ts";
import { layerExtent } from "./_texture_copies.ts";
import { fillShader, readShader } from "./_texture_pass_shaders.ts";

/** Bytes of the header (width, height, samples, 0) before each layer's texels. */
const HEADER = 16;

/** The fill and read passes of one device. */
export class TexturePasses {
  readonly #device: GPUDevice;
  readonly #fills = new Map<string, GPURenderPipeline>();
  readonly #reads = new Map<string, GPUComputePipeline>();

  constructor(device: GPUDevice) {
    this.#device = device;
  }

  /** Whether the texture is filled by a render pass rather than a copy. */
  renders(entry: TextureEntry): boolean {
    return entry.sampleCount > 1 || entry.format === "depth32float";
  }

  /**
   * A task filling every sample of the texture from `data` (tightly packed, [layer][y][x][sample]
   * [channels]). `RangeError` for depth values outside [0, 1] (the depth a fragment writes is
   * clamped to the viewport's range: it would be a silent wrong result) or NaN.
   */
  fill(
    entry: TextureEntry,
    data: Uint8Array,
    level = 0,
    range?: readonly [number, number],
  ): CopyTask {
    const { sampleCount, format } = entry;
    const { width, height, depthOrArrayLayers: layers } = layerExtent(entry, level, range);
    const base = range?.[0] ?? 0;
    if (format === "depth32float") checkDepths(data);
    const layerBytes = width * height * sampleCount * TEXTURE_FORMATS[format].bytes;
    const align = this.#device.limits.minStorageBufferOffsetAlignment;
    const stride = Math.ceil((HEADER + align4(layerBytes)) / align) * align;
    const bindingMax = this.#device.limits.maxStorageBufferBindingSize;
    if (HEADER + layerBytes > bindingMax) {
      throw new RangeError(
        `A layer of this ${format} texture is ${layerBytes} bytes, past the ${bindingMax} a ` +
          `render pass fills it from (maxStorageBufferBindingSize)`,
      );
    }
    const staging = this.#device.createBuffer({
      size: stride * layers,
      usage: BufferUsage.STORAGE,
      mappedAtCreation: true,
    });
    const mapped = staging.getMappedRange();
    for (let z = 0; z < layers; z++) {
      new Uint32Array(mapped, z * stride, 4).set([width, height, sampleCount, 0]);
      new Uint8Array(mapped, z * stride + HEADER, layerBytes)
        .set(data.subarray(z * layerBytes, (z + 1) * layerBytes));
    }
    staging.unmap();
    const pipeline = this.#fill(format, sampleCount);
    const layout = pipeline.getBindGroupLayout(0);
    const size = HEADER + align4(layerBytes);
    const groups = Array.from({ length: layers }, (_, z) =>
      this.#device.createBindGroup({
        layout,
        entries: [{ binding: 0, resource: { buffer: staging, offset: z * stride, size } }],
      }));
    const depth = TEXTURE_FORMATS[format].depth === true;
    return {
      kind: "copy",
      copies: [],
      encode: (encoder) => {
        for (let z = 0; z < layers; z++) {
          const view = entry.texture.createView({
            dimension: "2d",
            baseArrayLayer: base + z,
            arrayLayerCount: 1,
            baseMipLevel: level,
            mipLevelCount: 1,
          });
          const pass = encoder.beginRenderPass(
            depth
              ? {
                colorAttachments: [],
                depthStencilAttachment: {
                  view,
                  depthClearValue: 0,
                  depthLoadOp: "clear",
                  depthStoreOp: "store",
                },
              }
              : { colorAttachments: [{ view, loadOp: "clear", storeOp: "store" }] },
          );
          pass.setPipeline(pipeline);
          pass.setBindGroup(0, groups[z]);
          pass.draw(3);
          pass.end();
        }
      },
      done: () => staging.destroy(),
    };
  }

  /** A read of every sample of a multisampled texture, tightly packed as {@linkcode fill} takes. */
  read(entry: TextureEntry): PendingTextureRead {
    const { width, height, sampleCount, format } = entry;
    const bytes = TEXTURE_FORMATS[format].bytes;
    const elements = width * height * sampleCount;
    // One word per sample of a 2-byte format (narrowed on the host), else the texel's words.
    const size = elements * Math.max(4, bytes);
    const device = this.#device;
    const output = device.createBuffer({
      size,
      usage: BufferUsage.STORAGE | BufferUsage.COPY_SRC,
    });
    const staging = device.createBuffer({
      size,
      usage: BufferUsage.MAP_READ | BufferUsage.COPY_DST,
    });
    const pipeline = this.#read(format);
    const group = device.createBindGroup({
      layout: pipeline.getBindGroupLayout(0),
      entries: [
        { binding: 0, resource: entry.view("2d") },
        { binding: 1, resource: { buffer: output } },
      ],
    });
    const groups = Math.ceil(elements / 64);
    const x = Math.min(groups, device.limits.maxComputeWorkgroupsPerDimension);
    const destroy = () => {
      output.destroy();
      staging.destroy();
    };
    return {
      task: {
        kind: "copy",
        copies: [],
        encode: (encoder) => {
          const pass = encoder.beginComputePass();
          pass.setPipeline(pipeline);
          pass.setBindGroup(0, group);
          pass.dispatchWorkgroups(x, Math.ceil(groups / x));
          pass.end();
          encoder.copyBufferToBuffer(output, 0, staging, 0, size);
        },
      },
      async result(): Promise<Uint8Array> {
        try {
          await staging.mapAsync(GPUMapMode.READ);
          const words = new Uint32Array(staging.getMappedRange().slice(0));
          staging.unmap();
          if (bytes === 2) return new Uint8Array(Uint16Array.from(words).buffer);
          return new Uint8Array(words.buffer);
        } finally {
          destroy();
        }
      },
      cancel: destroy,
    };
  }

  #fill(format: TextureFormat, samples: number): GPURenderPipeline {
    const key = `${format}/${samples}`;
    let pipeline = this.#fills.get(key);
    if (pipeline !== undefined) return pipeline;
    const module = this.#device.createShaderModule({
      label: `fill ${key}`,
      code: fillShader(format),
    });
    const depth = TEXTURE_FORMATS[format].depth === true;
    pipeline = this.#device.createRenderPipeline({
      label: `fill ${key}`,
      layout: "auto",
      vertex: { module, entryPoint: "vs" },
      fragment: { module, entryPoint: "fs", targets: depth ? [] : [{ format }] },
      depthStencil: depth ? { format, depthWriteEnabled: true, depthCompare: "always" } : undefined,
      multisample: { count: samples },
    });
    this.#fills.set(key, pipeline);
    return pipeline;
  }

  #read(format: TextureFormat): GPUComputePipeline {
    let pipeline = this.#reads.get(format);
    if (pipeline !== undefined) return pipeline;
    const module = this.#device.createShaderModule({
      label: `read ${format}`,
      code: readShader(format),
    });
    pipeline = this.#device.createComputePipeline({
      label: `read ${format}`,
      layout: "auto",
      compute: { module, entryPoint: "main" },
    });
    this.#reads.set(format, pipeline);
    return pipeline;
  }
}

/**
 * `RangeError` for a depth32float value a depth write cannot keep: outside [0, 1] or NaN (the
 * viewport's range clamps it), or subnormal (below 2^-126: depth writes may flush it to 0, and
 * llvmpipe does). -0 is the same depth as 0: it comes back as either (llvmpipe: 0, an H100: -0).
 */
function checkDepths(data: Uint8Array): void {
  const values = new Float32Array(data.buffer, data.byteOffset, data.byteLength / 4);
  const at = values.findIndex((v) => !(v >= 0 && v <= 1) || (v !== 0 && v < MIN_NORMAL));
  if (at < 0) return;
  throw new RangeError(
    `depth32float data must be 0 or in [2^-126, 1] (a depth write clamps to the viewport's ` +
      `range [0, 1] and may flush subnormals to 0), got ${values[at]} at element ${at}`,
  );
}

/** The smallest normal f32, 2^-126. */
const MIN_NORMAL = 2 ** -126;

function align4(n: number): number {
  return Math.ceil(n / 4) * 4;
}
