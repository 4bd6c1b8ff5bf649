/**
 * `override` constants: reflected from the module's text with their types and defaults, the
 * values a launch gives checked like params (`KernelArgumentError` naming the override), and the
 * entry point's `@workgroup_size` evaluated with them (the runtime's own evaluation, never the
 * parser's: a misread size would launch the wrong number of workgroups).
 *
 * @module
 */

import { CompilationError, KernelArgumentError } from "../../../core/errors.ts";
import { describe } from "../../../core/_argument_checks.ts";
import { type ConstValue, evaluateConst } from "./consts/_const_eval.ts";
import { unsure } from "./_device_verdict.ts";
import type { ModuleDeclaration, ModuleText } from "./_wgsl_source.ts";
import { constScope } from "./consts/_const_scope.ts";
import type { ConstStruct } from "./consts/_const_structs.ts";

/** A scalar type an override may have. */
export type OverrideType = "f32" | "f16" | "i32" | "u32" | "bool";

/** One `override` declaration of the module. */
export interface ReflectedOverride {
  readonly name: string;
  /** Its `@id(N)`, the key WebGPU's pipeline constants use for it. */
  readonly id: number | undefined;
  readonly type: OverrideType;
  /** True when it has no default and the entry point uses it (a launch must give it). */
  readonly required: boolean;
  readonly line: number;
}

/** The entry point's `@workgroup_size` as written, with what evaluates it. */
export interface WorkgroupSizeText {
  readonly args: readonly string[];
  readonly line: number;
  readonly declarations: ReadonlyMap<string, ModuleDeclaration>;
  /** The module's structs (`Foo(64u).w` in a size). */
  readonly structs?: ReadonlyMap<string, ConstStruct>;
}

/** A checked override set: its cache key, values, and WebGPU's pipeline constants. */
export interface OverrideSet {
  readonly key: string;
  readonly values: ReadonlyMap<string, ConstValue>;
  readonly constants: Record<string, number>;
}

/** No overrides given. */
export const NO_OVERRIDES: ReadonlyMap<string, ConstValue> = new Map();

const TYPES = new Set(["f32", "f16", "i32", "u32", "bool"]);

/**
 * The module's overrides; `CompilationError` for one of a type the runtime cannot set. `used`:
 * the module-scope names the entry point uses (`_entry_uses.ts`); an override without a default
 * that it does not use is not required (WebGPU needs no value for it).
 */
export function reflectOverrides(
  kernel: string,
  text: ModuleText,
  used?: ReadonlySet<string>,
): ReflectedOverride[] {
  const out: ReflectedOverride[] = [];
  // Types only: an override without a default stands for a placeholder of its declared type,
  // so `override B = A * 2.0;` with `override A: f32;` is f32 (its value is unknown here).
  const placeholders = new Map<string, ConstValue>();
  for (const d of text.declarations.values()) {
    if (d.kind === "override" && d.init === undefined && TYPES.has(d.type ?? "")) {
      placeholders.set(d.name, { value: 1, type: d.type as OverrideType });
    }
  }
  const scope = constScope(text.declarations, placeholders, text.structs);
  for (const d of text.declarations.values()) {
    if (d.kind !== "override") continue;
    let type = d.type;
    if (type === undefined && d.init !== undefined) {
      try {
        const inferred = evaluateConst(d.init, scope).type;
        type = inferred === "abstract-int"
          ? "i32"
          : inferred === "abstract-float"
          ? "f32"
          : inferred;
      } catch {
        type = undefined;
      }
    }
    if (type === undefined || !TYPES.has(type)) {
      const error = new CompilationError(
        kernel,
        `override '${d.name}' has ${
          type === undefined ? "no type the runtime can tell" : `type ${type}`
        }; ` +
          `give it one of f32, f16, i32, u32, bool`,
        d.line,
      );
      throw type === undefined ? unsure(error) : error;
    }
    out.push({
      name: d.name,
      id: d.id,
      type: type as OverrideType,
      required: d.init === undefined && (used === undefined || used.has(d.name)),
      line: d.line,
    });
  }
  return out;
}

/**
 * The workgroup size with the given override values. `CompilationError` naming the expression
 * when the runtime cannot evaluate it (never a guess), or when it is not a positive integer.
 */
export function resolveWorkgroupSize(
  kernel: string,
  entryPoint: string,
  size: WorkgroupSizeText,
  overrides: ReadonlyMap<string, ConstValue>,
): [number, number, number] {
  const scope = constScope(size.declarations, overrides, size.structs);
  const out: [number, number, number] = [1, 1, 1];
  if (size.args.length < 1 || size.args.length > 3) {
    throw new CompilationError(
      kernel,
      `@workgroup_size of '${entryPoint}' needs 1 to 3 values`,
      size.line,
    );
  }
  size.args.forEach((arg, i) => {
    let value: ConstValue;
    try {
      value = evaluateConst(arg, scope);
    } catch (cause) {
      throw unsure(
        new CompilationError(
          kernel,
          `the runtime cannot evaluate @workgroup_size(${
            size.args.map((a) => a.trim()).join(", ")
          }) ` +
            `of '${entryPoint}': ${(cause as Error).message}`,
          size.line,
          { cause },
        ),
      );
    }
    const integer = value.type === "i32" || value.type === "u32" || value.type === "abstract-int";
    if (!integer || !Number.isInteger(value.value) || value.value < 1) {
      throw new CompilationError(
        kernel,
        `@workgroup_size ${"xyz"[i]} of '${entryPoint}' ('${arg.trim()}') is ${value.value} ` +
          `(${value.type}); it must be a positive i32 or u32`,
        size.line,
      );
    }
    out[i] = value.value;
  });
  return out;
}

const F32_MAX = 3.4028234663852886e38;

/** Checks a launch's `overrides` against the declarations (`KernelArgumentError` naming one). */
export function checkOverrides(
  kernel: string,
  declared: readonly ReflectedOverride[],
  given: unknown,
): OverrideSet {
  if (
    given !== undefined && (typeof given !== "object" || given === null || Array.isArray(given))
  ) {
    throw new TypeError(`overrides must be an object of override values, got ${describe(given)}`);
  }
  const record = (given ?? {}) as Record<string, unknown>;
  // An `@id(N)` override is also keyed by "N", as WebGPU's pipeline `constants` key it.
  const byId = (o: ReflectedOverride) => o.id === undefined ? undefined : String(o.id);
  for (const key of Object.keys(record)) {
    if (!declared.some((o) => o.name === key || byId(o) === key)) {
      throw new KernelArgumentError(
        kernel,
        `overrides.${key}`,
        `is not an override of the WGSL (${
          declared.map((o) => o.name).join(", ") || "it declares none"
        })`,
      );
    }
  }
  const values = new Map<string, ConstValue>();
  const constants: Record<string, number> = {};
  let key = "";
  for (const o of declared) {
    const id = byId(o);
    // Own keys only: an override named `constructor` or `toString` left out takes its default.
    const has = (k: string | undefined) => k !== undefined && Object.hasOwn(record, k);
    if (has(id) && has(o.name)) {
      throw new KernelArgumentError(
        kernel,
        `overrides.${id}`,
        `and overrides.${o.name} both set '@id(${id}) override ${o.name}': give one`,
      );
    }
    const value = has(id) ? record[id!] : has(o.name) ? record[o.name] : undefined;
    if (value === undefined) {
      if (o.required) {
        throw new KernelArgumentError(
          kernel,
          `overrides.${o.name}`,
          `is required: 'override ${o.name}: ${o.type}' has no default`,
        );
      }
      continue;
    }
    const number = checkValue(kernel, o, value);
    // The value the device holds (`WG: 2.9999999` is 3.0 as an f32): what the runtime's own
    // evaluation of `@workgroup_size(u32(WG))` reads, or it launched 2-wide groups of 3.
    const held = o.type === "f32"
      ? Math.fround(number)
      : o.type === "f16"
      ? Math.f16round(number)
      : number;
    values.set(o.name, { value: held, type: o.type });
    constants[o.id === undefined ? o.name : String(o.id)] = number;
    key += `${o.name}=${number};`;
  }
  return { key, values, constants };
}

function checkValue(kernel: string, o: ReflectedOverride, value: unknown): number {
  const bad = (why: string): never => {
    throw new KernelArgumentError(kernel, `overrides.${o.name}`, `is ${describe(value)}: ${why}`);
  };
  if (o.type === "bool") {
    if (typeof value !== "boolean") bad("a bool override takes true or false");
    return value ? 1 : 0;
  }
  if (typeof value !== "number" || Number.isNaN(value)) {
    return bad(`a ${o.type} override takes a number`);
  }
  if (o.type === "u32" && !(Number.isInteger(value) && value >= 0 && value <= 0xffffffff)) {
    bad("outside u32 (an integer from 0 to 4294967295)");
  }
  if (o.type === "i32" && !(Number.isInteger(value) && value >= -(2 ** 31) && value < 2 ** 31)) {
    bad("outside i32 (an integer from -2147483648 to 2147483647)");
  }
  if (o.type === "f32" && !(Math.abs(value) <= F32_MAX)) bad("outside f32's finite range");
  if (o.type === "f16" && !(Math.abs(value) <= 65504)) bad("outside f16's finite range (±65504)");
  return value;
}
