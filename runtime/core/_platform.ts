/**
 * What the host offers beyond the web platform, looked up on `globalThis` so that the package
 * loads in a browser: no module of the browser path names `Deno` or imports `node:` directly.
 *
 * @module
 */

/** Deno's namespace when the program runs on Deno; `undefined` in browsers. */
export const deno: typeof Deno | undefined = (globalThis as { Deno?: typeof Deno }).Deno;

/**
 * A Node built-in module, synchronously, through `process.getBuiltinModule` (Deno, Node ≥ 20.16,
 * Bun); `undefined` where the host has none (browsers, or bundlers' `process` shims).
 */
export function builtinModule<T>(name: string): T | undefined {
  const process = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } })
    .process;
  try {
    return process?.getBuiltinModule?.(name) as T | undefined;
  } catch {
    return undefined;
  }
}
