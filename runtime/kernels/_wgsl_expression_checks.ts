/**
 * What WGSL refuses in a helper's scalar expression that C++ would compile: the checks the CUDA
 * translation (`_wgsl_expression.ts`) makes so that an expression the WebGPU backend's compiler
 * refuses is refused on CUDA too, not run with C's meaning. Also the parser's vocabulary of
 * types and built-ins.
 *
 * @module
 */

/** The type of a parsed expression: concrete, an abstract int literal, a bool, or unknown. */
export type Type = "f32" | "i32" | "u32" | "int" | "bool" | "?";

/** A parsed expression: its CUDA C++, its type, and for an abstract int literal its text. */
export interface Node {
  readonly code: string;
  readonly type: Type;
  readonly literal?: string;
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

/** CUDA's names that WGSL lacks: C's float math (`sqrtf`), its casts, the thread indices. */
export const C_ONLY: ReadonlySet<string> = new Set([
  ..."exp exp2 log log2 sqrt sin cos tan asin acos atan atan2 sinh cosh tanh pow floor ceil round trunc"
    .split(" ").map((name) => `${name}f`),
  ..."fabs fabsf fmin fminf fmax fmaxf fmod fmodf rsqrt rsqrtf rint rintf erf erff cbrt cbrtf hypot"
    .split(" "),
  ..."hypotf isnan isinf isfinite signbit copysign copysignf static_cast reinterpret_cast".split(
    " ",
  ),
  ..."printf threadIdx blockIdx blockDim gridDim warpSize".split(" "),
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
    // (`x << 33u`); only an amount known at run time is taken modulo 32 (as wgsl_shl does). An
    // abstract int is 64 bits wide in WGSL (`1 << 40` is 2^40), which C's int is not: refused.
    const amount = /^(?:\(int\))?(0[xX][0-9a-fA-F]+|\d+)[uU]?$/.exec(right.literal ?? right.code);
    if (amount === null || Number(amount[1]) < 32) return undefined;
    return left.type === "int"
      ? `${pair}: an abstract int shifted by ${amount[1]} is not translated (write its value)`
      : `${pair}: a shift by the constant ${amount[1]} (32 or more) is refused by WGSL`;
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

/** A WGSL literal as C's: `2i` is `2`, a float literal an f32 (`0.5f`, `1f` is `1.0f`). */
export function literal(text: string): string {
  if (/^0[xX]/.test(text)) return text.endsWith("i") ? `(int)${text.slice(0, -1)}` : text;
  if (text.endsWith("i")) return text.slice(0, -1);
  if (text.endsWith("u")) return text;
  const body = text.endsWith("f") || text.endsWith("h") ? text.slice(0, -1) : text;
  const float = text.endsWith("f") || /[.eE]/.test(body);
  if (!float) return body;
  return /[.eE]/.test(body) ? `${body}f` : `${body}.0f`;
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

const I64 = [-(2n ** 63n), 2n ** 63n - 1n] as const;

/**
 * `left op right` of two abstract int literals, folded as WGSL does (64 bits wide: `65536 *
 * 65536` is 2^32, `1 << 40` is 2^40), where C's `int` would overflow; its overflow, a division by
 * zero or a shift past 63 is WGSL's shader-creation error. `undefined` for another operator or
 * operand.
 */
export function foldAbstract(op: string, left: Node, right: Node): Node | undefined {
  if (left.literal === undefined || right.literal === undefined) return undefined;
  if (left.type !== "int" || right.type !== "int") return undefined;
  const [a, b] = [BigInt(left.literal), BigInt(right.literal)];
  const fail = (why: string) => {
    throw new WgslExpressionError(`${left.literal} ${op} ${right.literal}: ${why}`);
  };
  if ((op === "/" || op === "%") && b === 0n) fail("a division by zero (refused by WGSL)");
  if ((op === "<<" || op === ">>") && (b < 0n || b > 63n)) fail("a shift past 63 bits");
  const value = op === "+"
    ? a + b
    : op === "-"
    ? a - b
    : op === "*"
    ? a * b
    : op === "/"
    ? a / b
    : op === "%"
    ? a % b
    : op === "<<"
    ? a << b
    : op === ">>"
    ? a >> b
    : op === "&"
    ? a & b
    : op === "|"
    ? a | b
    : op === "^"
    ? a ^ b
    : undefined;
  if (value === undefined) return undefined;
  if (value < I64[0] || value > I64[1]) fail("overflows WGSL's 64-bit abstract int");
  return { code: intCode(value), type: "int", literal: String(value) };
}

/** C of an integer: an int where it fits, else a long long (`4294967296LL`). */
function intCode(value: bigint): string {
  const text = value >= -(2n ** 31n) && value < 2n ** 31n ? String(value) : `${value}LL`;
  return value < 0n ? `(${text})` : text;
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
