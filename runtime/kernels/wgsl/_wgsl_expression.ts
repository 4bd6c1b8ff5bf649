/**
 * A WGSL scalar expression (the helpers' `expression`, `map`, `combine`, ...) as CUDA C++ with
 * WGSL's meaning. The syntax is shared, but some operators differ where C leaves a result
 * undefined or rounds otherwise, so they become calls of the prelude's functions
 * ({@linkcode WGSL_OPERATORS}):
 *
 * - `/` and `%`: an integer divided by zero is the dividend and its remainder 0; the most
 *   negative i32 divided by -1 is itself and its remainder 0 (WGSL); C's are undefined (NVRTC
 *   may drop the whole store). A float `%` is WGSL's `x - y * trunc(x / y)`, each step
 *   rounded (no FMA), as WebGPU's: C's exact `fmodf` differed (`1e10 % 3`: 1, not 0).
 * - Constant sub-expressions are evaluated as naga evaluates them (`_wgsl_const.ts`): abstract
 *   floats in f64, abstract ints in 64 bits (`65536 * 65536` is 2^32; C's int wraps), typed ones
 *   with naga's refusals (`1i << 31u`), written as one exact literal (an f32 as a hex float).
 * - `<<` and `>>`: the shift amount is taken modulo 32 (WGSL); PTX's shifts clamp it (a shift by
 *   33 gives 0, not a shift by 1).
 * - `round`: to the nearest even on a tie (WGSL, `rint`); C's `round` rounds ties away from zero.
 * - i32 `+`, `-` and `*` wrap around: C's signed overflow is undefined (NVRTC folds `a + 1 > a`
 *   to true).
 * - `i32(x)` and `u32(x)` of a float clamp to the type's range as WGSL does (its largest f32
 *   below 2^31 or 2^32: `i32(3e9)` is 2147483520), NaN to 0; C's conversion is undefined there.
 * - Float literals beside run-time values are f32 (`0.5` is `0x800000p-24f`): in C a `double`,
 *   which computes in double precision and makes `pow(x, 2.0)` or `clamp(x, 0.0, 1.0)` ambiguous.
 * - Integer literals in a call take the type of its other arguments, as WGSL's abstract ints
 *   do (`max(v, 0)` of an f32 `v` is `max(v, 0.0f)`; C finds `max(float, int)` ambiguous), and
 *   are f32 in the float-only built-ins (`exp(0)`); identifiers' types come from the caller.
 *
 * The prelude also defines the WGSL scalar built-ins CUDA lacks (`fract`, `sign`, `saturate`,
 * `step`, `smoothstep`, `mix`, `inverseSqrt`, `degrees`, `radians`, and the bit built-ins
 * `countOneBits`, `reverseBits`, `countLeadingZeros`, `countTrailingZeros`, `firstLeadingBit`,
 * `firstTrailingBit`, `extractBits`, `insertBits`), the scalar forms of `length` and `distance`,
 * and `all` and `any` of a bool (which CUDA would otherwise resolve to its warp votes: `any(x)`
 * was true where any thread of the warp had `x` true).
 *
 * An expression this parser does not read is left to the compiler as written (its literal
 * suffixes made C's), which reports what it refuses.
 *
 * @module
 */

import {
  C_ONLY,
  callRefusal,
  checkLiteralFits,
  common,
  CONCRETE,
  concrete,
  FLOAT_CALLS,
  type Node,
  NUMERIC,
  POLYMORPHIC,
  refusal,
  type Type,
  WgslExpressionError,
} from "./_wgsl_expression_checks.ts";

import { constNode, foldBinary, foldUnary, literalConst, UNREPRESENTABLE } from "./_wgsl_const.ts";
import { foldCall } from "./_wgsl_const_calls.ts";

export { WgslExpressionError } from "./_wgsl_expression_checks.ts";
export { WGSL_OPERATORS } from "./_wgsl_prelude.ts";

type Token = { kind: "num" | "id" | "op"; text: string };

const TOKEN =
  /\s*(?:(0[xX](?:[\da-fA-F]*\.[\da-fA-F]+|[\da-fA-F]+\.[\da-fA-F]*)(?:[pP][+-]?\d+[fh]?)?|0[xX][\da-fA-F]+[pP][+-]?\d+[fh]?|0[xX][0-9a-fA-F]+[iu]?|(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?[fiuh]?)|([A-Za-z_]\w*)|(<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%<>!~&|^()[\],.]))/y;

function tokenize(text: string): Token[] | undefined {
  const tokens: Token[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < text.length) {
    if (/^\s*$/.test(text.slice(TOKEN.lastIndex))) break;
    const m = TOKEN.exec(text);
    if (m === null) return undefined;
    tokens.push(
      m[1] !== undefined
        ? { kind: "num", text: m[1] }
        : m[2] !== undefined
        ? { kind: "id", text: m[2] }
        : { kind: "op", text: m[3] },
    );
  }
  return tokens;
}

/** Binary operators by precedence (higher binds tighter), as C's (WGSL's are a subset). */
const BINARY: Readonly<Record<string, number>> = {
  "||": 1,
  "&&": 2,
  "|": 3,
  "^": 4,
  "&": 5,
  "==": 6,
  "!=": 6,
  "<": 7,
  ">": 7,
  "<=": 7,
  ">=": 7,
  "<<": 8,
  ">>": 8,
  "+": 9,
  "-": 9,
  "*": 10,
  "/": 10,
  "%": 10,
};

const CALLS: Readonly<Record<string, string>> = {
  "/": "wgsl_div",
  "%": "wgsl_rem",
  "<<": "wgsl_shl",
  ">>": "wgsl_shr",
};

/** Calls whose C differs: `round` ties to even, `i32(x)`/`u32(x)` of a float clamp as WGSL's. */
const RENAMED: Readonly<Record<string, string>> = {
  round: "wgsl_round",
  i32: "wgsl_i32",
  u32: "wgsl_u32",
};

class Parser {
  #at = 0;
  constructor(readonly tokens: Token[], readonly types: ReadonlyMap<string, Type>) {}

  #peek(offset = 0): Token | undefined {
    return this.tokens[this.#at + offset];
  }

  #take(op?: string): Token {
    const token = this.tokens[this.#at];
    if (token === undefined || (op !== undefined && token.text !== op)) {
      throw new SyntaxError(`expected ${op ?? "a token"}`);
    }
    this.#at++;
    return token;
  }

  done(): boolean {
    return this.#at === this.tokens.length;
  }

  /** The token the parse stopped at. */
  next(): Token | undefined {
    return this.#peek();
  }

  expression(min = 1): Node {
    let left = this.#unary();
    for (;;) {
      const token = this.#peek();
      const precedence = token?.kind === "op" ? BINARY[token.text] : undefined;
      if (precedence === undefined || precedence < min) return left;
      this.#at++;
      const right = this.expression(precedence + 1);
      const op = token!.text;
      const shift = op === "<<" || op === ">>";
      if (!shift) checkLiteralFits(left, right.type); // an abstract int shifted stays one
      checkLiteralFits(right, shift ? "u32" : left.type);
      const refused = refusal(op, left, right);
      if (refused !== undefined) throw new WgslExpressionError(refused);
      // A constant sub-expression is evaluated as WGSL's compiler does (`_wgsl_const.ts`).
      const folded = left.value && right.value && foldBinary(op, left.value, right.value);
      if (folded) {
        left = constNode(folded);
        continue;
      }
      const call = CALLS[op];
      const signed = (n: Node) => n.type === "i32" || n.type === "int";
      // i32 +, -, * wrap (WGSL); C's signed overflow is undefined, and NVRTC folds `a + 1 > a`.
      const wraps = (op === "+" || op === "-" || op === "*") && signed(left) && signed(right) &&
        (left.type === "i32" || right.type === "i32");
      const code = wraps
        ? `((int)((unsigned int)(${left.code}) ${op} (unsigned int)(${right.code})))`
        : call === undefined
        ? `(${left.code} ${op} ${right.code})`
        : `${call}(${left.code}, ${right.code})`;
      const type: Type = precedence <= 7 && op !== "|" && op !== "^" && op !== "&"
        ? "bool"
        : op === "<<" || op === ">>"
        ? left.type
        : common([left, right]);
      left = { code, type };
    }
  }

  #unary(): Node {
    const token = this.#peek();
    if (token?.kind === "op" && ["-", "!", "~"].includes(token.text)) {
      this.#at++;
      const inner = this.#unary();
      if (token.text === "!" && NUMERIC.includes(inner.type)) {
        throw new WgslExpressionError(`!${inner.type}: ! takes a bool (compare: x == 0)`);
      }
      if (token.text === "-" && inner.type === "u32") {
        throw new WgslExpressionError("-u32: a u32 has no negation (i32(...) first)");
      }
      if (token.text === "~" && (inner.type === "f32" || inner.type === "bool")) {
        throw new WgslExpressionError(`~${inner.type}: ~ takes an integer`);
      }
      const folded = inner.value && foldUnary(token.text, inner.value);
      if (folded) return constNode(folded);
      const code = `(${token.text}${inner.code})`;
      return { code, type: token.text === "!" ? "bool" : inner.type };
    }
    return this.#postfix(this.#primary());
  }

  #postfix(base: Node): Node {
    for (;;) {
      const token = this.#peek();
      if (token?.text === "[") {
        this.#at++;
        const index = this.expression();
        this.#take("]");
        base = { code: `${base.code}[${index.code}]`, type: base.type };
      } else if (token?.text === "." && this.#peek(1)?.kind === "id") {
        this.#at++;
        base = { code: `${base.code}.${this.#take().text}`, type: "?" };
      } else return base;
    }
  }

  #arguments(): Node[] {
    this.#take("(");
    const list: Node[] = [];
    while (this.#peek()?.text !== ")") {
      list.push(this.expression());
      if (this.#peek()?.text === ",") this.#at++;
      else break;
    }
    this.#take(")");
    return list;
  }

  #primary(): Node {
    const token = this.#take();
    if (token.kind === "num") return constNode(literalConst(token.text));
    if (token.text === "(") {
      if (
        this.#peek()?.kind === "id" && this.#peek(1)?.text === ")" && this.#peek(2) !== undefined
      ) {
        const after = this.#peek(2)!;
        if (after.kind !== "op" || after.text === "(") {
          throw new WgslExpressionError(
            `(${this.#peek()!.text}) ${after.text}: WGSL has no C cast (write ${
              this.#peek()!.text
            }(...))`,
          );
        }
      }
      const inner = this.expression();
      this.#take(")");
      return { ...inner, code: `(${inner.code})` };
    }
    if (token.kind !== "id") throw new SyntaxError(`unexpected ${token.text}`);
    if (C_ONLY.has(token.text) || token.text.startsWith("__")) {
      throw new WgslExpressionError(`${token.text} is CUDA's, not WGSL's`);
    }
    // A template call: bitcast<u32>(x).
    if (
      this.#peek()?.text === "<" && this.#peek(1)?.kind === "id" && this.#peek(2)?.text === ">" &&
      this.#peek(3)?.text === "("
    ) {
      const type = this.tokens[this.#at + 1].text;
      this.#at += 3;
      const args = this.#arguments().map((a) => a.code).join(", ");
      return {
        code: `${token.text}<${type}>(${args})`,
        type: CONCRETE.find((t) => t === type) ?? "?",
      };
    }
    if (this.#peek()?.text === "(") {
      const name = RENAMED[token.text] ?? token.text;
      const args = this.#arguments();
      const cast = CONCRETE.find((t) => t === token.text);
      callRefusal(token.text, args);
      const values = args.every((a) => a.value) ? args.map((a) => a.value!) : undefined;
      const folded = values && foldCall(token.text, values);
      if (folded) return constNode(folded);
      // Integer literals take the type of the other arguments, as WGSL's abstract ints do; of
      // a call not folded (`select(1 << 40, 0, a && b)`: naga folds no && ||), i32's.
      const shared = common(token.text === "select" ? args.slice(0, 2) : args);
      const type = cast ??
        (FLOAT_CALLS.has(token.text)
          ? "f32"
          : POLYMORPHIC.has(token.text)
          ? (shared === "int" ? "i32" : shared)
          : "?");
      const typed = cast === undefined ? args.map((a) => concrete(a, type)) : args;
      return { code: `${name}(${typed.map((a) => a.code).join(", ")})`, type };
    }
    if (token.text === "true" || token.text === "false") {
      return constNode({ kind: "bool", value: token.text === "true" });
    }
    return { code: token.text, type: this.types.get(token.text) ?? "?" };
  }
}

/**
 * The CUDA C++ of a WGSL scalar expression (module doc), whose identifiers have the element
 * types of `types` (inputs, params, `i`), a constant one converted to `output` where given (the
 * caller converts another); `undefined` for one this parser does not read.
 */
export function translateWgslExpression(
  wgsl: string,
  types: Readonly<Record<string, "f32" | "i32" | "u32">> = {},
  output?: "f32" | "i32" | "u32",
): string | undefined {
  if (/\?/.test(wgsl)) {
    throw new WgslExpressionError("WGSL has no ?: (write select(ifFalse, ifTrue, condition))");
  }
  const tokens = tokenize(wgsl);
  if (tokens === undefined || tokens.length === 0) return undefined;
  try {
    const parser = new Parser(tokens, new Map(Object.entries(types)));
    let result = parser.expression();
    if (!parser.done() && parser.next()?.text === ",") {
      throw new WgslExpressionError("a comma outside a call: WGSL has no comma operator");
    }
    // A constant result is converted to the `output` type as WGSL's `output(...)` of it is
    // (`i32(3e9)` of an abstract float saturates to 2147483647; `u32(-1)` is refused).
    const converted = output && result.value && foldCall(output, [result.value]);
    if (converted) result = constNode(converted);
    if (result.code.includes(UNREPRESENTABLE)) {
      throw new WgslExpressionError(
        "an abstract float constant out of f32's range (refused by WGSL)",
      );
    }
    return parser.done() ? result.code : undefined;
  } catch (error) {
    if (error instanceof SyntaxError) return undefined;
    throw error;
  }
}
