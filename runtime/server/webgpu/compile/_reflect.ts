/**
 * Reflection of a WGSL kernel with `wgsl_reflect` (the parser webgpu-utils uses): its compute
 * entry points, the chosen one's `@workgroup_size` (override defaults resolved), and every
 * binding (any `@group`) with its address space, access, type, minimum size and source line;
 * textures and samplers come from `_binding_kinds.ts`.
 *
 * Everything the parser does not check and the runtime relies on is checked here: the uniform
 * address space's layout rules (params are packed from these offsets), workgroup sizes that use
 * an override without a default (the parser silently reads 1), and `entryPoint` /
 * `workgroupSize` given in the kernel that contradict the WGSL.
 *
 * @module
 */

import { WgslReflect } from "wgsl_reflect";
import { CompilationError, KernelArgumentError } from "../../../core/errors.ts";
import { runtimeLogger } from "../../../core/logging.ts";
import { quietly } from "../_quiet_console.ts";
import type { WgslKernel } from "../kernel.ts";
import { type EntryParameter, FOLDED_BUILTINS } from "./_fold.ts";
import { isTextureVariable, textureBindings, type TextureSlot } from "./_binding_kinds.ts";
import {
  NO_OVERRIDES,
  type ReflectedOverride,
  reflectOverrides,
  resolveWorkgroupSize,
  type WorkgroupSizeText,
} from "./_overrides.ts";
import { declarationLine, maskComments, readModule, unmangle } from "./_wgsl_source.ts";
import { declaredNames, namesUsedBy } from "./_entry_uses.ts";
import { unsure } from "./_device_verdict.ts";
import {
  elementScalar,
  normalizeType,
  type ReflectTypeInfo,
  runtimeStride,
  sizeOf,
  uniformLayoutProblem,
  type WgslScalar,
  type WgslType,
} from "./_wgsl_types.ts";

/** One binding of the module (any `@group`). */
export interface ReflectedBinding {
  /** The `@group(n)` it is declared in. */
  readonly group: number;
  readonly binding: number;
  readonly name: string;
  readonly space: "storage" | "uniform" | "texture" | "sampler";
  /** A texture's or sampler's WGSL declaration (`_binding_kinds.ts`); `undefined` for buffers. */
  readonly texture?: TextureSlot;
  /** Declared access (`read`: the launch only reads it); uniforms, samplers are `read`. */
  readonly access: "read" | "read_write";
  readonly type: WgslType;
  /** Bytes the binding needs at least (one element for a runtime-sized array). */
  readonly minSize: number;
  /**
   * The scalar a typed handle bound here must hold (`array<vec4f>`: f32), or `undefined` for
   * types holding structs, checked by size only.
   */
  readonly scalar: WgslScalar | undefined;
  /** A runtime-sized array's element stride (a typed handle holds whole elements), else 0. */
  readonly stride: number;
  /** 1-based line of the declaration. */
  readonly line: number;
}

/** What the runtime knows about a kernel from its WGSL. */
export interface KernelReflection {
  /** The kernel's name in messages: its id, else its entry point. */
  readonly name: string;
  readonly entryPoint: string;
  readonly workgroupSize: readonly [number, number, number];
  /**
   * The bindings the entry point uses (statically, through the functions it calls), in (group,
   * binding) order: the others are not in its layout and are not passed.
   */
  readonly bindings: readonly ReflectedBinding[];
  /** The `var<storage>` bindings, in (group, binding) order. */
  readonly storage: readonly ReflectedBinding[];
  /** The `var<uniform>` bindings, in (group, binding) order (what `params` fill). */
  readonly uniforms: readonly ReflectedBinding[];
  /**
   * What `buffers` fill, in (group, binding) order: the storage buffers and the textures
   * (`_binding_kinds.ts`).
   */
  readonly resources: readonly ReflectedBinding[];
  /** The `sampler` bindings, in (group, binding) order (what `samplers` fill). */
  readonly samplers: readonly ReflectedBinding[];
  /** Every binding by its WGSL name (named `buffers` and `samplers` are found here). */
  readonly byName: ReadonlyMap<string, ReflectedBinding>;
  /** Bind groups of the pipeline layout: the highest `@group` + 1 (at least 1). */
  readonly groups: number;
  /** Whether a `var<storage, read>` binding exists (the module is compiled with it widened). */
  readonly hasReadOnlyStorage: boolean;
  /** The entry point's parameters (what a folded launch rewrites, see `_fold.ts`). */
  readonly parameters: readonly EntryParameter[];
  /** Fold-sensitive builtins the entry point reads through struct parameters. */
  readonly structBuiltins: readonly string[];
  /** The device features the module's `enable` directives need (`shader-f16`...). */
  readonly features: readonly string[];
  /**
   * The lowest binding number of group 0 the module does not declare (used or not): the
   * runtime's own uniform (a folded launch's) goes there. Not one past the highest: a module
   * binding 999 left the fold 1000, past WebGPU's limit.
   */
  readonly freeBinding: number;
  /** The module's `override` declarations. */
  readonly overrides: readonly ReflectedOverride[];
  /** The entry point's `@workgroup_size` as written (evaluated again for each override set). */
  readonly size: WorkgroupSizeText;
}

/** The device feature each `enable` extension needs. */
const ENABLE_FEATURES: Record<string, string> = { f16: "shader-f16", subgroups: "subgroups" };

interface ReflectVariable {
  readonly name: string;
  readonly group: number;
  readonly binding: number;
  readonly access: string;
  readonly type: ReflectTypeInfo;
}

interface ReflectAttribute {
  readonly name: string;
  readonly value: unknown;
}

interface ReflectEntry {
  readonly name: string;
  /** What the entry point uses, through the functions it calls. */
  readonly resources?: readonly { readonly name: string }[];
  readonly workgroupSize: readonly number[];
  readonly startLine: number;
  readonly attributes: readonly ReflectAttribute[] | null;
  readonly arguments: readonly {
    readonly name: string;
    readonly type: { readonly isStruct?: boolean } | null;
    readonly attributes: readonly ReflectAttribute[] | null;
  }[];
  readonly inputs: readonly {
    readonly name: string;
    readonly locationType: string;
    readonly location: unknown;
  }[];
}

/**
 * Reflects a kernel. Throws `CompilationError` (with the line) for WGSL the parser rejects or
 * that breaks a rule above, `KernelArgumentError` for a kernel field contradicting the WGSL.
 */
export function reflectKernel(kernel: WgslKernel): KernelReflection {
  const label = kernel.id ?? kernel.entryPoint ?? "wgsl";
  const text = readModule(kernel.source);
  const [uncounted] = text.uncounted;
  if (uncounted !== undefined) {
    const { what, line, cause } = uncounted;
    const why = cause instanceof Error ? cause.message : String(cause);
    throw unsure(
      new CompilationError(
        label,
        `the runtime cannot evaluate ${what}: ${why}`,
        line,
        {
          cause,
        },
      ),
    );
  }
  let reflect: WgslReflect;
  try {
    // its evaluator prints what it does not know (`Unknown function "Foo"`) on console.error
    reflect = quietly(runtimeLogger("server"), () => new WgslReflect(text.reflectSource));
  } catch (cause) {
    throw unreadable(label, kernel.source, cause);
  }
  const entries = reflect.entry.compute as unknown as ReflectEntry[];
  const names = entries.map((e) => unmangle(e.name));
  let entry: ReflectEntry | undefined;
  if (kernel.entryPoint !== undefined) {
    entry = entries.find((e) => unmangle(e.name) === kernel.entryPoint);
    if (entry === undefined) {
      throw new KernelArgumentError(
        label,
        "entryPoint",
        `is '${kernel.entryPoint}' but the WGSL declares ${describeEntries(names)}`,
      );
    }
  } else if (entries.length === 1) {
    entry = entries[0];
  } else {
    throw new KernelArgumentError(
      label,
      "entryPoint",
      entries.length === 0
        ? "cannot be found: the WGSL declares no @compute entry point"
        : `is required: the WGSL declares ${describeEntries(names)}`,
    );
  }
  const entryPoint = unmangle(entry.name);
  const name = kernel.id ?? entryPoint;
  const overrides = reflectOverrides(name, text, namesUsedBy(text.masked, entryPoint));
  const sizeText = text.workgroupSizes.get(entryPoint);
  if (sizeText === undefined) {
    throw new CompilationError(name, `'${entryPoint}' has no @workgroup_size`, entry.startLine);
  }
  const size = { ...sizeText, declarations: text.declarations, structs: text.structs };
  const workgroupSize = overrides.some((o) => o.required)
    ? [0, 0, 0] as const // known once the overrides are given
    : resolveWorkgroupSize(name, entryPoint, size, NO_OVERRIDES);
  if (workgroupSize[0] > 0) checkWorkgroupSize(kernel, { name, entryPoint, workgroupSize });
  const used = new Set(entry.resources?.map((r) => unmangle(r.name)));
  // wgsl_reflect counts a local that shadows a binding as a use of it, and misses a binding
  // used only in a `switch` selector or a `break if` condition: the text walk decides
  // (_entry_uses.ts), as WebGPU's static use does.
  const reached = namesUsedBy(text.masked, entryPoint);
  const declared = declaredNames(text.masked);
  for (const name of used) {
    if (reached !== undefined && declared.has(name) && !reached.has(name)) used.delete(name);
  }
  for (
    const v of [...reflect.storage, ...reflect.uniforms, ...declaredTexturesAndSamplers(reflect)]
  ) {
    const name = unmangle((v as { name: string }).name);
    if (reached?.has(name)) used.add(name);
  }
  const variables = [
    ...(reflect.storage as unknown as ReflectVariable[]).map((v) => ({
      v,
      space: "storage" as const,
    })),
    ...(reflect.uniforms as unknown as ReflectVariable[]).map((v) => ({
      v,
      space: "uniform" as const,
    })),
  ];
  // Textures and samplers, named as the user wrote them, those the entry point uses only.
  const bindings: ReflectedBinding[] = textureBindings(
    reflect,
    name,
    kernel.source,
    (v) => entry.resources === undefined || used.has(unmangle(v)),
  ).map((b) => ({ ...b, name: unmangle(b.name) }));
  for (const { v, space } of variables) {
    if (isTextureVariable(v)) continue; // storage textures: reflected by textureBindings
    const variable = unmangle(v.name);
    // Only what the entry point uses (through the functions it calls) is in its layout.
    if (entry.resources !== undefined && !used.has(variable)) continue;
    const line = declarationLine(kernel.source, variable);
    if (bindings.some((b) => b.group === v.group && b.binding === v.binding)) {
      throw new CompilationError(
        name,
        `@group(${v.group}) @binding(${v.binding}) is declared twice`,
        line,
      );
    }
    const type = normalizeType(v.type);
    if (space === "uniform") {
      const problem = uniformLayoutProblem(type, variable);
      if (problem !== undefined) throw new CompilationError(name, problem, line);
    }
    const access = space === "storage" && v.access === "read_write" ? "read_write" : "read";
    bindings.push({
      group: v.group,
      binding: v.binding,
      name: variable,
      space,
      access,
      type,
      minSize: sizeOf(type),
      scalar: elementScalar(type),
      stride: runtimeStride(type),
      line,
    });
  }
  bindings.sort((a, b) => a.group - b.group || a.binding - b.binding);
  const parameters = entry.arguments.map((argument) => ({
    name: unmangle(argument.name),
    builtin: argument.attributes?.find((a) => a.name === "builtin")?.value as string | undefined,
    struct: argument.type?.isStruct === true,
  }));
  const direct = new Set(parameters.map((parameter) => parameter.builtin));
  const structBuiltins = entry.inputs
    .filter((input) => input.locationType === "builtin")
    .map((input) => String(input.location))
    .filter((builtin) => FOLDED_BUILTINS.has(builtin) && !direct.has(builtin));
  return {
    name,
    entryPoint,
    workgroupSize,
    bindings,
    storage: bindings.filter((b) => b.space === "storage"),
    uniforms: bindings.filter((b) => b.space === "uniform"),
    resources: bindings.filter((b) => b.space === "storage" || b.space === "texture"),
    samplers: bindings.filter((b) => b.space === "sampler"),
    byName: new Map(bindings.map((b) => [b.name, b])),
    groups: bindings.reduce((n, b) => Math.max(n, b.group + 1), 1),
    hasReadOnlyStorage: bindings.some((b) => b.space === "storage" && b.access === "read"),
    parameters,
    structBuiltins,
    freeBinding: lowestFree(
      [...variables.map(({ v }) => v), ...declaredTexturesAndSamplers(reflect)]
        .filter((v) => v.group === 0).map((v) => v.binding),
    ),
    features: text.enables.map((e) => ENABLE_FEATURES[e] ?? e.replaceAll("_", "-")),
    overrides,
    size,
  };
}

/** Throws `KernelArgumentError` when the kernel's own `workgroupSize` contradicts the WGSL. */
export function checkWorkgroupSize(
  kernel: WgslKernel,
  reflection: Pick<KernelReflection, "name" | "entryPoint" | "workgroupSize">,
): void {
  if (kernel.workgroupSize === undefined) return;
  const declared = reflection.workgroupSize;
  const given = [...kernel.workgroupSize, 1, 1].slice(0, 3);
  if (given.some((n, i) => n !== declared[i])) {
    throw new KernelArgumentError(
      reflection.name,
      "workgroupSize",
      `is [${kernel.workgroupSize.join(", ")}] but '${reflection.entryPoint}' declares ` +
        `@workgroup_size(${declared.join(", ")})`,
    );
  }
}

/**
 * The module to compile: read-only storage declarations widened to `read_write`. Slices of one
 * pool page share a `GPUBuffer`, and WebGPU forbids one buffer being bound read-only and writable
 * in one dispatch; bound as `storage` everywhere, any mix of slices is valid. The original source
 * is still compiled for validation, so a write to a read-only binding remains an error, and runs
 * where only the widened module fails (`_settle.ts`). Lines are kept, so compiler messages point
 * at the user's lines.
 */
export function widenReadOnlyStorage(source: string): string {
  // Matched with comments masked (`var<storage, /* c */ read>`, a line comment inside the
  // template list), a trailing comma allowed; the newlines of a match are kept.
  const masked = maskComments(source);
  let out = "", at = 0;
  for (const m of masked.matchAll(/\bvar\s*<\s*storage\s*(?:,\s*read\s*)?,?\s*>/g)) {
    const newlines = m[0].replace(/[^\n]/g, "");
    out += source.slice(at, m.index) + "var<storage, read_write>" + newlines;
    at = m.index! + m[0].length;
  }
  return out + source.slice(at);
}

/**
 * The parser's failure as the user reads it: which line it could not read, quoting it (never the
 * bare parser message alone).
 */
function unreadable(label: string, source: string, cause: unknown): CompilationError {
  const message = cause instanceof Error ? cause.message : String(cause);
  const match = /Line: (\d+)/.exec(message);
  const line = match ? Number(match[1]) : undefined;
  const text = line === undefined ? undefined : source.split("\n")[line - 1]?.trim();
  const where = text
    ? `line ${line} ('${text.length > 80 ? text.slice(0, 77) + "..." : text}')`
    : "the module";
  return unsure(
    new CompilationError(
      label,
      `the runtime's WGSL reflection cannot read ${where}: ${
        message.replace(/\.? ?Line: \d+/, "")
      }. ` +
        `If the device compiles this WGSL, the construct there is one the runtime does not reflect yet`,
      line,
      { cause },
    ),
  );
}

function describeEntries(names: readonly string[]): string {
  return names.length === 0
    ? "no @compute entry point"
    : `@compute entry point${names.length > 1 ? "s" : ""} ${names.map((n) => `'${n}'`).join(", ")}`;
}

/** The lowest binding number not in `taken`. */
function lowestFree(taken: readonly number[]): number {
  const set = new Set(taken);
  let free = 0;
  while (set.has(free)) free++;
  return free;
}

/** Every texture and sampler the module declares, used or not, with its group and binding. */
function declaredTexturesAndSamplers(reflect: WgslReflect): { group: number; binding: number }[] {
  const lists = reflect as unknown as Record<
    "textures" | "samplers",
    ReflectVariable[] | undefined
  >;
  return [...lists.textures ?? [], ...lists.samplers ?? []];
}
