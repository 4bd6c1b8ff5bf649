/**
 * Turns a kernel launch into a dispatch task, checking everything before anything is enqueued.
 *
 * @module
 */

import type { Binding } from "../../core/handle.ts";
import { CompilationError, UnsupportedError } from "../../core/errors.ts";
import type { BindingResource, KernelLaunch } from "../server.ts";
import type { DispatchTask } from "./_stream.ts";
import type { BindGroupCache } from "./_bind_group_cache.ts";
import type { InfoBufferPool } from "./_info_buffers.ts";
import { packInfo } from "./_info_layout.ts";
import type { WgslKernel } from "./kernel.ts";
import type { PipelineCache } from "./_pipeline_cache.ts";

/** What a launch needs from the server. */
export interface LaunchContext {
  readonly device: GPUDevice;
  readonly pipelines: PipelineCache;
  readonly infoBuffers: InfoBufferPool;
  readonly bindGroups: BindGroupCache;
  /** The buffer and range of a live binding of this server (`INVALID_HANDLE` otherwise). */
  resolve(binding: Binding): BindingResource<GPUBuffer>;
}

/** A checked dispatch and the bindings the scheduler must order and pin. */
export interface PreparedLaunch {
  readonly task: DispatchTask;
  readonly bindings: Binding[];
  /** Gives back the info buffer if the task is never registered. */
  cancel(): void;
}

/** Checks a launch and builds its dispatch task. */
export function prepareLaunch(
  context: LaunchContext,
  launch: KernelLaunch<WgslKernel>,
): PreparedLaunch {
  const { kernel, count, bindings } = launch;
  if (bindings.tensorMaps.length > 0) {
    throw new UnsupportedError(`Kernel '${kernel.id}': WebGPU has no tensor maps (TMA)`);
  }
  const compiled = context.pipelines.get(kernel);
  const info = packInfo(bindings);
  const buffers = bindings.buffers;
  const expected = buffers.length + (info === undefined ? 0 : 1);
  if (compiled.bindings.length !== expected) {
    const infoText = info === undefined ? "no info buffer" : "1 info buffer";
    throw new RangeError(
      `Kernel '${kernel.id}' declares ${compiled.bindings.length} bindings in @group(0), but the ` +
        `launch provides ${expected} (${buffers.length} buffers + ${infoText})`,
    );
  }
  for (let i = 0; i < buffers.length; i++) {
    const declared = compiled.bindings[i];
    if (declared.access !== "read_write") {
      throw new CompilationError(
        kernel.id,
        `@binding(${i}) must be var<storage, read_write>: slices of one page share a GPUBuffer`,
        declared.line,
      );
    }
  }
  const limits = context.device.limits;
  const entries: GPUBindGroupEntry[] = buffers.map((binding, i) => {
    const at = context.resolve(binding);
    if (at.offset % limits.minStorageBufferOffsetAlignment !== 0) {
      throw new RangeError(
        `Buffer ${i} of kernel '${kernel.id}' starts at byte ${at.offset}, not a multiple of ` +
          `minStorageBufferOffsetAlignment (${limits.minStorageBufferOffsetAlignment})`,
      );
    }
    // Storage bindings are 4-byte multiples; the rounded range stays inside the page.
    const size = Math.min(Math.max(4, Math.ceil(at.size / 4) * 4), at.resource.size - at.offset);
    return { binding: i, resource: { buffer: at.resource, offset: at.offset, size } };
  });
  const ordered = [...buffers];
  let dispatch: DispatchTask["count"] | undefined;
  if (count.kind === "static") {
    const max = limits.maxComputeWorkgroupsPerDimension;
    for (const [axis, n] of [["x", count.x], ["y", count.y], ["z", count.z]] as const) {
      if (n > max) {
        throw new RangeError(
          `Cube count ${axis}=${n} of kernel '${kernel.id}' exceeds maxComputeWorkgroupsPerDimension (${max})`,
        );
      }
    }
    dispatch = [count.x, count.y, count.z];
  } else {
    const at = context.resolve(count.binding);
    if (at.offset % 4 !== 0) {
      throw new RangeError(
        `An indirect cube count must start at a multiple of 4, got ${at.offset}`,
      );
    }
    ordered.push(count.binding);
  }
  const scratch = count.kind === "dynamic" ? context.infoBuffers.acquireEmpty(12) : undefined;
  if (scratch !== undefined) {
    const at = context.resolve((count as { binding: Binding }).binding);
    dispatch = { buffer: at.resource, offset: at.offset, scratch };
  }
  const infoBuffer = info === undefined ? undefined : context.infoBuffers.acquire(info.bytes);
  if (infoBuffer !== undefined) {
    entries.push({
      binding: buffers.length,
      resource: { buffer: infoBuffer, offset: 0, size: info!.bytes.byteLength },
    });
  }
  const release = () => {
    if (infoBuffer !== undefined) context.infoBuffers.release(infoBuffer);
    if (scratch !== undefined) context.infoBuffers.release(scratch);
  };
  const bindGroup = context.bindGroups.get(compiled.layout, entries);
  return {
    task: { kind: "dispatch", kernel: compiled, bindGroup, count: dispatch!, done: release },
    bindings: ordered,
    cancel: release,
  };
}
