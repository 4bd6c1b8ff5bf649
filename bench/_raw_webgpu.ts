/**
 * Hand-written `navigator.gpu` baselines for the benchmarks: the same small dispatches the client
 * runs, without the runtime, written as a careful programmer would: the pipeline and bind group
 * are set once per pass (WebGPU keeps both across dispatches), and a uniform or info buffer whose
 * bytes do not change is written once, not per launch. Variants: one encoder (one compute pass)
 * for all dispatches, and one submit per dispatch.
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
  pass.setBindGroup(0, setup.bindGroup); // kept by the pass for every dispatch
  for (let i = 0; i < dispatches; i++) pass.dispatchWorkgroups(workgroups);
  pass.end();
  setup.device.queue.submit([encoder.finish()]);
  await setup.device.queue.onSubmittedWorkDone();
}

/** WGSL of the params benchmark: `y = p.a * x + p.b` with two f32 params in a uniform. */
export const AXPB_WGSL = `
struct P { a: f32, b: f32 }
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@group(0) @binding(2) var<uniform> p: P;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3u) {
  if (g.x < arrayLength(&y)) { y[g.x] = p.a * x[g.x] + p.b; }
}`;

/**
 * WGSL of the scalars benchmark: `y = a * x + b` with `a` and `b` as f32 scalars of CubeCL's info
 * buffer (the last binding, an array of words: f32 scalars start at word 0 without metadata).
 */
export const AXPB_SCALARS_WGSL = `
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@group(0) @binding(2) var<storage, read> info: array<u32>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3u) {
  if (g.x < arrayLength(&y)) { y[g.x] = bitcast<f32>(info[0]) * x[g.x] + bitcast<f32>(info[1]); }
}`;

/**
 * Raw chain baseline: `run` chains 200 launches over two buffers of `N` floats + one read. The
 * constants (`a = 1.0001`, `b = 0.5`) are written once into a uniform (`"params"`, for
 * {@linkcode AXPB_WGSL}) or a storage info buffer (`"scalars"`, for {@linkcode AXPB_SCALARS_WGSL});
 * the two bind groups of the ping-pong are made once.
 */
export function rawParamsSetup(
  device: GPUDevice,
  N: number,
  kind: "params" | "scalars" = "params",
): { run(): Promise<void> } {
  const usage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;
  const x = device.createBuffer({ size: N * 4, usage });
  device.queue.writeBuffer(x, 0, new Float32Array(N).fill(1));
  const y = device.createBuffer({ size: N * 4, usage });
  const u = device.createBuffer({
    size: 16,
    usage: (kind === "params" ? GPUBufferUsage.UNIFORM : GPUBufferUsage.STORAGE) |
      GPUBufferUsage.COPY_DST,
  });
  device.queue.writeBuffer(u, 0, new Float32Array([1.0001, 0.5, 0, 0]));
  const code = kind === "params" ? AXPB_WGSL : AXPB_SCALARS_WGSL;
  const pipeline = device.createComputePipeline({
    layout: "auto",
    compute: { module: device.createShaderModule({ code }), entryPoint: "main" },
  });
  const group = (a: GPUBuffer, b: GPUBuffer) =>
    device.createBindGroup({
      layout: pipeline.getBindGroupLayout(0),
      entries: [
        { binding: 0, resource: { buffer: a } },
        { binding: 1, resource: { buffer: b } },
        { binding: 2, resource: { buffer: u } },
      ],
    });
  const groups = [group(x, y), group(y, x)];
  return {
    async run() {
      // A staging buffer per read, as the client's read has (and runs may overlap).
      const staging = device.createBuffer({
        size: N * 4,
        usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST,
      });
      const encoder = device.createCommandEncoder();
      const pass = encoder.beginComputePass();
      pass.setPipeline(pipeline);
      for (let i = 0; i < 200; i++) {
        pass.setBindGroup(0, groups[i % 2]);
        pass.dispatchWorkgroups(N / 64);
      }
      pass.end();
      encoder.copyBufferToBuffer(y, 0, staging, 0, N * 4);
      device.queue.submit([encoder.finish()]);
      await staging.mapAsync(GPUMapMode.READ);
      new Float32Array(staging.getMappedRange().slice(0));
      staging.destroy();
    },
  };
}

/**
 * Time spent inside `queue.submit` of a device, in ms (llvmpipe executes work there, so host
 * figures subtract it).
 */
export function submitTimer(device: GPUDevice): { spent: number } {
  const timer = { spent: 0 };
  const queue = device.queue;
  const submit = queue.submit.bind(queue);
  queue.submit = (buffers: GPUCommandBuffer[]) => {
    const t = performance.now();
    submit(buffers);
    timer.spent += performance.now() - t;
  };
  return timer;
}

/** Side of the texture the read benchmarks bind (2x2 workgroups of 8x8). */
export const READ_SIDE = 16;

/** A tiny kernel reading a `READ_SIDE`² r32uint storage texture into a buffer (+1). */
export const READ_TEXTURE_WGSL = `
@group(0) @binding(0) var src: texture_storage_2d<r32uint, read>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@compute @workgroup_size(8, 8) fn main(@builtin(global_invocation_id) id: vec3u) {
  let size = textureDimensions(src);
  if (id.x < size.x && id.y < size.y) { dst[id.y * size.x + id.x] = textureLoad(src, id.xy).x + 1u; }
}`;

/** {@linkcode READ_TEXTURE_WGSL} reading a storage buffer of the same bytes instead. */
export const READ_BUFFER_WGSL = `
const SIDE = ${READ_SIDE}u;
@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@compute @workgroup_size(8, 8) fn main(@builtin(global_invocation_id) id: vec3u) {
  if (id.x < SIDE && id.y < SIDE) { dst[id.y * SIDE + id.x] = src[id.y * SIDE + id.x] + 1u; }
}`;
