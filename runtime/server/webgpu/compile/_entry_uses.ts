/**
 * Which module-scope names an entry point uses: its own text (attributes, `@workgroup_size`,
 * parameters, body), then every module-scope declaration a name in it refers to, transitively
 * (functions it calls, variables and their types, structs, aliases, `const` and `override`
 * initializers). WebGPU needs a value only for the `override`s an entry point uses this way;
 * `wgsl_reflect`'s own list misses those reached through a called function, another override's
 * initializer or an array size, so the runtime walks the text itself.
 *
 * The walk over-approximates (a local name that shadows a module-scope one counts as a use), so
 * at worst an override is asked for that WebGPU would not need: never the reverse.
 *
 * @module
 */

/** A module-scope declaration: its name and the text it spans (attributes included). */
interface Item {
  readonly name: string;
  readonly text: string;
}

const DECLARATION =
  /\b(?:fn|struct|alias|const|override)\s+([A-Za-z_]\w*)|\bvar\s*(?:<[^>]*>)?\s*([A-Za-z_]\w*)/;

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
    for (const m of item.text.matchAll(/[A-Za-z_]\w*/g)) {
      const name = m[0];
      if (used.has(name)) continue;
      const next = items.get(name);
      if (next === undefined) continue;
      used.add(name);
      queue.push(next);
    }
  }
  return used;
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
