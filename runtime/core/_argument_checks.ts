/**
 * Argument checks shared by the runtime. Wrong types raise `TypeError`, values outside their
 * range raise `RangeError`; each message names the argument and the value received.
 *
 * @module
 */

/** Throws unless `value` is a non-negative safe integer; `what` names the argument. */
export function assertNonNegativeInteger(value: unknown, what: string): asserts value is number {
  // Kept small so that V8 inlines it into hot paths; the error is built out of line.
  if (!Number.isSafeInteger(value) || (value as number) < 0) notNonNegativeInteger(value, what);
}

/** Throws unless `value` is a positive safe integer (a size in bytes or elements). */
export function assertPositiveInteger(value: unknown, what: string): asserts value is number {
  if (!Number.isSafeInteger(value) || (value as number) <= 0) notPositiveInteger(value, what);
}

function notNonNegativeInteger(value: unknown, what: string): never {
  if (typeof value !== "number") {
    throw new TypeError(`${what} must be a number, got ${describe(value)}`);
  }
  throw new RangeError(`${what} must be a non-negative safe integer, got ${value}`);
}

function notPositiveInteger(value: unknown, what: string): never {
  if (value === 0) throw new RangeError(`${what} must be greater than zero, got 0`);
  notNonNegativeInteger(value, what);
}

/** Whether `value` fits an unsigned 32-bit integer ({@linkcode assertU32}'s test, no message). */
export function isU32(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0 && (value as number) <= 0xffff_ffff;
}

/** Throws unless `value` fits an unsigned 32-bit integer. */
export function assertU32(value: unknown, what: string): asserts value is number {
  assertNonNegativeInteger(value, what);
  if (value > 0xffff_ffff) throw new RangeError(`${what} must fit in 32 bits, got ${value}`);
}

/**
 * The boolean option `value` (`fallback` when absent); a `TypeError` naming it otherwise, as a
 * truthy string (`exclusive: "yes"`) would otherwise be read as `false` without a word.
 */
export function optionalBoolean(value: unknown, what: string, fallback = false): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== "boolean") {
    throw new TypeError(`${what} must be a boolean, got ${describe(value)}`);
  }
  return value;
}

/** A short description of a value for error messages. */
export function describe(value: unknown): string {
  if (typeof value === "bigint") return `${value}n (bigint)`;
  if (typeof value === "string") return JSON.stringify(value);
  if (value === null || typeof value !== "object") return String(value);
  return value.constructor?.name ?? "object";
}

/** Checks a descriptor's shape and element size, as `AllocationDescriptor` does. */
export function checkShape(shape: readonly number[], elemSize: number): void {
  if (!Array.isArray(shape)) throw new TypeError("shape must be an array of integers");
  for (let i = 0; i < shape.length; i++) {
    const dim = shape[i];
    if (!Number.isSafeInteger(dim) || dim < 0) badDimension(dim, i);
  }
  assertPositiveInteger(elemSize, "elemSize");
}

function badDimension(dim: unknown, axis: number): never {
  notNonNegativeInteger(dim, `shape[${axis}]`);
}

/** The float element types a number is rounded to. */
export type FloatType = "f16" | "bf16" | "f32" | "f64";

/**
 * `value` rounded to `type` as it will be stored (to nearest, ties to even, as NumPy; bf16 is
 * stored truncated from f32, so it has f32's range). `RangeError` when a finite value overflows
 * to infinity; NaN and the infinities given explicitly are values too.
 */
export function roundFloat(type: FloatType, value: number, what: string): number {
  const rounded = type === "f64"
    ? value
    : type === "f16"
    ? Math.f16round(value)
    : Math.fround(value);
  if (Number.isFinite(value) && !Number.isFinite(rounded)) {
    const max = type === "f16" ? 65504 : 3.4028234663852886e38;
    throw new RangeError(
      `${what} ${value} overflows ${type} (largest ${max}): it would be stored as Infinity`,
    );
  }
  return rounded;
}

/**
 * Throws `TypeError` unless `object` is an object holding only `keys`: a misspelt key would be
 * ignored and the call run without it. `what` names the call, `argument` the object (`options`,
 * `spec`), both in the message with the keys taken.
 */
export function assertKnownKeys(
  object: unknown,
  keys: readonly string[],
  what: string,
  argument = "options",
): void {
  if (typeof object !== "object" || object === null || Array.isArray(object)) {
    throw new TypeError(`${what}: ${argument} must be an object, got ${describe(object)}`);
  }
  for (const key in object) {
    if (keys.includes(key)) continue;
    const [one, all] = argument === "options" ? ["option", "options"] : [`${argument} key`, "keys"];
    throw new TypeError(
      `${what}: unknown ${one} ${JSON.stringify(key)} (the ${all} are ${keys.join(", ")})`,
    );
  }
}
