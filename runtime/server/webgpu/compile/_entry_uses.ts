/**
 * Which module-scope names an entry point uses: its own text (attributes, `@workgroup_size`,
 * parameters, body), then every module-scope declaration a name in it refers to, transitively
 * (functions it calls, variables and their types, structs, aliases, `const` and `override`
 * initializers). WebGPU needs a value only for the `override`s an entry point uses this way;
 * `wgsl_reflect`'s own list misses those reached through a called function, another override's
 * initializer or an array size, so the runtime walks the text itself.
 *
 * Inside a function, a parameter or local (`let`, `var`, `const`, a `for` header's) shadows a
 * module-scope name of the same spelling from the end of its declaration to the end of its block,
 * as WGSL scopes it: a shadowed name, a member (`a.name`) and a name being declared (`name:`) are
 * no uses. `wgsl_reflect` counts a shadowed name as a use, so a binding only another entry point
 * uses was demanded (webgpu-samples style multi-entry modules with a local `let output = ...`).
 * What the walk cannot tell apart (a local declared in a way it does not read) still counts as a
 * use: at worst something is asked for that WebGPU would not need, never the reverse.
 *
 * @module
 */

/** A module-scope declaration: its name and the text it spans (attributes included). */
interface Item {
  readonly name: string;
  readonly text: string;
}

const IDENT = String.raw`[\p{XID_Start}_]\p{XID_Continue}*`;
const DECLARATION = new RegExp(
  String.raw`(?<![\p{XID_Continue}])(?:fn|struct|alias|const|override)\s+(${IDENT})|` +
    String.raw`(?<![\p{XID_Continue}])var\s*(?:<[^>]*>)?\s*(${IDENT})`,
  "u",
);
const TOKEN = new RegExp(String.raw`${IDENT}|::|[{}();:.<>]`, "gu");
const DECLARES = new Set(["let", "var", "const"]);

/**
 * The module-scope names `entryPoint` uses (see the module doc), read from `masked` (the source
 * with comments blanked). `undefined` when the entry point's declaration cannot be found.
 */
export function namesUsedBy(masked: string, entryPoint: string): Set<string> | undefined {
  const items = new Map<string, Item>();
  for (const item of moduleItems(masked)) items.set(item.name, item);
  const entry = items.get(entryPoint);
  if (entry === undefined) return undefined;
  const used = new Set<string>([entryPoint]);
  const queue = [entry];
  for (let item = queue.pop(); item !== undefined; item = queue.pop()) {
    for (const name of references(item.text)) {
      if (used.has(name)) continue;
      const next = items.get(name);
      if (next === undefined) continue;
      used.add(name);
      queue.push(next);
    }
  }
  return used;
}

/** The names of every module-scope declaration of `masked` (the source with comments blanked). */
export function declaredNames(masked: string): Set<string> {
  return new Set(moduleItems(masked).map((item) => item.name));
}

/**
 * The names a declaration's text refers to that may be module-scope ones: not members, not names
 * being declared, not a function's parameters or locals where they are in scope.
 */
function references(source: string): string[] {
  const text = blankEnumerants(source);
  const matches = [...text.matchAll(TOKEN)];
  const tokens = matches.map((m) => m[0]);
  // Read from the text itself: `2.0 + dt` has a "." token (the literal's) before `dt`.
  const before = (i: number) => {
    let k = matches[i].index! - 1;
    while (k >= 0 && /\s/.test(text[k])) k--;
    return text[k];
  };
  const after = (i: number) => {
    let k = matches[i].index! + tokens[i].length;
    while (k < text.length && /\s/.test(text[k])) k++;
    return text.slice(k, k + 2);
  };
  const out: string[] = [];
  const scopes: Set<string>[] = [];
  const forScopes: number[] = []; // scope counts with a `for` header's scope on top
  const params = new Set<string>();
  const pending: string[] = []; // declared; in scope from the end of the declaration
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t === "{") {
      scopes.push(scopes.length === 0 ? params : new Set());
    } else if (t === "}") {
      scopes.pop();
      if (forScopes.at(-1) === scopes.length) {
        forScopes.pop();
        scopes.pop();
      }
    } else if (t === ";") {
      for (const name of pending.splice(0)) scopes.at(-1)?.add(name);
    } else if (t === "for" && scopes.length > 0) {
      scopes.push(new Set());
      forScopes.push(scopes.length);
    } else if (DECLARES.has(t) && scopes.length > 0) {
      let j = i + 1;
      if (tokens[j] === "<") { while (j < tokens.length && tokens[j] !== ">") j++; }
      if (tokens[j] === ">") j++;
      if (j < tokens.length && /^[\p{XID_Start}_]/u.test(tokens[j])) pending.push(tokens[j]);
      i = j;
    } else if (/^[\p{XID_Start}_]/u.test(t)) {
      if (before(i) === ".") continue; // a member or swizzle
      if (after(i).startsWith(":") && !after(i).startsWith("::")) {
        if (scopes.length === 0) params.add(t); // a parameter (or field) being declared
        continue;
      }
      if (scopes.some((scope) => scope.has(t))) continue; // a parameter or local
      out.push(t);
    }
  }
  return out;
}

/**
 * `text` with the words that name no declaration blanked (same length): the arguments of
 * attributes other than `@workgroup_size` (`@builtin(position)`, `@diagnostic(off, ...)`), and
 * the address spaces, access modes and texel formats in `var<...>`, `ptr<...>` and
 * `texture_storage_*<...>`, so a binding that happens to be called `position`, `off` or
 * `read_write` is not taken for used.
 */
function blankEnumerants(text: string): string {
  const blank = (s: string) => s.replace(/[^\n]/g, " ");
  let out = text.replace(
    /@\s*(?!workgroup_size\b)[\p{XID_Start}_]\p{XID_Continue}*\s*\(([^()]*(?:\([^()]*\)[^()]*)*)\)/gu,
    (m, args: string) => m.slice(0, m.length - args.length - 1) + blank(args) + ")",
  );
  out = out.replace(
    /\b(var|ptr|texture_storage_\w+)(\s*<)([^<>;{}]*(?:<[^<>;{}]*(?:<[^<>;{}]*>[^<>;{}]*)*>[^<>;{}]*)*)>/g,
    (_m, head: string, open: string, args: string) => {
      const parts = args.split(",");
      const last = parts.length - 1;
      const enumerant = (i: number) =>
        head !== "ptr" || i === 0 ||
        (i === last && i > 1 && /^\s*(read|write|read_write)\s*$/.test(parts[i]));
      return head + open + parts.map((p, i) => enumerant(i) ? blank(p) : p).join(",") + ">";
    },
  );
  return out;
}

/** The module-scope declarations: each ends at a `;` or a closing `}` at depth 0. */
function moduleItems(masked: string): Item[] {
  const items: Item[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < masked.length; i++) {
    const c = masked[i];
    if (c === "{" || c === "(") depth++;
    else if (c === ")") depth--;
    else if (c === "}") {
      depth--;
      if (depth === 0) {
        push(items, masked.slice(start, i + 1));
        start = i + 1;
      }
    } else if (c === ";" && depth === 0) {
      push(items, masked.slice(start, i + 1));
      start = i + 1;
    }
  }
  return items;
}

function push(items: Item[], text: string): void {
  const m = DECLARATION.exec(text);
  if (m !== null) items.push({ name: m[1] ?? m[2], text });
}
