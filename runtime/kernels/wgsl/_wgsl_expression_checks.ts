/**
 * What WGSL refuses in a helper's scalar expression that C++ would compile: the checks the CUDA
 * translation (`_wgsl_expression.ts`) makes so that an expression the WebGPU backend's compiler
 * refuses is refused on CUDA too, not run with C's meaning. Also the parser's vocabulary of
 * types and built-ins.
 *
 * @module
 */

import type { Const } from "./_wgsl_const.ts";

/** The type of a parsed expression: concrete, an abstract int literal, a bool, or unknown. */
export type Type = "f32" | "i32" | "u32" | "int" | "bool" | "?";

/** A parsed expression: its CUDA C++, its type, and for an abstract int literal its text. */
export interface Node {
  readonly code: string;
  readonly type: Type;
  readonly literal?: string;
  /** A constant's value (`_wgsl_const.ts` folds the operations on constants). */
  readonly value?: Const;
}

/** Built-ins of floats only: their integer literal arguments are f32 (`exp(0)`). */
export const FLOAT_CALLS: ReadonlySet<string> = new Set(
  ("exp exp2 log log2 sqrt inverseSqrt sin cos tan asin acos atan atan2 sinh cosh tanh pow " +
    "fract floor ceil round trunc saturate step smoothstep mix degrees radians fma length " +
    "distance").split(" "),
);

/** Built-ins whose result has their arguments' type. */
export const POLYMORPHIC: ReadonlySet<string> = new Set(
  ("max min clamp select abs sign countOneBits reverseBits countLeadingZeros " +
    "countTrailingZeros firstLeadingBit firstTrailingBit extractBits").split(" "),
);

export const CONCRETE: readonly Type[] = ["f32", "u32", "i32"];

/**
 * A WGSL expression that WGSL refuses but C++ would compile (with C's implicit conversions):
 * mixed operand types (`x * i` of an f32 `x` and the u32 index), a number where WGSL needs a
 * bool (`!x`, `x && y`), C's own syntax (`c ? a : b`, `(int)x`, a comma) or built-ins
 * (`sqrtf`, `__float2int_rn`, `threadIdx`). The WebGPU backend's compiler refuses these; the
 * CUDA one must too, not run them with C's meaning.
 */
export class WgslExpressionError extends Error {
  /** Creates the error: what WGSL refuses in the expression. */
  constructor(message: string) {
    super(message);
    this.name = "WgslExpressionError";
  }
}

export const NUMERIC: readonly Type[] = ["f32", "u32", "i32", "int"];

/** CUDA's names that WGSL lacks: C's float math (`sqrtf`, `log10`), its casts, thread indices. */
export const C_ONLY: ReadonlySet<string> = new Set([
  ..."exp exp2 log log2 sqrt sin cos tan asin acos atan atan2 sinh cosh tanh pow floor ceil round trunc"
    .split(" ").map((name) => `${name}f`),
  ..."fabs fabsf fmin fminf fmax fmaxf fmod fmodf rsqrt rsqrtf rint rintf erf erff cbrt cbrtf hypot"
    .split(" "),
  ..."hypotf isnan isinf isfinite signbit copysign copysignf static_cast reinterpret_cast".split(
    " ",
  ),
  ..."printf threadIdx blockIdx blockDim gridDim warpSize".split(" "),
  // C's functional casts (`int(x)`) and math WGSL lacks (`log10(x)`): C++ compiles them.
  ..."int float double unsigned signed long short char log10 log1p expm1 exp10 erfc lgamma tgamma"
    .split(" "),
  ..."nearbyint lrint llrint lround llround remainder nextafter scalbn ilogb logb fdim".split(" "),
]);

/** `a` and `b` are concrete and differ: WGSL's operands share one type. */
function mixed(a: Node, b: Node): boolean {
  return CONCRETE.includes(a.type) && CONCRETE.includes(b.type) && a.type !== b.type;
}

/** A WGSL operator's refusal of `left op right`, or `undefined` when WGSL takes it. */
export function refusal(op: string, left: Node, right: Node): string | undefined {
  const pair = `${left.type} ${op} ${right.type}`;
  if (op === "&&" || op === "||") {
    return NUMERIC.includes(left.type) || NUMERIC.includes(right.type)
      ? `${pair}: ${op} takes bools (compare the numbers: x != 0)`
      : undefined;
  }
  if (op === "<<" || op === ">>") {
    if (left.type === "f32" || left.type === "bool") return `${pair}: a shift takes an integer`;
    if (right.type === "i32" || right.type === "f32" || right.type === "bool") {
      return `${pair}: the shift amount is a u32 (u32(...))`;
    }
    // A constant amount of 32 or more shifting an i32 or u32 is WGSL's shader-creation error
    // (`x << 33u`, `x << (1u << 5u)`); only an amount known at run time is taken modulo 32 (as
    // wgsl_shl does). A shift of two constants is folded (`_wgsl_const.ts`: `1 << 40` is 2^40).
    if (left.value !== undefined && right.value !== undefined) return undefined; // folded
    const amount = right.value?.value;
    if (typeof amount !== "number" && typeof amount !== "bigint") return undefined;
    if (amount < 32) return undefined;
    return left.type === "int"
      ? `${pair}: an abstract int shifted by ${amount} is not translated (write its value)`
      : `${pair}: a shift by the constant ${amount} (32 or more) is refused by WGSL`;
  }
  const bools = (left.type === "bool") !== (right.type === "bool") &&
    (NUMERIC.includes(left.type) || NUMERIC.includes(right.type));
  if (bools) return `${pair}: a bool is not a number in WGSL (select(0, 1, b) or u32(b))`;
  return mixed(left, right)
    ? `${pair}: WGSL's operands have one type (convert one: ${right.type}(...) or ${left.type}(...))`
    : undefined;
}

/** A WGSL built-in's refusal of `args`: an integer for a float built-in, mixed types. */
export function callRefusal(name: string, args: readonly Node[]): void {
  const types = args.map((a) => a.type).join(", ");
  if (FLOAT_CALLS.has(name) && args.some((a) => a.type === "i32" || a.type === "u32")) {
    throw new WgslExpressionError(`${name}(${types}): ${name} takes floats (f32(...) first)`);
  }
  // The built-ins whose arguments share one type (extractBits' offset and count are u32s).
  const shared = name === "select"
    ? args.slice(0, 2)
    : name === "min" || name === "max" || name === "clamp"
    ? args
    : [];
  if (shared.some((a) => shared.some((b) => mixed(a, b)))) {
    throw new WgslExpressionError(`${name}(${types}): WGSL's arguments have one type`);
  }
  if (name === "select" && args[2] !== undefined && NUMERIC.includes(args[2].type)) {
    throw new WgslExpressionError(`select(${types}): its condition is a bool (x != 0)`);
  }
}

/** An abstract int literal made concrete for `type` (`0` as `0.0f` beside an f32). */
export function concrete(node: Node, type: Type): Node {
  if (node.type !== "int" || node.literal === undefined) return node;
  checkLiteralFits(node, type);
  if (type === "f32") return { code: `${node.literal}.0f`, type };
  if (type === "u32") return { code: `${node.literal}u`, type };
  return node;
}

/** The concrete type among `nodes` (WGSL's operands share one), or `int` / `?`. */
export function common(nodes: readonly Node[]): Type {
  return CONCRETE.find((t) => nodes.some((n) => n.type === t)) ??
    (nodes.every((n) => n.type === "int") ? "int" : "?");
}

/**
 * An abstract int literal beside an i32 or u32 must fit it (WGSL converts it, or refuses):
 * `u + -1` and `a + 3000000000` are refused, where C would wrap or widen them.
 */
export function checkLiteralFits(node: Node, type: Type): void {
  if (node.type !== "int" || node.literal === undefined) return;
  const value = BigInt(node.literal);
  const [low, high] = type === "u32"
    ? [0n, 2n ** 32n - 1n]
    : type === "i32"
    ? [-(2n ** 31n), 2n ** 31n - 1n]
    : [undefined, undefined];
  if (low !== undefined && (value < low || value > high!)) {
    throw new WgslExpressionError(`${node.literal} is not a ${type} (WGSL refuses it there)`);
  }
}
