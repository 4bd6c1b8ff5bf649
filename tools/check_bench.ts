/**
 * Checks that every `bench/*_bench.ts` imports `bench/_bench_guard.ts` before anything else: the
 * guard makes a benchmark whose `fn` returns a promise without being `async` throw instead of
 * being timed without its wait (`deno bench` awaits only async functions).
 *
 * Run: `deno run --allow-read tools/check_bench.ts` (part of `deno task check`).
 *
 * @module
 */

const GUARD = 'import "./_bench_guard.ts";';
const missing: string[] = [];
for await (const entry of Deno.readDir(new URL("../bench/", import.meta.url))) {
  if (!entry.isFile || !entry.name.endsWith("_bench.ts")) continue;
  const text = await Deno.readTextFile(new URL(`../bench/${entry.name}`, import.meta.url));
  const firstImport = text.split("\n").find((line) => line.startsWith("import "));
  if (!firstImport?.startsWith(GUARD)) missing.push(entry.name);
}
if (missing.length > 0) {
  console.error(`bench files whose first import is not ${GUARD}: ${missing.sort().join(", ")}`);
  Deno.exit(1);
}
console.log("bench files: every one imports the guard first");
