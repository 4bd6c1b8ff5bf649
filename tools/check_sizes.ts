/**
 * `deno task check` step: the size caps of the source tree. No module under `runtime/` or `sync/`
 * is over {@linkcode MAX_LINES} lines, and no folder there holds more than {@linkcode MAX_FILES}
 * files (sub-folders by concern instead: docs/architecture.md).
 *
 * Run: `deno run --allow-read tools/check_sizes.ts`.
 *
 * @module
 */

/** The most lines a runtime module may have. */
export const MAX_LINES = 400;
/** The most files a runtime folder may hold (sub-folders not counted). */
export const MAX_FILES = 15;

/** The roots the caps apply to. */
export const ROOTS: readonly string[] = ["runtime", "sync"];

/** A file or folder over a cap, described in one line. */
export interface SizeViolation {
  /** The path, relative to the repository root. */
  readonly path: string;
  /** What is over the cap. */
  readonly message: string;
}

/** The violations under `root` (a folder URL ending in `/`), walking `dirs` from there. */
export async function sizeViolations(root: URL, dirs: readonly string[]): Promise<SizeViolation[]> {
  const violations: SizeViolation[] = [];
  const walk = async (dir: string) => {
    let files = 0;
    for await (const entry of Deno.readDir(new URL(`${dir}/`, root))) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory) {
        await walk(path);
        continue;
      }
      files++;
      if (!/\.(ts|js)$/.test(entry.name)) continue;
      const text = await Deno.readTextFile(new URL(path, root));
      const lines = text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
      if (lines > MAX_LINES) {
        violations.push({ path, message: `${lines} lines, the cap is ${MAX_LINES}` });
      }
    }
    if (files > MAX_FILES) {
      violations.push({ path: dir, message: `${files} files, the cap is ${MAX_FILES}` });
    }
  };
  for (const dir of dirs) await walk(dir);
  return violations.sort((a, b) => a.path.localeCompare(b.path));
}

if (import.meta.main) {
  const violations = await sizeViolations(new URL("../", import.meta.url), ROOTS);
  if (violations.length > 0) {
    console.error(
      `Size caps: ${violations.length} over (split the file, or sub-folder by concern):`,
    );
    for (const { path, message } of violations) console.error(`  ${path}: ${message}`);
    Deno.exit(1);
  }
  console.log(
    `Size caps: every module under ${
      ROOTS.join("/, ")
    }/ within ${MAX_LINES} lines, every folder within ${MAX_FILES} files`,
  );
}
