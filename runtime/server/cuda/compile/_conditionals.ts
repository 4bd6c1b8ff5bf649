/**
 * The conditional groups of CUDA C (`#if`/`#ifdef`/`#ifndef`, `#elif`, `#else`, `#endif`) as far
 * as the runtime can decide them with certainty: a condition is evaluated only when every macro it
 * names is known, defined by a `-D` option (or undefined by `-U`), by a `#define` (or `#undef`) of
 * the source on a line that is surely compiled, or `__CUDA_ARCH__` when the PTX's `.target` is
 * given (`sm_80`: 800, what NVRTC defines for the architecture it compiled). Any other name
 * (NVRTC's own macros, those of an `#include`d header) leaves the condition unknown: such a group
 * keeps every branch it may take, for the PTX to decide (`_source_variants.ts`).
 *
 * @module
 */

/** One conditional group: its branches' first lines and which of them may be compiled. */
export interface Group {
  /** The `#if` line. */
  readonly line: number;
  /** The `#endif` line. */
  end: number;
  /** The branches that may be compiled (their indices; `-1`: the empty `#else` it lacks). */
  readonly possible: number[];
}

/** The source's lines and, per line, where it lies: `[group, branch]` pairs, outermost first. */
export interface Conditionals {
  readonly lines: readonly string[];
  /** Per line: a conditional directive (`#if`...`#endif`, to blank in a variant). */
  readonly directive: readonly boolean[];
  /** Per line: the enclosing groups and branches. */
  readonly path: readonly (readonly (readonly [number, number])[])[];
  readonly groups: readonly Group[];
}

/** What a macro is known to be: its body, or `null` when surely undefined; absent: unknown. */
type Macros = Map<string, string | null>;

const DIRECTIVE = /^[ \t]*#[ \t]*(if|ifdef|ifndef|elif|else|endif|define|undef)\b(.*)$/;

/**
 * The conditional groups of `text` (comments removed, literals emptied), given the compile
 * `options` (`-DNAME[=value]`, `-UNAME`) and the PTX `.target` architecture (`sm_80`), if known.
 */
export function conditionals(
  text: string,
  options: readonly string[],
  target?: string,
): Conditionals {
  const macros: Macros = new Map();
  const arch = /^sm_(\d+)/.exec(target ?? "")?.[1];
  if (arch !== undefined) macros.set("__CUDA_ARCH__", `${Number(arch) * 10}`);
  for (const option of options) {
    const d = /^(?:-D|--define-macro=)\s*([A-Za-z_]\w*)(?:=(.*))?$/s.exec(option);
    const u = /^(?:-U|--undefine-macro=)\s*([A-Za-z_]\w*)$/.exec(option);
    if (d !== null) macros.set(d[1], d[2] ?? "1");
    else if (u !== null) macros.set(u[1], null);
  }
  // a directive continued with `\` is one line: its continuations are blanked with it
  const raw = text.split("\n"), lines: string[] = [], directive: boolean[] = [];
  const path: (readonly [number, number])[][] = [], groups: Group[] = [];
  // per open group: its index, the current branch, whether it surely compiles, whether an
  // earlier one surely did, whether every earlier one surely did not, and whether it has `#else`
  const stack: {
    g: number;
    branch: number;
    certain: boolean;
    taken: boolean;
    none: boolean;
    other: boolean;
  }[] = [];
  // whether the current line surely compiles, or may (per open group)
  const live = () => stack.every((s) => groups[s.g].possible.includes(s.branch));
  const sure = () => stack.every((s) => s.certain);
  const here = () => stack.map((s) => [s.g, s.branch] as const);
  for (let i = 0; i < raw.length; i++) {
    let line = raw[i];
    const m = DIRECTIVE.exec(line);
    let extra = 0;
    if (m !== null) {
      while (line.endsWith("\\") && i + extra + 1 < raw.length) {
        extra++;
        line = line.slice(0, -1) + " " + raw[i + extra];
      }
    }
    const d = m === null ? null : DIRECTIVE.exec(line)!;
    const kind = d?.[1], rest = d?.[2] ?? "";
    const start = (value: number | undefined, s: (typeof stack)[number]) => {
      // a branch may be compiled unless its condition is surely false or an earlier one's true;
      // it surely is when its condition is surely true and every earlier one's surely false
      if (value !== 0 && !s.taken) groups[s.g].possible.push(s.branch);
      s.certain = value === 1 && s.none;
      s.taken ||= value === 1;
      s.none &&= value === 0;
    };
    if (kind === "if" || kind === "ifdef" || kind === "ifndef") {
      const value = !live()
        ? 0
        : kind === "if"
        ? evaluate(rest, macros)
        : defined(rest.trim(), macros, kind === "ifndef");
      groups.push({ line: lines.length, end: -1, possible: [] });
      directive.push(true), path.push(here()), lines.push(line);
      const s = {
        g: groups.length - 1,
        branch: 0,
        certain: false,
        taken: false,
        none: true,
        other: false,
      };
      stack.push(s);
      start(value, s);
    } else if ((kind === "elif" || kind === "else") && stack.length > 0) {
      const s = stack[stack.length - 1];
      s.branch++;
      s.other ||= kind === "else";
      directive.push(true), path.push(here().slice(0, -1)), lines.push(line);
      stack.pop();
      const outer = live();
      stack.push(s);
      start(!outer ? 0 : kind === "else" ? 1 : evaluate(rest, macros), s);
    } else if (kind === "endif" && stack.length > 0) {
      const s = stack.pop()!;
      if (!s.other && !s.taken && live()) groups[s.g].possible.push(-1);
      groups[s.g].end = lines.length;
      directive.push(true), path.push(here()), lines.push(line);
    } else {
      if (kind === "define" || kind === "undef") {
        const name = /^\s*([A-Za-z_]\w*)(\(?)\s*(.*)$/s.exec(rest);
        if (name !== null && live()) {
          if (!sure() || name[2] === "(") macros.delete(name[1]);
          else macros.set(name[1], kind === "undef" ? null : name[3].trim());
        }
      }
      directive.push(false), path.push(here()), lines.push(line);
    }
    for (let k = 0; k < extra; k++) directive.push(m !== null), path.push(here()), lines.push("");
    i += extra;
  }
  return { lines, directive, path, groups };
}

/** `#ifdef NAME` (`#ifndef` when `negate`): 1, 0, or `undefined` when unknown. */
function defined(name: string, macros: Macros, negate: boolean): number | undefined {
  if (!/^[A-Za-z_]\w*$/.test(name) || !macros.has(name)) return undefined;
  return (macros.get(name) !== null) !== negate ? 1 : 0;
}

const TOKEN = /\s*(?:(\d[\w.']*)|([A-Za-z_]\w*)|(&&|\|\||<<|>>|<=|>=|==|!=|[-+*/%<>&|^!~?:(),]))/y;

/** `#if`'s expression: its value, or `undefined` when some part of it is unknown. */
export function evaluate(expression: string, macros: Macros): number | undefined {
  const tokens = expand(tokenize(expression), macros, 0);
  if (tokens === undefined) return undefined;
  let at = 0;
  const peek = () => tokens[at], next = () => tokens[at++];
  // the binary operators by precedence, loosest first
  const BINARY = [
    ["||"],
    ["&&"],
    ["|"],
    ["^"],
    ["&"],
    ["==", "!="],
    ["<", ">", "<=", ">="],
    [
      "<<",
      ">>",
    ],
    ["+", "-"],
    ["*", "/", "%"],
  ];
  const apply = (op: string, a: number, b: number): number | undefined => {
    const values: Record<string, () => number | undefined> = {
      "||": () => (a || b ? 1 : 0),
      "&&": () => (a && b ? 1 : 0),
      "|": () => a | b,
      "^": () => a ^ b,
      "&": () => a & b,
      "==": () => (a === b ? 1 : 0),
      "!=": () => (a !== b ? 1 : 0),
      "<": () => (a < b ? 1 : 0),
      ">": () => (a > b ? 1 : 0),
      "<=": () => (a <= b ? 1 : 0),
      ">=": () => (a >= b ? 1 : 0),
      "<<": () => a * 2 ** b,
      ">>": () => Math.floor(a / 2 ** b),
      "+": () => a + b,
      "-": () => a - b,
      "*": () => a * b,
      "/": () => (b === 0 ? undefined : Math.trunc(a / b)),
      "%": () => (b === 0 ? undefined : a % b),
    };
    return values[op]();
  };
  // `null`: a syntax the evaluator does not read (the whole condition is then unknown)
  const unary = (): number | undefined | null => {
    const t = next();
    if (t === undefined) return null;
    if (t === "(") {
      const v = ternary();
      return next() === ")" ? v : null;
    }
    if (t === "!" || t === "-" || t === "+" || t === "~") {
      const v = unary();
      if (v === null || v === undefined) return v;
      return t === "!" ? (v ? 0 : 1) : t === "-" ? -v : t === "~" ? ~v : v;
    }
    if (/^\d/.test(t)) return literal(t);
    return /^[A-Za-z_]/.test(t) ? undefined : null; // an unknown name, or a syntax not read
  };
  const binary = (level: number): number | undefined | null => {
    if (level === BINARY.length) return unary();
    let left = binary(level + 1);
    while (left !== null && BINARY[level].includes(peek() ?? "")) {
      const op = next(), right = binary(level + 1);
      if (right === null) return null;
      // `0 && x` and `1 || x` are known whatever x is
      if (op === "&&" && (left === 0 || right === 0)) left = 0;
      else if (op === "||" && ((left !== undefined && left !== 0) || (right ?? 0) !== 0)) left = 1;
      else left = left === undefined || right === undefined ? undefined : apply(op, left, right);
    }
    return left;
  };
  const ternary = (): number | undefined | null => {
    const cond = binary(0);
    if (cond === null || peek() !== "?") return cond;
    next();
    const a = ternary();
    if (next() !== ":") return null;
    const b = ternary();
    if (a === null || b === null) return null;
    return cond === undefined ? (a === b ? a : undefined) : cond ? a : b;
  };
  const value = ternary();
  return value === null || value === undefined || at !== tokens.length
    ? undefined
    : value === 0
    ? 0
    : 1;
}

function tokenize(text: string): string[] | undefined {
  const tokens: string[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < text.length) {
    if (/^\s*$/.test(text.slice(TOKEN.lastIndex))) break;
    const m = TOKEN.exec(text);
    if (m === null) return undefined;
    tokens.push(m[1] ?? m[2] ?? m[3]);
  }
  return tokens;
}

/**
 * The tokens with `defined X` evaluated and known macros written out; unknown names stay (the
 * evaluator reads them as unknown values); `undefined` for what it cannot expand.
 */
function expand(
  tokens: string[] | undefined,
  macros: Macros,
  depth: number,
): string[] | undefined {
  if (tokens === undefined || depth > 16) return undefined;
  const out: string[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t === "defined") {
      const paren = tokens[i + 1] === "(";
      const name = tokens[i + (paren ? 2 : 1)];
      if (name === undefined || (paren && tokens[i + 3] !== ")")) return undefined;
      const value = defined(name, macros, false);
      out.push(value === undefined ? "__unknown__" : `${value}`);
      i += paren ? 3 : 1;
    } else if (t === "true" || t === "false") out.push(t === "true" ? "1" : "0");
    else if (/^[A-Za-z_]/.test(t) && macros.has(t)) {
      const body = macros.get(t);
      // a name surely undefined is 0; a function-like use of a macro is not read
      if (body === null) out.push("0");
      else if (tokens[i + 1] === "(") return undefined;
      else {
        const inner = expand(
          tokenize(body!),
          new Map([...macros].filter(([k]) => k !== t)),
          depth + 1,
        );
        if (inner === undefined || inner.length === 0) return undefined;
        out.push("(", ...inner, ")");
      }
    } else out.push(t);
  }
  return out;
}

/** An integer literal's value (`0x10`, `010`, `1u`, `100L`); `undefined` for a float. */
function literal(text: string): number | undefined {
  const digits = text.replace(/'/g, "").replace(/[uUlL]+$/, "");
  if (/^0[xX][\da-fA-F]+$/.test(digits)) return parseInt(digits.slice(2), 16);
  if (/^0[bB][01]+$/.test(digits)) return parseInt(digits.slice(2), 2);
  if (/^0[0-7]*$/.test(digits)) return parseInt(digits, 8);
  return /^\d+$/.test(digits) ? Number(digits) : undefined;
}
