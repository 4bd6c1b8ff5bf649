/**
 * Hand-written `navigator.gpu` baselines for the benchmarks: the same small dispatches the client
 * runs, without the runtime. Two variants: one submit per dispatch, and one encoder (one compute
 * pass) for all of them.
 *
 * @module
 */

/** WGSL of the benchmark kernel: adds 1 to every element of a u32 array. */
export const INCREMENT_WGSL = `
@group(0) @binding(0) var<storage, read_write> data: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3u) {
  if (gid.x < arrayLength(&data)) { data[gid.x] = data[gid.x] + 1u; }
}`;

/** A device, a pipeline and a buffer ready for raw dispatches. */
export interface RawSetup {
  device: GPUDevice;
  pipeline: GPUComputePipeline;
  bindGroup: GPUBindGroup;
  buffer: GPUBuffer;
}

/** Creates the raw setup over `elements` u32 values. */
export async function rawSetup(elements: number): Promise<RawSetup | undefined> {
  const adapter = await navigator.gpu.requestAdapter();
  if (!adapter) return undefined;
  const device = await adapter.requestDevice();
  const buffer = device.createBuffer({
    size: elements * 4,
    usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST,
  });
  const module = device.createShaderModule({ code: INCREMENT_WGSL });
  const pipeline = device.createComputePipeline({
    layout: "auto",
    compute: { module, entryPoint: "main" },
  });
  const bindGroup = device.createBindGroup({
    layout: pipeline.getBindGroupLayout(0),
    entries: [{ binding: 0, resource: { buffer } }],
  });
  return { device, pipeline, bindGroup, buffer };
}

/** Raw variant 1: one encoder and one submit per dispatch, then wait for the queue. */
export async function rawSubmitPerDispatch(setup: RawSetup, dispatches: number): Promise<void> {
  const workgroups = Math.ceil(setup.buffer.size / 4 / 64);
  for (let i = 0; i < dispatches; i++) {
    const encoder = setup.device.createCommandEncoder();
    const pass = encoder.beginComputePass();
    pass.setPipeline(setup.pipeline);
    pass.setBindGroup(0, setup.bindGroup);
    pass.dispatchWorkgroups(workgroups);
    pass.end();
    setup.device.queue.submit([encoder.finish()]);
  }
  await setup.device.queue.onSubmittedWorkDone();
}

/** Raw variant 2: every dispatch in one compute pass of one encoder, one submit, then wait. */
export async function rawOneEncoder(setup: RawSetup, dispatches: number): Promise<void> {
  const workgroups = Math.ceil(setup.buffer.size / 4 / 64);
  const encoder = setup.device.createCommandEncoder();
  const pass = encoder.beginComputePass();
  pass.setPipeline(setup.pipeline);
  for (let i = 0; i < dispatches; i++) {
    pass.setBindGroup(0, setup.bindGroup);
    pass.dispatchWorkgroups(workgroups);
  }
  pass.end();
  setup.device.queue.submit([encoder.finish()]);
  await setup.device.queue.onSubmittedWorkDone();
}
