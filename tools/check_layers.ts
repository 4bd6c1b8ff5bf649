/**
 * Fails when an import runs back up a layer (see `tools/layers.ts`). Reads the module graph of
 * every entry point in deno.json with `deno info --json`, plus a scan of each module's source
 * for `import type` and dynamic `import()` so that they are classified, not skipped.
 *
 * Run: `deno run --allow-read --allow-run tools/check_layers.ts` (part of `deno task check`).
 *
 * @module
 */

import { type ImportEdge, layerViolations } from "./layers.ts";

interface Dependency {
  specifier: string;
  code?: { specifier: string };
  type?: { specifier: string };
}

const root = new URL("../", import.meta.url);
const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", root)));
const entries = Object.values(config.exports as Record<string, string>);

const modules = new Map<string, { specifier: string; dependencies?: Dependency[] }>();
for (const entry of entries) {
  const info = new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", entry],
    cwd: root,
    stdout: "piped",
  });
  const output = await info.output();
  if (!output.success) throw new Error(`deno info ${entry} failed`);
  for (const module of JSON.parse(new TextDecoder().decode(output.stdout)).modules ?? []) {
    modules.set(module.specifier, module);
  }
}

const prefix = root.href;
const relative = (specifier: string) =>
  specifier.startsWith(prefix) ? specifier.slice(prefix.length) : undefined;

const edges: ImportEdge[] = [];
for (const module of modules.values()) {
  const from = relative(module.specifier);
  if (from === undefined) continue;
  const source = await Deno.readTextFile(new URL(from, root));
  for (const dependency of module.dependencies ?? []) {
    const target = dependency.code?.specifier ?? dependency.type?.specifier;
    const to = target && relative(target);
    if (!to) continue;
    const name = dependency.specifier.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    const dynamic = new RegExp(`import\\(\\s*["']${name}["']`).test(source);
    const typeOnly = !dependency.code ||
      new RegExp(`import type [^;]*["']${name}["']`).test(source);
    edges.push({ from, to, dynamic, typeOnly });
  }
}

const violations = layerViolations(edges);
if (violations.length > 0) {
  console.error(`Layering: ${violations.length} import(s) run back up a layer:`);
  for (const violation of violations) console.error(`  ${violation}`);
  Deno.exit(1);
}
console.log(
  `Layering: ${edges.length} imports between ${modules.size} modules, all one-way`,
);
