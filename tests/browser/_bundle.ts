/**
 * Bundles for the browser tests, with `deno bundle --platform browser` (esbuild):
 *
 * - the test pages and the web example, code-split, with `node:assert/strict` mapped to the
 *   page's own assert (`_assert.ts`) by an import map made from deno.json's imports;
 * - Worker scripts, each a single file (a page asks for them by their `.ts` name);
 * - the package's browser entry points as a user would bundle them (code-split, minified, with
 *   source maps), for {@linkcode browserPath}: which chunks a browser may load, and whether any
 *   of them names `Deno` or `node:`.
 *
 * @module
 */

import config from "../../deno.json" with { type: "json" };

/** The test pages and the web example, by the name the server serves them under. */
export const PAGES = {
  suite: "tests/browser/suite_page.ts",
  tune: "tests/browser/tune_page.ts",
  plain: "tests/browser/plain_page.ts",
  web: "examples/web/main.ts",
} as const;

/** Module Worker scripts the pages start, by the name they ask for. */
export const WORKERS = { "_pipeline_producer.ts": "examples/_pipeline_producer.ts" } as const;

/** The package's entry points a browser may import (all but `./cuda`). */
export const BROWSER_ENTRIES = [
  "mod.ts",
  "backend.ts",
  "runtime/server/webgpu/mod.ts",
  "runtime/trace/mod.ts",
  "runtime/tune/mod.ts",
  "sync/mod.ts",
];

/**
 * Modules of the CUDA backend (its timeline signal included) and the tune cache's file store:
 * they use Deno's namespace and must load only through `import()`, on Deno.
 */
export const DENO_ONLY =
  /(^|\/)(runtime\/server\/cuda\/|runtime\/tune\/cache\/_file_store\.ts$|sync\/cuda_signal\.ts$)/;

async function denoBundle(args: string[]): Promise<void> {
  const { code, stderr } = await new Deno.Command("deno", {
    args: ["bundle", "--quiet", "--platform", "browser", ...args],
    stdout: "null",
    stderr: "piped",
  }).output();
  if (code !== 0) {
    throw new Error(`deno bundle ${args.join(" ")} failed:\n${new TextDecoder().decode(stderr)}`);
  }
}

/**
 * Bundles the pages into `dir/pages`, the Workers into `dir/workers`, and the package's user
 * entry point as ONE file (no code splitting, as some bundlers leave it) into
 * `dir/pages/single/mod.js`.
 */
export async function bundlePages(dir: string): Promise<void> {
  const root = new URL("../../", import.meta.url);
  const map = `${dir}/import_map.json`;
  const imports = {
    ...config.imports,
    "node:assert/strict": new URL("tests/browser/_assert.ts", root).href,
  };
  await Deno.writeTextFile(map, JSON.stringify({ imports }));
  await Promise.all([
    denoBundle([
      "--import-map",
      map,
      "--code-splitting",
      "--outdir",
      `${dir}/pages`,
      ...Object.values(PAGES),
    ]),
    singleFileBundle(`${dir}/pages/single/mod.js`),
    ...Object.entries(WORKERS).map(([name, entry]) =>
      denoBundle([
        "--import-map",
        map,
        "-o",
        `${dir}/workers/${name.replace(/\.ts$/, ".js")}`,
        entry,
      ])
    ),
  ]);
}

/** Bundles the user entry point as one file, as bundlers without code splitting do. */
export async function singleFileBundle(file: string): Promise<string> {
  await denoBundle(["-o", file, "mod.ts"]);
  return await Deno.readTextFile(file);
}

/** What {@linkcode browserPath} found. */
export interface BrowserPath {
  /** Chunks a browser may load from the entry points: static imports and `import()` alike. */
  readonly loaded: string[];
  /** Chunks of Deno-only modules, reached only through `import()`. */
  readonly denoOnly: string[];
  /** `file: reference` for each `node:` specifier or `Deno` access in a loaded chunk. */
  readonly offenders: string[];
}

/** Bundles the browser entry points into `dir` and walks their chunks from the entries. */
export async function browserPath(dir: string): Promise<BrowserPath> {
  await denoBundle([
    "--code-splitting",
    "--minify",
    "--sourcemap=external",
    "--outdir",
    dir,
    ...BROWSER_ENTRIES,
  ]);
  const chunks = new Map<string, { code: string; sources: string[] }>();
  const chunk = async (file: string) => {
    let found = chunks.get(file);
    if (found === undefined) {
      const code = await Deno.readTextFile(`${dir}/${file}`);
      const map = JSON.parse(await Deno.readTextFile(`${dir}/${file}.map`));
      chunks.set(file, found = { code, sources: map.sources });
    }
    return found;
  };
  const loaded = new Set<string>();
  const denoOnly = new Set<string>();
  const offenders: string[] = [];
  const visit = async (file: string, dynamic: boolean): Promise<void> => {
    if (loaded.has(file) || denoOnly.has(file)) return;
    const { code, sources } = await chunk(file);
    const deno = sources.filter((s) => DENO_ONLY.test(s));
    if (deno.length > 0) {
      if (!dynamic || deno.length !== sources.length) {
        offenders.push(
          `${file}: ${dynamic ? "shares a chunk with" : "imports statically"} ${deno[0]}`,
        );
      }
      denoOnly.add(file);
      return;
    }
    loaded.add(file);
    for (const reference of code.match(NODE_OR_DENO) ?? []) offenders.push(`${file}: ${reference}`);
    const base = new URL(file, "file:///");
    for (const [, dynamicImport, path] of code.matchAll(IMPORTS)) {
      await visit(new URL(path, base).pathname.slice(1), dynamicImport !== undefined);
    }
  };
  for (const entry of BROWSER_ENTRIES) await visit(entry.replace(/\.ts$/, ".js"), false);
  return { loaded: [...loaded], denoOnly: [...denoOnly], offenders };
}

// `node:` anywhere (a specifier, or a builtin's name in a string), and `Deno` read as a global
// (`Deno.x`, `Deno?.x`, `Deno[...]`, `typeof Deno`), not `globalThis.Deno` or a word in a message.
const NODE_OR_DENO = /node:[\w/]+|(?<![\w$.])Deno\s*(?:\?\.|\.|\[)[\w$]*|typeof\s+Deno\b/g;
// Relative imports of minified ESM: `from"./x.js"`, `import"./x.js"`, `import("./x.js")`.
const IMPORTS = /(?:from|import)\s*(\()?\s*["'](\.{1,2}\/[^"']+)["']/g;
