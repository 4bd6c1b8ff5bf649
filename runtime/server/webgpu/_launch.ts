/**
 * Turns a kernel launch into a dispatch task, checking everything before anything is enqueued.
 *
 * Binding rules (from the reflected WGSL, all in `@group(0)`):
 *
 * - **Named params** (no scalars or metadata): `buffers` fill the `var<storage>` bindings in
 *   binding order, `params` fill the `var<uniform>` ones (`_params.ts`), each uniform in an info
 *   buffer of its own.
 * - **CubeCL info buffer** (the launch has scalars or metadata): the module's last binding takes
 *   the info buffer (`packInfo`) and `buffers` fill every binding before it.
 *
 * Each buffer must be at least the minimum size of its WGSL type (one element of a runtime-sized
 * array). Every violation is a `KernelArgumentError` naming the buffer or parameter.
 *
 * @module
 */

import type { Binding } from "../../core/handle.ts";
import { KernelArgumentError, UnsupportedError } from "../../core/errors.ts";
import type { BindingResource, KernelLaunch } from "../server.ts";
import type { DispatchTask } from "./_stream.ts";
import type { BindGroupCache } from "./_bind_group_cache.ts";
import type { InfoBufferPool } from "./_info_buffers.ts";
import { packInfo } from "./_info_layout.ts";
import type { WgslKernel } from "./kernel.ts";
import type { PipelineCache } from "./_pipeline_cache.ts";
import type { ReflectedBinding } from "./_reflect.ts";
import { packParams } from "./_params.ts";
import { cubesForThreads } from "./_threads.ts";

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
  /** Those of `bindings` the dispatch only reads (declared `read`, an indirect count). */
  readonly reads: Binding[];
  /** Gives back the info buffers if the task is never registered. */
  cancel(): void;
}

/** Checks a launch and builds its dispatch task. */
export function prepareLaunch(
  context: LaunchContext,
  launch: KernelLaunch<WgslKernel>,
): PreparedLaunch {
  const { kernel, count, bindings } = launch;
  const compiled = context.pipelines.get(kernel);
  const { reflection } = compiled;
  const name = reflection.name;
  if (bindings.tensorMaps.length > 0) {
    throw new UnsupportedError(`Kernel '${name}': WebGPU has no tensor maps (TMA)`);
  }
  const declared = reflection.bindings;
  const info = packInfo(bindings);
  const buffers = bindings.buffers;
  let bufferSlots: readonly ReflectedBinding[];
  let uniforms: { binding: number; bytes: Uint8Array }[];
  if (info !== undefined) {
    if (launch.params !== undefined) {
      throw new KernelArgumentError(
        name,
        "params",
        "cannot be combined with scalars or metadata: both would fill the last binding",
      );
    }
    if (declared.length !== buffers.length + 1) {
      throw new KernelArgumentError(
        name,
        "buffers",
        `has ${plural(buffers.length, "handle")} + 1 info buffer, but the WGSL declares ` +
          `${declared.length} bindings in @group(0)`,
      );
    }
    const last = declared.at(-1)!;
    if (last.type.kind !== "array") {
      // CubeCL's info buffer is read as an array of words; a struct here means named fields,
      // which the info layout would fill at other offsets (a kernel reading n = 0).
      const fields = last.type.kind === "struct"
        ? `: pass params: { ${last.type.members.map((m) => `${m.name}: ...`).join(", ")} }`
        : `: pass params: { ${last.name}: ... }`;
      throw new KernelArgumentError(
        name,
        bindings.scalars.size > 0 ? "scalars" : "metadata",
        `would fill ${last.name}: ${last.type.name} with CubeCL's info layout, which only an ` +
          `array of words reads correctly${fields}`,
      );
    }
    bufferSlots = declared.slice(0, -1);
    uniforms = [{ binding: last.binding, bytes: info.bytes }];
  } else {
    bufferSlots = reflection.storage;
    if (bufferSlots.length !== buffers.length) {
      throw new KernelArgumentError(
        name,
        "buffers",
        `has ${plural(buffers.length, "handle")}, but the WGSL declares ` +
          `${plural(bufferSlots.length, "storage binding")} ` +
          `(${bufferSlots.map((b) => b.name).join(", ") || "none"})`,
      );
    }
    uniforms = reflection.uniforms.length === 0 && launch.params === undefined
      ? []
      : packParams(name, reflection.uniforms, launch.params);
  }
  const limits = context.device.limits;
  const entries: GPUBindGroupEntry[] = buffers.map((binding, i) => {
    const slot = bufferSlots[i];
    if (slot.space === "uniform") {
      throw new KernelArgumentError(name, `buffers[${i}]`, `is bound to var<uniform> ${slot.name}`);
    }
    const at = context.resolve(binding);
    if (at.size < slot.minSize) {
      throw new KernelArgumentError(
        name,
        `buffers[${i}]`,
        `has ${at.size} bytes, but ${slot.name}: ${slot.type.name} needs at least ${slot.minSize}`,
      );
    }
    if (at.offset % limits.minStorageBufferOffsetAlignment !== 0) {
      throw new RangeError(
        `Buffer ${i} of kernel '${name}' starts at byte ${at.offset}, not a multiple of ` +
          `minStorageBufferOffsetAlignment (${limits.minStorageBufferOffsetAlignment})`,
      );
    }
    // Storage bindings are 4-byte multiples; the rounded range stays inside the page.
    const size = Math.min(Math.max(4, Math.ceil(at.size / 4) * 4), at.resource.size - at.offset);
    return { binding: slot.binding, resource: { buffer: at.resource, offset: at.offset, size } };
  });
  const ordered = [...buffers];
  const reads: Binding[] = [];
  buffers.forEach((binding, i) => bufferSlots[i].access === "read" && reads.push(binding));
  let dispatch: DispatchTask["count"];
  let scratch: GPUBuffer | undefined;
  const max = limits.maxComputeWorkgroupsPerDimension;
  if (count.kind === "dynamic") {
    const at = context.resolve(count.binding);
    if (at.offset % 4 !== 0) {
      throw new RangeError(
        `An indirect cube count must start at a multiple of 4, got ${at.offset}`,
      );
    }
    ordered.push(count.binding);
    reads.push(count.binding);
    scratch = context.infoBuffers.acquireEmpty(12);
    dispatch = { buffer: at.resource, offset: at.offset, scratch };
  } else {
    const cubes: [number, number, number] = count.kind === "threads"
      ? cubesForThreads(name, [count.x, count.y, count.z], reflection.workgroupSize, max)
      : [count.x, count.y, count.z];
    cubes.forEach((n, axis) => {
      if (n > max) {
        throw new RangeError(
          `Cube count ${"xyz"[axis]}=${n} of kernel '${name}' exceeds ` +
            `maxComputeWorkgroupsPerDimension (${max}); launch with threads to fold it`,
        );
      }
    });
    dispatch = cubes;
  }
  const infoBuffers = uniforms.map((u) => context.infoBuffers.acquire(u.bytes));
  uniforms.forEach((u, i) =>
    entries.push({
      binding: u.binding,
      resource: { buffer: infoBuffers[i], offset: 0, size: u.bytes.byteLength },
    })
  );
  const release = () => {
    for (const buffer of infoBuffers) context.infoBuffers.release(buffer);
    if (scratch !== undefined) context.infoBuffers.release(scratch);
  };
  const bindGroup = context.bindGroups.get(compiled.layout, entries);
  return {
    task: { kind: "dispatch", kernel: compiled, bindGroup, count: dispatch, done: release },
    bindings: ordered,
    reads,
    cancel: release,
  };
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}
