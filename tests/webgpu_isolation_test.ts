/**
 * The stream backend's safety net (issue #7, item 8), below the launch checks: a dispatch whose
 * pipeline is valid but whose bind group WebGPU rejects at submit (here built by hand, since
 * `execute` refuses it) is submitted alone, so the copies and dispatches around it still run,
 * and its error goes to the stream that launched it.
 */
import assert from "node:assert/strict";
import { BindGroupCache } from "../runtime/server/webgpu/launch/_bind_group_cache.ts";
import { PipelineCache } from "../runtime/server/webgpu/compile/pipeline_cache.ts";
import { EncoderStreams } from "../runtime/server/webgpu/queue/encoder.ts";
import { ParamChunks } from "../runtime/server/webgpu/launch/_param_chunks.ts";
import { type DispatchTask, TaskPool } from "../runtime/server/webgpu/queue/_tasks.ts";
import { vec4Store } from "./_wgsl_kernels.ts";

const adapter = await navigator.gpu?.requestAdapter();

Deno.test({
  name: "a dispatch rejected at submit is isolated: the work around it runs, its stream is told",
  ignore: adapter === null || adapter === undefined, // no WebGPU adapter on this machine
  async fn() {
    const device = await adapter!.requestDevice();
    try {
      const usage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;
      const small = device.createBuffer({ size: 4, usage });
      const good = device.createBuffer({ size: 32, usage });
      const source = device.createBuffer({ size: 32, usage, mappedAtCreation: true });
      new Uint32Array(source.getMappedRange()).fill(7);
      source.unmap();
      const pipelines = new PipelineCache(device);
      const compiled = await pipelines.compile(vec4Store);
      const groups = new BindGroupCache(device);
      const bind = (buffer: GPUBuffer, size: number) =>
        groups.get(compiled.layout, [{ binding: 0, resource: { buffer, offset: 0, size } }]);
      const streams = new EncoderStreams(device, {
        chunks: new ParamChunks(device, 256),
        tasks: new TaskPool(),
        bindGroups: groups,
        maxStreams: 4,
      });
      const stream = streams.createStream();
      const dispatch = (bindGroup: GPUBindGroup): DispatchTask => ({
        kind: "dispatch",
        kernel: compiled,
        bindGroup,
        x: 1,
        y: 1,
        z: 1,
        indirect: undefined,
        stream: 5,
        refs: [],
        reads: undefined,
        groups: undefined,
      });
      const copy = { source, sourceOffset: 0, destination: good, destinationOffset: 0, size: 32 };
      streams.enqueue({ kind: "copy", copies: [copy] }, stream);
      streams.enqueue(dispatch(bind(small, 4)), stream); // 4 bytes where array<vec4f> needs 16
      streams.enqueue(dispatch(bind(good, 16)), stream); // writes vec4f(1) to good[0..4]
      streams.flush(stream);
      await streams.validated(5);
      const staging = device.createBuffer({ size: 32, usage: GPUBufferUsage.MAP_READ | 0x8 });
      const encoder = device.createCommandEncoder();
      encoder.copyBufferToBuffer(good, 0, staging, 0, 32);
      device.queue.submit([encoder.finish()]);
      await staging.mapAsync(GPUMapMode.READ);
      const one = new Uint32Array(new Float32Array([1]).buffer)[0];
      assert.deepEqual([...new Uint32Array(staging.getMappedRange())], [
        ...Array(4).fill(one), // the valid dispatch after the rejected one ran
        ...Array(4).fill(7), // and so did the copy before it
      ]);
      assert.equal(streams.errors.has(1), true, "recorded on stream 5's index, 5 % 4");
      assert.match(String(streams.errors.take(5)), /vec4_store.*stream 5.*16/);
      assert.equal(streams.errors.has(5), false, "one error, taken once");
      assert.notEqual(
        streams.rejection({ bindGroup: bind(small, 4), groups: undefined }),
        undefined,
        "known bad: refused at once",
      );
      assert.equal(streams.rejection({ bindGroup: bind(good, 16), groups: undefined }), undefined);
    } finally {
      device.destroy();
    }
  },
});
