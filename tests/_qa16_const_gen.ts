/**
 * A seeded generator of constant-heavy WGSL expressions for tests/cuda_qa16_consts_test.ts:
 * trees of abstract and typed literals (`0.1`, `1e-8`, `65536`, `1.5f`, `7i`, `3u`), operators
 * and the built-ins a constant folder evaluates (`min max clamp abs select sign`, the float
 * built-ins, the bit built-ins, the conversions), joined to the input `x` by one run-time
 * operation (llvmpipe may reassociate a chain of them; FMA contraction is left out likewise).
 *
 * @module
 */

/** A small deterministic generator (mulberry32). */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Kind = "float" | "int" | "f32" | "i32" | "u32";

const LEAVES: Readonly<Record<Kind, readonly string[]>> = {
  float: [
    ...["0.1", "0.2", "1.0", "1e-8", "3.0", "2.5", "1e10", "0.3", "1.1", "7.0", "1e-30", "1e30"],
    ...["0.5", "1e-45", "2.9", "3e9", "1.0000000596046447753906251"],
  ],
  int: [
    ...["0", "1", "2", "3", "7", "10", "65536", "2147483647", "4294967295", "1099511627776"],
    ...["4611686018427387904", "9223372036854775807", "9007199791611905"],
  ],
  f32: [
    ...["0.1f", "1.0f", "1.5f", "3f", "1e-8f", "0.3f", "16777217.0f", "1e30f", "2.5f", "3e9f"],
    "1.0000000596046447753906251f",
  ],
  i32: ["0i", "1i", "2i", "5i", "7i", "65536i", "2147483647i", "0x7fffffffi"],
  u32: ["0u", "1u", "3u", "31u", "32u", "0xffffffffu", "65536u", "0x80000000u"],
};

/** An expression generator over `random`. */
export class ConstExpressions {
  constructor(readonly random: () => number) {}

  #pick<T>(list: readonly T[]): T {
    return list[Math.floor(this.random() * list.length)];
  }

  /** A constant of `kind` (or one that converts to it), at most `depth` deep. */
  constant(kind: Kind, depth: number): string {
    const r = this.random();
    if (depth <= 0 || r < 0.25) {
      // Abstract leaves also stand for concrete kinds (they convert), as in `x + 1`.
      if ((kind === "f32" || kind === "float") && this.random() < 0.3) {
        return this.#pick(LEAVES.int);
      }
      if (kind === "f32" && this.random() < 0.4) return this.#pick(LEAVES.float);
      if ((kind === "i32" || kind === "u32") && this.random() < 0.3) {
        return this.#pick(LEAVES.int.slice(0, 7));
      }
      return this.#pick(LEAVES[kind]);
    }
    const d = depth - 1;
    const float = kind === "float" || kind === "f32";
    if (r < 0.6) {
      const ops = float ? ["+", "-", "*", "/"] : ["+", "-", "*", "/", "%", "&", "|", "^"];
      return `(${this.constant(kind, d)} ${this.#pick(ops)} ${this.constant(kind, d)})`;
    }
    if (r < 0.7) {
      if (float) return `(-${this.constant(kind, d)})`;
      return kind === "u32" ? `(~${this.constant(kind, d)})` : `(-${this.constant(kind, d)})`;
    }
    if (r < 0.8 && !float) {
      const amount = this.random() < 0.5
        ? this.#pick(["1u", "5u", "31u", "32u"])
        : this.#pick(["1", "4", "33"]);
      return `(${this.constant(kind, d)} ${this.#pick(["<<", ">>"])} ${amount})`;
    }
    if (r < 0.9) {
      const name = this.#pick(["min", "max", "clamp", "abs", "select"]);
      const a = () => this.constant(kind, d);
      if (name === "abs") return `abs(${a()})`;
      if (name === "clamp") return `clamp(${a()}, ${a()}, ${a()})`;
      if (name === "select") return `select(${a()}, ${a()}, ${this.condition(d)})`;
      return `${name}(${a()}, ${a()})`;
    }
    if (float) {
      const name = this.#pick([
        "sqrt",
        "floor",
        "ceil",
        "round",
        "trunc",
        "fract",
        "sign",
        "saturate",
        "exp",
        "sin",
        "degrees",
        "radians",
        "exp2",
        "log2",
        "inverseSqrt",
        "tanh",
        "atan",
      ]);
      if (this.random() < 0.15) {
        const a = () => this.constant(kind, d);
        return this.random() < 0.5 ? `step(${a()}, ${a()})` : `fma(${a()}, ${a()}, ${a()})`;
      }
      if (kind === "f32" && this.random() < 0.3) {
        return `f32(${this.constant(this.#pick(["i32", "u32"]), d)})`;
      }
      return `${name}(${this.constant(kind, d)})`;
    }
    if (this.random() < 0.5) {
      const name = this.#pick([
        "countOneBits",
        "reverseBits",
        "firstLeadingBit",
        "countLeadingZeros",
      ]);
      return `${name}(${this.constant(kind, d)})`;
    }
    const to = kind === "int" ? this.#pick(["i32", "u32"]) : kind;
    return `${to}(${this.constant(this.#pick(["float", "f32"]), d)})`;
  }

  /** A constant condition: a comparison of constants, its `!`, or two joined by `&&` or `||`. */
  condition(depth: number): string {
    const kind = this.#pick<Kind>(["float", "int", "f32", "i32", "u32"]);
    const compare = () =>
      `(${this.constant(kind, depth)} ${this.#pick(["<", "<=", "==", "!=", ">"])} ${
        this.constant(kind, depth)
      })`;
    const r = this.random();
    if (r < 0.2) return `(!${compare()})`;
    if (r < 0.4) return `(${compare()} ${this.#pick(["&&", "||"])} ${compare()})`;
    return compare();
  }

  /** An f32 expression of `x` with one run-time operation and constants around it. */
  expression(): string {
    const form = this.random();
    if (form < 0.35) {
      const c = this.constant(this.#pick(["float", "float", "f32", "int"]), 3);
      return this.random() < 0.5 ? `x * ${c}` : `${c} + x`;
    }
    if (form < 0.5) {
      // Constants as arguments of a call on x (one run-time operation).
      const c = () => this.constant(this.#pick(["float", "f32", "int"]), 2);
      return this.#pick([
        () => `min(x, ${c()})`,
        () => `max(${c()}, x)`,
        () => `clamp(x, ${c()}, ${c()})`,
        () => `select(${c()}, ${c()}, x > ${c()})`,
        () => `step(${c()}, x)`,
      ])();
    }
    if (form < 0.7) {
      const c = this.constant(this.#pick(["i32", "int"]), 3);
      return `f32(i32(x) ${this.#pick(["+", "-", "*", "&", "|"])} ${c})`;
    }
    const c = this.constant(this.#pick(["u32", "int"]), 3);
    const op = this.#pick(["+", "*", "^", "<<", ">>"]);
    return `f32(u32(x) ${op} ${op === "<<" || op === ">>" ? `(u32(${c}) % 32u)` : c})`;
  }
}
