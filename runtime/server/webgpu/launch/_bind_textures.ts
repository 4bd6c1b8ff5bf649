/**
 * Textures and samplers of a launch: each texture checked against its WGSL slot (a texture for a
 * texture binding, its view dimension and layers, the storage format, the sampled type and
 * filterability) and each sampler descriptor against its `sampler` slot, every violation a
 * `KernelArgumentError` naming the binding; then their bind-group entries (a texture's view of
 * the binding's dimension). Samplers are made once per descriptor and kept.
 *
 * @module
 */

import { KernelArgumentError } from "../../../core/errors.ts";
import type { HandleRef } from "../../../core/handles/handle_ref.ts";
import { layersOf, mipLevelOf } from "../../../core/handles/texture_view_ref.ts";
import { TEXTURE_FORMATS, textureExtent } from "../../../core/handles/texture_format.ts";
import { describe } from "../../../core/_argument_checks.ts";
import type { KernelLaunch } from "../../server.ts";
import type { SamplerDescriptor } from "../../texture_server.ts";
import type { KernelReflection, ReflectedBinding } from "../compile/_reflect.ts";
import type { WgslKernel } from "../kernel.ts";
import { type TextureEntry, WebGpuTextures } from "../memory/textures.ts";
import { sampleFits, viewNeeds } from "./_texture_view_rules.ts";

/** A texture or sampler entry of a bind group. */
export interface ObjectEntry {
  binding: number;
  group: number;
  resource: GPUTextureView | GPUSampler;
}

/** Where entries go: the launcher's list of the launch's entries. */
export interface Placer {
  place(entry: ObjectEntry): void;
}

const MODES = ["clamp-to-edge", "repeat", "mirror-repeat"];
const FILTERS = ["nearest", "linear"];
const COMPARES = [
  "never",
  "less",
  "equal",
  "less-equal",
  "greater",
  "not-equal",
  "greater-equal",
  "always",
];
const FIELDS: Readonly<Record<string, readonly string[]>> = {
  addressModeU: MODES,
  addressModeV: MODES,
  magFilter: FILTERS,
  minFilter: FILTERS,
  compare: COMPARES,
};

/** The texture behind a ref, or `undefined` for buffer memory. */
export function textureOf(ref: HandleRef): TextureEntry | undefined {
  return WebGpuTextures.entry(ref);
}

/** The texture and sampler entries of the launch being prepared. */
export class BoundTextures {
  readonly #device: GPUDevice;
  readonly #textures: WebGpuTextures;
  readonly #pool: ObjectEntry[] = [];
  readonly #samplers = new Map<string, GPUSampler>();
  /** `float32-filterable`: 32-bit float textures bind where a sampler filters them. */
  readonly #filterable32: boolean;
  /** Entries of the launch being prepared (of the pool). */
  used = 0;
  /**
   * The textures the launch being prepared binds so far, each with its usage, mip level (`-1`:
   * every level) and buffer index.
   */
  readonly #bound: {
    entry: TextureEntry;
    usage: string;
    level: number;
    base: number;
    count: number;
    i: number;
  }[] = [];
  #boundCount = 0;

  constructor(device: GPUDevice, textures: WebGpuTextures) {
    this.#device = device;
    this.#textures = textures;
    this.#filterable32 = device.features?.has("float32-filterable") ?? false;
  }

  /** Starts a launch. */
  reset(): void {
    this.used = 0;
    this.#boundCount = 0;
  }

  /**
   * Checks `ref`, buffer `i` of the launch (`names`: the buffers' WGSL names when named), against
   * a texture `slot` (or refuses a texture for a buffer slot); binds it. Nothing is allocated
   * unless it refuses.
   */
  bind(
    name: string,
    i: number,
    names: readonly string[] | undefined,
    ref: HandleRef,
    slot: ReflectedBinding,
    into: Placer,
  ): void {
    const entry = textureOf(ref);
    const t = slot.texture;
    // Another client's (or a disposed) texture is INVALID_HANDLE before any other refusal, as
    // another client's buffer is, and as the CUDA backend refuses it.
    const foreign = entry !== undefined && !this.#textures.owns(entry);
    if (foreign || (entry !== undefined && ref.slice.record.disposed)) throw ref.notFound();
    if (t === undefined || entry === undefined) {
      throw new KernelArgumentError(
        name,
        bufferArgument(i, names),
        entry === undefined
          ? `is a buffer, but ${slot.name}: ${slot.type.name} is a texture: pass a texture ` +
            `made by client.createTexture`
          : `is a texture (${entry.format}, ${textureExtent(entry)}), but ${slot.name}: ` +
            `${slot.type.name} is a storage buffer: pass a buffer`,
      );
    }
    // The messages are built on a refusal only: nothing is allocated per launch.
    const dimension = t.dimension as GPUTextureViewDimension;
    const layers = layersOf(ref);
    const all = entry.dimension === "3d" ? 0 : entry.depthOrArrayLayers;
    if (
      layers !== undefined && !(layers[0] >= 0 && layers[1] >= 1 && layers[0] + layers[1] <= all)
    ) {
      throw new KernelArgumentError(
        name,
        bufferArgument(i, names),
        `names layers ${layers[0]} to ${layers[0] + layers[1] - 1} of a ${textureExtent(entry)} ` +
          `texture, which has ${all} array layers`,
      );
    }
    const needs = viewNeeds(dimension, entry, layers?.[1] ?? entry.depthOrArrayLayers);
    if (needs !== undefined) {
      throw new KernelArgumentError(
        name,
        bufferArgument(i, names),
        `${aTexture(entry, ref)}, but ${slot.name}: ${slot.type.name} needs ${needs}`,
      );
    }
    const multisampled = t.multisampled === true;
    if (multisampled !== entry.sampleCount > 1) {
      throw new KernelArgumentError(
        name,
        bufferArgument(i, names),
        `${aTexture(entry, ref)}, but ${slot.name}: ${slot.type.name} needs ${
          multisampled
            ? "a multisampled texture (sampleCount: 4)"
            : "a texture of one sample per texel (sampleCount: 1)"
        }`,
      );
    }
    const info = TEXTURE_FORMATS[entry.format];
    if (t.kind === "storage" && t.format !== entry.format) {
      throw new KernelArgumentError(
        name,
        bufferArgument(i, names),
        `${aTexture(entry, ref)}, but ${slot.name}: ${slot.type.name} needs the format ${t.format}`,
      );
    }
    if (t.kind === "storage" && !info.storage.includes(t.access!)) {
      throw new KernelArgumentError(
        name,
        bufferArgument(i, names),
        `${aTexture(entry, ref)}, which WebGPU allows as a storage texture with ` +
          `${info.storage.join(" or ") || "no"} access, not ${t.access} (${slot.name})`,
      );
    }
    // With `float32-filterable` the 32-bit float formats filter like the others.
    const texels = info.sample === "unfilterable-float" && this.#filterable32
      ? "float"
      : info.sample;
    if (t.kind === "sampled" && !sampleFits(texels, t.sample!)) {
      const why = t.sample === "float" && info.sample === "unfilterable-float"
        ? ` (a filterable format such as rgba8unorm or rgba16float: the kernel declares a ` +
          `sampler, so its float textures are filterable; a device with the ` +
          `float32-filterable feature filters 32-bit floats too)`
        : t.sample === "depth"
        ? ` (a depth32float or depth16unorm texture)`
        : "";
      throw new KernelArgumentError(
        name,
        bufferArgument(i, names),
        `${
          aTexture(entry, ref)
        } of ${info.sample} texels, but ${slot.name}: ${slot.type.name} reads ` +
          `${t.sample} texels${why}`,
      );
    }
    const level = mipLevelOf(ref);
    if (t.kind === "storage" && level === undefined && entry.mipLevelCount > 1) {
      throw new KernelArgumentError(
        name,
        bufferArgument(i, names),
        `${aTexture(entry, ref)} of ${entry.mipLevelCount} mip levels, but ${slot.name}: ` +
          `${slot.type.name} binds one level: pass texture.view({ mipLevel: n })`,
      );
    }
    const usage = t.kind === "storage" ? t.access! : "sampled";
    this.#conflicts(name, i, names, entry, usage, level ?? -1, layers);
    this.#entry(slot, entry.view(dimension, level, layers), into);
  }

  /**
   * Refuses a texture bound twice in one launch where one binding writes it and the other uses it
   * otherwise (sampled, read-only, or write-only beside read_write): WebGPU rejects such a
   * dispatch later, at submit, so the refusal belongs to the call. Same usages (two sampled, two
   * read_write) are allowed, and so are two different mip levels (`level`, `-1` for all) or
   * disjoint layer ranges (`layers`, `undefined` for all): a mip generation samples level n - 1
   * and stores level n of one texture; a pass may sample layer 0 and store layer 1.
   */
  #conflicts(
    name: string,
    i: number,
    names: readonly string[] | undefined,
    entry: TextureEntry,
    usage: string,
    level: number,
    layers: readonly [number, number] | undefined,
  ): void {
    const base = layers?.[0] ?? 0, count = layers?.[1] ?? Infinity; // no array per launch
    const writes = usage === "write" || usage === "read_write";
    for (let b = 0; b < this.#boundCount; b++) {
      const other = this.#bound[b];
      if (other.entry !== entry || other.usage === usage) continue;
      if (other.level !== level && other.level !== -1 && level !== -1) continue;
      if (other.base >= base + count || base >= other.base + other.count) continue;
      if (!writes && other.usage !== "write" && other.usage !== "read_write") continue;
      throw new KernelArgumentError(
        name,
        bufferArgument(i, names),
        `is the texture already bound as ${bufferArgument(other.i, names)} (${other.usage}), ` +
          `and bound here ${usage === "sampled" ? "sampled" : `with ${usage} access`}: WebGPU ` +
          `refuses a dispatch that writes a texture and uses it otherwise: write into another ` +
          `texture, or bind other mip levels or layers (texture.view({ mipLevel, baseArrayLayer }))`,
      );
    }
    const slot = this.#bound[this.#boundCount];
    if (slot === undefined) this.#bound.push({ entry, usage, level, base, count, i });
    else Object.assign(slot, { entry, usage, level, base, count, i });
    this.#boundCount++;
  }

  /** Binds the launch's samplers to the kernel's `sampler` slots, by position or by name. */
  samplers(
    name: string,
    reflection: KernelReflection,
    launch: KernelLaunch<WgslKernel>,
    into: Placer,
  ): void {
    const slots = reflection.samplers;
    const given = launch.samplers ?? [];
    const names = launch.samplerNames;
    if (names === undefined && given.length !== slots.length) {
      throw new KernelArgumentError(
        name,
        "samplers",
        `has ${given.length}, but the WGSL declares ${slots.length} sampler binding` +
          `${slots.length === 1 ? "" : "s"} (${slots.map((s) => s.name).join(", ") || "none"})`,
      );
    }
    for (let i = 0; i < given.length; i++) {
      const what = names === undefined ? `samplers[${i}]` : `samplers.${names[i]}`;
      const slot = names === undefined ? slots[i] : reflection.byName.get(names[i]);
      if (slot === undefined || slot.space !== "sampler") {
        throw new KernelArgumentError(
          name,
          what,
          `is not a sampler binding of the WGSL (it declares: ${
            slots.map((s) => s.name).join(", ") || "none"
          })`,
        );
      }
      this.#entry(slot, this.#sampler(name, what, given[i], slot), into);
    }
    if (names !== undefined && names.length < slots.length) {
      const missing = slots.find((s) => !names.includes(s.name))!;
      throw new KernelArgumentError(name, `samplers.${missing.name}`, "is missing");
    }
  }

  #sampler(name: string, what: string, d: SamplerDescriptor, slot: ReflectedBinding): GPUSampler {
    if (typeof d !== "object" || d === null) {
      throw new KernelArgumentError(name, what, `must be a sampler descriptor, got ${describe(d)}`);
    }
    let key = "";
    for (const field in FIELDS) {
      const value = (d as Record<string, unknown>)[field];
      if (value !== undefined && !FIELDS[field].includes(value as string)) {
        throw new KernelArgumentError(
          name,
          `${what}.${field}`,
          `must be one of ${FIELDS[field].join(", ")}, got ${describe(value)}`,
        );
      }
      key += `${value ?? ""}|`;
    }
    for (const field of Object.keys(d)) {
      if (!Object.hasOwn(FIELDS, field)) {
        throw new KernelArgumentError(name, `${what}.${field}`, "is not a sampler field");
      }
    }
    const comparison = slot.texture?.kind === "comparison";
    if (comparison !== (d.compare !== undefined)) {
      throw new KernelArgumentError(
        name,
        what,
        comparison
          ? `binds ${slot.name}: sampler_comparison, which needs compare`
          : `has compare, but ${slot.name} is a sampler (not sampler_comparison)`,
      );
    }
    const filter = (["magFilter", "minFilter"] as const).find((f) => d[f] === "linear");
    if (slot.texture?.nonFiltering && filter !== undefined) {
      throw new KernelArgumentError(
        name,
        `${what}.${filter}`,
        `is linear, but ${slot.name} gathers an integer texture (textureGather), which WebGPU ` +
          `allows only with a sampler that does not filter: use "nearest"`,
      );
    }
    let sampler = this.#samplers.get(key);
    if (sampler === undefined) {
      sampler = this.#device.createSampler(d as GPUSamplerDescriptor);
      this.#samplers.set(key, sampler);
    }
    return sampler;
  }

  #entry(slot: ReflectedBinding, resource: GPUTextureView | GPUSampler, into: Placer): void {
    let entry = this.#pool[this.used];
    if (entry === undefined) {
      entry = { binding: 0, group: 0, resource };
      this.#pool.push(entry);
    }
    entry.binding = slot.binding;
    entry.group = slot.group;
    entry.resource = resource;
    this.used++;
    into.place(entry);
  }
}

/** How errors name buffer `i` of a launch: `buffers[i]`, or `buffers.name` when named. */
export function bufferArgument(i: number, names: readonly string[] | undefined): string {
  return names === undefined ? `buffers[${i}]` : `buffers.${names[i]}`;
}

/** How a refusal names the texture given (and the mip level, for a view's ref). */
function aTexture(entry: TextureEntry, ref: HandleRef): string {
  const samples = entry.sampleCount > 1 ? ` of ${entry.sampleCount} samples` : "";
  const level = mipLevelOf(ref);
  const layers = layersOf(ref);
  const part = layers === undefined
    ? ""
    : layers[1] === 1
    ? `layer ${layers[0]} of `
    : `layers ${layers[0]} to ${layers[0] + layers[1] - 1} of `;
  const of = level === undefined ? "is a" : `is ${part}mip level ${level} of a`;
  return `${of} ${entry.format} ${textureExtent(entry)} texture${samples}`;
}
