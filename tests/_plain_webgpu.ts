/**
 * Plain WebGPU programs, the baselines the kernel tests compare against bit for bit: the same
 * WGSL run with a `"auto"` layout on a device of the same adapter, buffers, textures and
 * samplers made and bound by hand.
 */

/** What one plain binding is. */
export type PlainBinding =
  | { group: number; binding: number; buffer: ArrayBufferView<ArrayBuffer>; uniform?: boolean }
  | {
    group: number;
    binding: number;
    texture: {
      width: number;
      height: number;
      /** Layers or depth slices (1 when left out). */
      depthOrArrayLayers?: number;
      /** The texture's dimension ("2d" when left out). */
      dimension?: GPUTextureDimension;
      format: GPUTextureFormat;
      /** 4: a multisampled texture (left unfilled: WebGPU copies nothing into it). */
      sampleCount?: number;
      data?: ArrayBufferView<ArrayBuffer>;
    };
    /** The view's dimension (the texture's default view when left out). */
    viewDimension?: GPUTextureViewDimension;
    storage?: boolean;
  }
  | { group: number; binding: number; sampler: GPUSamplerDescriptor };

/** The pipeline's entry point and override constants, and the device's features. */
export interface PlainOptions {
  readonly entryPoint?: string;
  readonly constants?: Record<string, number>;
  readonly features?: readonly GPUFeatureName[];
  /** Limits above WebGPU's defaults to ask the device for (the client asks for the adapter's). */
  readonly limits?: Record<string, number>;
}

/**
 * Runs `code` once with `bindings` over `workgroups` and returns the bytes of every buffer and
 * texture afterwards, in the order of `bindings` (samplers: an empty array). A validation error
 * (the adapter's compiler refusing the WGSL, a binding that does not fit) rejects with its message.
 */
export async function runPlain(
  code: string,
  bindings: readonly PlainBinding[],
  workgroups: readonly [number, number?, number?],
  options: PlainOptions = {},
): Promise<Uint8Array[]> {
  const adapter = (await navigator.gpu.requestAdapter())!;
  const device = await adapter.requestDevice({
    requiredFeatures: options.features && [...options.features],
    requiredLimits: options.limits,
  });
  try {
    device.pushErrorScope("validation");
    const pipeline = device.createComputePipeline({
      layout: "auto",
      compute: {
        module: device.createShaderModule({ code }),
        entryPoint: options.entryPoint,
        constants: options.constants,
      },
    });
    const made: (GPUBuffer | GPUTexture | undefined)[] = [];
    const groups = new Map<number, GPUBindGroupEntry[]>();
    for (const b of bindings) {
      let resource: GPUBindingResource;
      if ("buffer" in b) {
        const size = Math.ceil(b.buffer.byteLength / 4) * 4;
        const buffer = device.createBuffer({
          size,
          usage: (b.uniform ? GPUBufferUsage.UNIFORM : GPUBufferUsage.STORAGE) |
            GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC,
        });
        device.queue.writeBuffer(buffer, 0, b.buffer);
        made.push(buffer);
        resource = { buffer };
      } else if ("texture" in b) {
        const { width, height, depthOrArrayLayers = 1, dimension, format, data } = b.texture;
        const sampleCount = b.texture.sampleCount ?? 1;
        const texture = device.createTexture({
          size: { width, height, depthOrArrayLayers },
          dimension,
          format,
          sampleCount,
          usage: sampleCount > 1
            ? GPUTextureUsage.TEXTURE_BINDING | GPUTextureUsage.RENDER_ATTACHMENT
            : GPUTextureUsage.TEXTURE_BINDING | GPUTextureUsage.COPY_DST |
              GPUTextureUsage.COPY_SRC | (b.storage ? GPUTextureUsage.STORAGE_BINDING : 0),
        });
        if (data !== undefined) {
          const rows = height * depthOrArrayLayers;
          device.queue.writeTexture(
            { texture },
            data,
            { bytesPerRow: data.byteLength / rows, rowsPerImage: height },
            { width, height, depthOrArrayLayers },
          );
        }
        made.push(texture);
        resource = texture.createView({ dimension: b.viewDimension });
      } else {
        made.push(undefined);
        resource = device.createSampler(b.sampler);
      }
      const list = groups.get(b.group) ?? [];
      list.push({ binding: b.binding, resource });
      groups.set(b.group, list);
    }
    const encoder = device.createCommandEncoder();
    const pass = encoder.beginComputePass();
    pass.setPipeline(pipeline);
    for (const [group, entries] of groups) {
      pass.setBindGroup(
        group,
        device.createBindGroup({ layout: pipeline.getBindGroupLayout(group), entries }),
      );
    }
    pass.dispatchWorkgroups(workgroups[0], workgroups[1] ?? 1, workgroups[2] ?? 1);
    pass.end();
    const reads: { staging: GPUBuffer; row: number; padded: number; rows: number }[] = [];
    for (const object of made) {
      if (object === undefined) {
        reads.push({ staging: undefined!, row: 0, padded: 0, rows: 0 });
      } else if ("sampleCount" in object && object.sampleCount > 1) {
        // Not copyable, and no compute pass writes it (never storage): its zeros, unchanged.
        const { width, height, format, sampleCount } = object;
        const zeros = width * height * sampleCount * TEXEL_BYTES[format]!;
        reads.push({ staging: undefined!, row: zeros, padded: 0, rows: -1 });
      } else if ("mapAsync" in object) {
        const staging = device.createBuffer({
          size: object.size,
          usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST,
        });
        encoder.copyBufferToBuffer(object, 0, staging, 0, object.size);
        reads.push({ staging, row: object.size, padded: object.size, rows: 1 });
      } else {
        const texel = TEXEL_BYTES[object.format];
        const row = object.width * texel!;
        const padded = Math.ceil(row / 256) * 256;
        const { width, height, depthOrArrayLayers } = object;
        const staging = device.createBuffer({
          size: padded * height * depthOrArrayLayers,
          usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST,
        });
        encoder.copyTextureToBuffer({ texture: object }, {
          buffer: staging,
          bytesPerRow: padded,
          rowsPerImage: height,
        }, { width, height, depthOrArrayLayers });
        reads.push({ staging, row, padded, rows: height * depthOrArrayLayers });
      }
    }
    device.queue.submit([encoder.finish()]);
    const error = await device.popErrorScope();
    if (error !== null) throw new Error(`plain WebGPU: ${error.message}`);
    const out: Uint8Array[] = [];
    for (const { staging, row, padded, rows } of reads) {
      if (staging === undefined) {
        out.push(new Uint8Array(rows < 0 ? row : 0));
        continue;
      }
      await staging.mapAsync(GPUMapMode.READ);
      const mapped = new Uint8Array(staging.getMappedRange());
      const bytes = new Uint8Array(row * rows);
      for (let y = 0; y < rows; y++) {
        bytes.set(mapped.subarray(y * padded, y * padded + row), y * row);
      }
      staging.unmap();
      out.push(bytes);
    }
    return out;
  } finally {
    device.destroy();
  }
}

const TEXEL_BYTES: Partial<Record<GPUTextureFormat, number>> = {
  rgba8unorm: 4,
  rgba8uint: 4,
  rgba8sint: 4,
  bgra8unorm: 4,
  depth32float: 4,
  depth16unorm: 2,
  r32sint: 4,
  rg32float: 8,
  rgba16float: 8,
  rgba16sint: 8,
  rgba16uint: 8,
  rg32sint: 8,
  rg32uint: 8,
  rgba32sint: 16,
  rgba32uint: 16,
  rgba32float: 16,
  r32float: 4,
  r32uint: 4,
};

/** The bytes of a typed array. */
export function bytesOf(view: ArrayBufferView): Uint8Array {
  return new Uint8Array(view.buffer, view.byteOffset, view.byteLength).slice();
}
