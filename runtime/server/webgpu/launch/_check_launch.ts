/**
 * Checks of a launch and of a kernel's declarations that WebGPU would otherwise make late (at
 * submit, or in an asynchronous pipeline error): done synchronously so that the call that caused
 * a problem is the one that throws.
 *
 * @module
 */

import { KernelArgumentError } from "../../../core/errors.ts";
import { describe } from "../../../core/_argument_checks.ts";
import type { KernelLaunch } from "../../server.ts";
import type { WgslKernel } from "../kernel.ts";
import { infoSize } from "./_info_layout.ts";
import type { KernelReflection, ReflectedBinding } from "../compile/_reflect.ts";

/**
 * The info buffer size of a launch with scalars or metadata, checked against the WGSL: no
 * params besides, one binding per buffer plus the info buffer, which must be the last and an
 * array of words at least as large as the WGSL needs (`KernelArgumentError` otherwise).
 */
export function checkInfo(
  name: string,
  declared: readonly ReflectedBinding[],
  launch: KernelLaunch<WgslKernel>,
): number {
  const { args } = launch;
  const buffers = args.buffers;
  const size = infoSize(args);
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
      args.scalars.size > 0 ? "scalars" : "metadata",
      `would fill ${last.name}: ${last.type.name} with CubeCL's info layout, which only an ` +
        `array of words reads correctly${fields}`,
    );
  }
  if (size < last.minSize) {
    // WebGPU would reject this only at submit (and drop the whole command buffer).
    throw new KernelArgumentError(
      name,
      args.scalars.size > 0 ? "scalars" : "metadata",
      `fill ${size} bytes of the info buffer, but ${last.name}: ` +
        `${last.type.name} needs at least ${last.minSize}`,
    );
  }
  return size;
}

/** `n noun(s)`. */
export function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

/**
 * The slots of named buffers, each found by its WGSL name (`KernelArgumentError` naming an
 * unknown name, a uniform or sampler given as a buffer, or the first binding left out).
 */
export function resolveNames(
  name: string,
  reflection: KernelReflection,
  names: readonly string[],
  slots: ReflectedBinding[],
): readonly ReflectedBinding[] {
  slots.length = names.length;
  for (let i = 0; i < names.length; i++) {
    const slot = reflection.byName.get(names[i]);
    if (slot === undefined || slot.space === "uniform" || slot.space === "sampler") {
      throw new KernelArgumentError(name, `buffers.${names[i]}`, unknownBuffer(slot, reflection));
    }
    slots[i] = slot;
  }
  if (names.length < reflection.resources.length) {
    const missing = reflection.resources.find((b) => !names.includes(b.name))!;
    throw new KernelArgumentError(
      name,
      `buffers.${missing.name}`,
      `is missing: the WGSL declares ${missing.name}: ${missing.type.name} at ` +
        `@group(${missing.group}) @binding(${missing.binding})`,
    );
  }
  return slots;
}

export function notACount(count: unknown): never {
  if (typeof count !== "object" || count === null) {
    throw new TypeError(`count must be a CubeCount, got ${describe(count)}`);
  }
  const kind = (count as { kind?: unknown }).kind;
  throw new TypeError(
    `count.kind must be "static", "dynamic" or "threads", got ${describe(kind)}`,
  );
}

/**
 * Refuses a typed ref whose elements are not what the WGSL declares (an `Int32Array` read as
 * `array<f32>` gives 1.4e-45...), or that holds a partial element of a runtime-sized array (a
 * tightly packed `vec3f` array, whose stride is 16). Untyped refs are not checked.
 */
export function checkElements(
  name: string,
  what: string,
  dtype: string,
  size: number,
  slot: ReflectedBinding,
): void {
  if (slot.scalar !== undefined && dtype !== slot.scalar) {
    throw new KernelArgumentError(
      name,
      what,
      `holds ${dtype} elements, but ${slot.name}: ${slot.type.name} holds ${slot.scalar}: ` +
        `upload ${slot.scalar} data (or convert it), or reinterpret the bytes on purpose with ` +
        `handle.as("${slot.scalar}")`,
    );
  }
  if (slot.stride > 0 && size % slot.stride !== 0) {
    throw new KernelArgumentError(
      name,
      what,
      `has ${size} bytes, not a whole number of ${slot.name}'s ${slot.stride}-byte elements ` +
        `(${slot.type.name}; a vec3 element is padded to 16 bytes)`,
    );
  }
}

function unknownBuffer(slot: ReflectedBinding | undefined, reflection: KernelReflection): string {
  if (slot?.space === "uniform") return `is a var<uniform>: pass its fields in params`;
  if (slot?.space === "sampler") return `is a sampler: pass its descriptor in samplers`;
  const names = reflection.resources.map((b) => b.name).join(", ") || "none";
  return `is not a storage or texture binding of the WGSL (it declares: ${names})`;
}

/** Whether a located buffer passes {@linkcode checkBuffer} (the launch path's fast test). */
export function bufferFits(
  dtype: string,
  at: { readonly offset: number; readonly size: number },
  slot: ReflectedBinding,
  alignment: number,
): boolean {
  return (dtype === "bytes" || slot.scalar === undefined || dtype === slot.scalar) &&
    (dtype === "bytes" || slot.stride === 0 || at.size % slot.stride === 0) &&
    at.size >= slot.minSize && at.offset % alignment === 0;
}

/**
 * Checks a located buffer against its WGSL slot: its element type, its size (at least the
 * type's minimum) and its offset (a multiple of `minStorageBufferOffsetAlignment`).
 */
export function checkBuffer(
  name: string,
  what: string,
  index: number,
  dtype: string,
  at: { readonly offset: number; readonly size: number },
  slot: ReflectedBinding,
  alignment: number,
): void {
  if (dtype !== "bytes") checkElements(name, what, dtype, at.size, slot);
  if (at.size < slot.minSize) {
    throw new KernelArgumentError(
      name,
      what,
      `has ${at.size} bytes, but ${slot.name}: ${slot.type.name} needs at least ${slot.minSize}`,
    );
  }
  if (at.offset % alignment !== 0) {
    throw new RangeError(
      `Buffer ${index} of kernel '${name}' starts at byte ${at.offset}, not a multiple of ` +
        `minStorageBufferOffsetAlignment (${alignment}): WebGPU binds storage only at such ` +
        "offsets; pass a slice that starts at one, or a copy (client.copyTo(slice, client))",
    );
  }
}
