/**
 * A WebGPU device whose every call does nothing (no encoding, no validation, no device work), with
 * a real adapter's limits: what is left of a launch on it is the runtime's own JavaScript
 * (`_launch_js_cost.ts`, `_helper_ab.ts`).
 *
 * @module
 */

/** A device whose calls do nothing, with a real adapter's limits. */
export async function idleDevice(): Promise<GPUDevice> {
  const adapter = (await navigator.gpu.requestAdapter())!;
  const real = await adapter.requestDevice();
  const limits = real.limits;
  real.destroy();
  let ids = 0;
  const object = () => ({ id: ids++, label: "" });
  const pass = {
    setPipeline() {},
    setBindGroup() {},
    dispatchWorkgroups() {},
    dispatchWorkgroupsIndirect() {},
    end() {},
  };
  const encoder = {
    beginComputePass: () => pass,
    copyBufferToBuffer() {},
    copyBufferToTexture() {},
    copyTextureToBuffer() {},
    finish: object,
  };
  const buffer = (d: GPUBufferDescriptor) => ({
    ...object(),
    size: d.size,
    getMappedRange: () => new ArrayBuffer(d.size),
    unmap() {},
    destroy() {},
    mapAsync: () => Promise.resolve(),
  });
  const module = () => ({
    ...object(),
    getCompilationInfo: () => Promise.resolve({ messages: [] }),
  });
  return {
    limits,
    features: new Set(["timestamp-query"]),
    queue: { submit() {}, writeBuffer() {}, onSubmittedWorkDone: () => Promise.resolve() },
    lost: new Promise(() => {}),
    createBuffer: buffer,
    createCommandEncoder: () => encoder,
    createBindGroup: object,
    createShaderModule: module,
    createBindGroupLayout: object,
    createPipelineLayout: object,
    createComputePipeline: object,
    createTexture: () => ({ ...object(), createView: object, destroy() {} }),
    createQuerySet: object,
    pushErrorScope() {},
    popErrorScope: () => Promise.resolve(null),
    destroy() {},
    addEventListener() {},
    removeEventListener() {},
  } as unknown as GPUDevice;
}
