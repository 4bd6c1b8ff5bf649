/**
 * Textures and samplers of a WGSL module, from `wgsl_reflect`'s output: what each binding is
 * (sampled or storage texture, sampler), its view dimension, sampled type or storage format and
 * access, and the bind-group layout entry the pipeline is built with. Also the checks of the
 * module's groups against what the runtime binds.
 *
 * Sampled `f32` textures are laid out `float` (filterable) when the module declares a `sampler`
 * (it samples them), else `unfilterable-float` (any float format binds, `r32float` included); a
 * launch binding an unfilterable format to a filterable slot is refused at the call.
 *
 * @module
 */

import { CompilationError, UnsupportedError } from "../../../core/errors.ts";
import {
  isTextureFormat,
  TEXTURE_FORMATS,
  type TextureSampleKind,
} from "../../../core/handles/texture_format.ts";
import type { ReflectedBinding } from "./_reflect.ts";
import { declarationLine, maskComments } from "./_wgsl_source.ts";
import { splitTopLevel } from "./_wgsl_templates.ts";

/** A texture's or sampler's declaration. */
export interface TextureSlot {
  /** `sampled`: `texture_2d<T>` and kin; `storage`: `texture_storage_*`; samplers. */
  readonly kind: "sampled" | "storage" | "sampler" | "comparison";
  /** WebGPU's view dimension (`"2d"`, `"3d"`, `"2d-array"`...); `""` for samplers. */
  readonly dimension: GPUTextureViewDimension | "";
  /** Sampled textures: the sample type of the layout. */
  readonly sample: TextureSampleKind | undefined;
  /** Storage textures: the declared format (`rgba8unorm`...). */
  readonly format: string | undefined;
  /** Storage textures: the declared access. */
  readonly access: "read" | "write" | "read_write" | undefined;
  /** A `sampler` the module gathers integer texels with: laid out `non-filtering`. */
  readonly nonFiltering?: boolean;
  /** `texture_multisampled_2d<T>` / `texture_depth_multisampled_2d`: takes 4-sample textures. */
  readonly multisampled?: boolean;
}

interface ReflectedResource {
  readonly name: string;
  readonly group: number;
  readonly binding: number;
  readonly resourceType: number;
  readonly type: {
    readonly name: string;
    readonly format?: { readonly name: string } | null;
    readonly access?: string | null;
  };
}

/** wgsl_reflect's ResourceType values. */
const SAMPLER = 4;
const STORAGE_TEXTURE = 5;

const DIMENSIONS: Readonly<Record<string, GPUTextureViewDimension>> = {
  texture_1d: "1d",
  texture_2d: "2d",
  texture_2d_array: "2d-array",
  texture_3d: "3d",
  texture_cube: "cube",
  texture_cube_array: "cube-array",
  texture_multisampled_2d: "2d",
  texture_depth_2d: "2d",
  texture_depth_2d_array: "2d-array",
  texture_depth_cube: "cube",
  texture_depth_cube_array: "cube-array",
  texture_depth_multisampled_2d: "2d",
  texture_storage_1d: "1d",
  texture_storage_2d: "2d",
  texture_storage_2d_array: "2d-array",
  texture_storage_3d: "3d",
};

/** Whether a variable `wgsl_reflect` lists under `storage` is a storage texture. */
export function isTextureVariable(variable: unknown): boolean {
  return (variable as ReflectedResource).resourceType === STORAGE_TEXTURE;
}

/**
 * The module's texture and sampler bindings (unsorted) that `keep` keeps (by the variable's
 * name as reflected): two variables at one binding are a `CompilationError` only when both are
 * kept (webgpu-samples' probabilityMap.wgsl declares a texture and a storage texture at
 * `@binding(3)`, each used by one entry point).
 */
export function textureBindings(
  reflect: { readonly storage: unknown; readonly textures: unknown; readonly samplers: unknown },
  kernel: string,
  source: string,
  keep: (name: string) => boolean = () => true,
): ReflectedBinding[] {
  const textures = [
    ...(reflect.storage as ReflectedResource[]).filter(isTextureVariable),
    ...(reflect.textures as ReflectedResource[]),
  ];
  const samplers = reflect.samplers as ReflectedResource[];
  const filterable = samplers.some((s) => s.type.name === "sampler");
  const gathering = integerGatherSamplers(
    source,
    new Set(textures.filter((t) => /^[iu]32$/.test(formatOf(t) ?? "")).map((t) => t.name)),
    new Set(samplers.map((s) => s.name)),
  );
  const out: ReflectedBinding[] = [];
  for (const v of [...textures, ...samplers]) {
    if (!keep(v.name)) continue;
    const line = declarationLine(source, v.name);
    const typeName = v.type.name;
    const slot = slotOf(v, filterable);
    const texture = slot && gathering.has(v.name) ? { ...slot, nonFiltering: true } : slot;
    if (
      texture === undefined || (texture.kind !== "sampler" && texture.kind !== "comparison" &&
        texture.dimension === "")
    ) {
      throw unsupported(kernel, v.name, typeName, line, "");
    }
    // Every view dimension (1-D, 2-D, 2-D array, cube, cube array, 3-D; depth and multisampled)
    // is a texture the runtime makes: the launch checks the texture's dimension, layers, format
    // and samples against it.
    const sampler = texture.kind === "sampler" || texture.kind === "comparison";
    // A storage format the runtime makes no textures of (`r8unorm`...): no launch could bind
    // it, and WebGPU refuses the layout. (`bgra8unorm` needs a device feature: the module's
    // reflection names it, and a device without it refuses the kernel, naming it.)
    if (texture.kind === "storage" && !isTextureFormat(texture.format)) {
      throw unsupported(
        kernel,
        v.name,
        `${typeName}<${texture.format}>`,
        line,
        ` (storage textures: ${Object.keys(TEXTURE_FORMATS).join(", ")})`,
      );
    }
    if (out.some((b) => b.group === v.group && b.binding === v.binding)) {
      throw new CompilationError(
        kernel,
        `@group(${v.group}) @binding(${v.binding}) is declared twice`,
        line,
      );
    }
    out.push({
      group: v.group,
      binding: v.binding,
      name: v.name,
      space: sampler ? "sampler" : "texture",
      texture,
      access: texture.access === "write" || texture.access === "read_write" ? "read_write" : "read",
      type: { kind: "other", name: declaredType(v) },
      minSize: 0,
      scalar: undefined,
      stride: 0,
      line,
    });
  }
  return out;
}

/** The device features the bindings need: `bgra8unorm-storage` for a bgra8unorm storage texture. */
export function textureFeatures(bindings: readonly ReflectedBinding[]): string[] {
  for (const b of bindings) {
    const t = b.texture;
    const feature = t?.kind === "storage" && isTextureFormat(t.format)
      ? TEXTURE_FORMATS[t.format].storageFeature
      : undefined;
    if (feature !== undefined) return [feature];
  }
  return [];
}

/** A texture's sampled type or storage format as `wgsl_reflect` gives it. */
function formatOf(v: ReflectedResource): string | undefined {
  return v.type.format?.name ?? (v.type.format as unknown as string | undefined);
}

/**
 * The samplers the module gathers integer texels with (`textureGather(0, t, s, uv)` of a
 * `texture_2d<u32>`), by the calls' arguments: WebGPU requires such a sampler to be laid out
 * `non-filtering` (wgpu's `"auto"` layout does not check the pair, so plain WebGPU runs the
 * module). A texture or sampler passed through a function parameter is not seen (the device then
 * refuses the pipeline).
 */
function integerGatherSamplers(
  source: string,
  integer: ReadonlySet<string>,
  samplers: ReadonlySet<string>,
): Set<string> {
  const out = new Set<string>();
  if (integer.size === 0 || samplers.size === 0) return out;
  const masked = maskComments(source);
  for (const m of masked.matchAll(/(?<![\p{XID_Continue}])textureGather\s*\(/gu)) {
    const open = m.index! + m[0].length - 1;
    let close = -1;
    for (let i = open, depth = 0; i < masked.length && close < 0; i++) {
      if (masked[i] === "(") depth++;
      else if (masked[i] === ")" && --depth === 0) close = i;
    }
    const args = splitTopLevel(masked.slice(open + 1, close < 0 ? open + 1 : close));
    if (!args.some((a) => integer.has(a.trim()))) continue;
    for (const a of args) if (samplers.has(a.trim())) out.add(a.trim());
  }
  return out;
}

function slotOf(v: ReflectedResource, filterable: boolean): TextureSlot | undefined {
  const name = v.type.name;
  if (v.resourceType === SAMPLER) {
    const kind = name === "sampler_comparison" ? "comparison" : "sampler";
    return { kind, dimension: "", sample: undefined, format: undefined, access: undefined };
  }
  const dimension = DIMENSIONS[name] ?? "";
  const format = v.type.format?.name ?? (v.type.format as unknown as string | undefined);
  if (v.resourceType === STORAGE_TEXTURE) {
    const access = (v.type.access ?? "write") as TextureSlot["access"];
    return { kind: "storage", dimension, sample: undefined, format, access };
  }
  const multisampled = name.includes("multisampled");
  // A multisampled float texture is never filtered: WebGPU lays it out `unfilterable-float`.
  const sample: TextureSampleKind = name.startsWith("texture_depth")
    ? "depth"
    : format === "u32"
    ? "uint"
    : format === "i32"
    ? "sint"
    : filterable && !multisampled
    ? "float"
    : "unfilterable-float";
  return { kind: "sampled", dimension, sample, format: undefined, access: undefined, multisampled };
}

function declaredType(v: ReflectedResource): string {
  const format = v.type.format?.name ?? (v.type.format as unknown as string | undefined);
  if (v.resourceType === SAMPLER) return v.type.name;
  if (v.resourceType === STORAGE_TEXTURE) return `${v.type.name}<${format}, ${v.type.access}>`;
  return format ? `${v.type.name}<${format}>` : v.type.name;
}

/** The bind-group layout entry of a binding. */
export function layoutEntry(b: ReflectedBinding): GPUBindGroupLayoutEntry {
  const base = { binding: b.binding, visibility: GPUShaderStage.COMPUTE };
  const t = b.texture;
  if (t === undefined) {
    return { ...base, buffer: { type: b.space === "uniform" ? "uniform" : "storage" } };
  }
  if (t.kind === "sampler") {
    return { ...base, sampler: { type: t.nonFiltering ? "non-filtering" : "filtering" } };
  }
  if (t.kind === "comparison") return { ...base, sampler: { type: "comparison" } };
  const viewDimension = t.dimension as GPUTextureViewDimension;
  if (t.kind === "storage") {
    const access = t.access === "read"
      ? "read-only"
      : t.access === "read_write"
      ? "read-write"
      : "write-only";
    return {
      ...base,
      storageTexture: { access, format: t.format as GPUTextureFormat, viewDimension },
    };
  }
  const multisampled = t.multisampled ?? false;
  return { ...base, texture: { sampleType: t.sample, viewDimension, multisampled } };
}

/**
 * Throws `CompilationError` for groups the device cannot lay out (more than `maxBindGroups`) or
 * bindings past `maxBindingsPerBindGroup`.
 */
export function checkGroups(
  kernel: string,
  bindings: readonly ReflectedBinding[],
  limits?: GPUSupportedLimits,
): void {
  if (limits === undefined) return;
  for (const b of bindings) {
    if (b.group >= limits.maxBindGroups) {
      throw new CompilationError(
        kernel,
        `${b.name} is in @group(${b.group}), the device allows ${limits.maxBindGroups} bind ` +
          `groups (maxBindGroups): groups 0 to ${limits.maxBindGroups - 1}`,
        b.line,
      );
    }
    if (b.binding >= limits.maxBindingsPerBindGroup) {
      throw new CompilationError(
        kernel,
        `${b.name} is @binding(${b.binding}), the device allows bindings 0 to ` +
          `${limits.maxBindingsPerBindGroup - 1} (maxBindingsPerBindGroup)`,
        b.line,
      );
    }
  }
}

/** The refusal of a texture type the runtime cannot bind. */
function unsupported(
  kernel: string,
  name: string,
  typeName: string,
  line: number | undefined,
  why: string,
): UnsupportedError {
  const at = line === undefined ? "" : ` (line ${line})`;
  return new UnsupportedError(
    `Kernel '${kernel}': ${name}: ${typeName}${at} is not supported${why}`,
  );
}
