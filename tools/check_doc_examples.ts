/**
 * Type-checks every TypeScript code block of the documentation, the ones marked ` ignore` too:
 * the `@example` blocks of the JSDoc under `mod.ts`, `backend.ts`, `runtime/` and `sync/`, and
 * the blocks of `README.md` and `docs/*.md`. `deno test --doc` skips a block marked ` ignore`
 * (one that needs a CUDA GPU, a Worker or a browser to run), so nothing else would notice when
 * such an example stops matching the API. Each block is written to `.tmp/doc_examples/` as a
 * module of its own (relative imports made relative to there) and one `deno check` checks them
 * all. It also checks that every export of every entry point (deno.json `exports`) has an
 * `@example`. Run by `tests/doc_examples_test.ts`; by hand:
 *
 * ```sh
 * deno run --allow-read --allow-write=.tmp --allow-run=deno tools/check_doc_examples.ts
 * ```
 *
 * To run the blocks not marked ` ignore` as well (a minute or two, the WebGPU ones on the
 * fallback adapter, with no permission): `deno task test:doc`.
 *
 * @module
 */

/** One TypeScript code block of the documentation. */
export interface DocBlock {
  /** The file it is in, relative to the repository root. */
  readonly file: string;
  /** The line of its opening fence (1-based). */
  readonly line: number;
  /** Whether the fence says ` ignore` (skipped by `deno test --doc`). */
  readonly ignored: boolean;
  /** Its code, without the JSDoc `*` margins. */
  readonly code: string;
}

const FENCE = /^```(ts|typescript|tsx)(\s+ignore)?\s*$/;

/** A Markdown line without its blockquote marker (`> `), if it has one. */
const unquote = (line: string) => line.replace(/^\s*> ?/, "");

/**
 * The TypeScript code blocks of `text`: in a `.md` file the fenced blocks, in a `.ts` file the
 * fenced blocks inside its `/** ... *\/` comments.
 */
export function docBlocks(file: string, text: string): DocBlock[] {
  const lines = text.split("\n");
  const markdown = file.endsWith(".md");
  const blocks: DocBlock[] = [];
  let inComment = markdown;
  for (let i = 0; i < lines.length; i++) {
    let line = markdown ? unquote(lines[i]) : lines[i];
    if (!markdown) {
      if (!inComment && /^\s*\/\*\*/.test(line)) inComment = true;
      if (!inComment) continue;
      if (/\*\/\s*$/.test(line)) {
        inComment = false;
        continue;
      }
      line = line.replace(/^\s*\* ?/, "");
    }
    const open = FENCE.exec(line.trim());
    if (!open) continue;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const inner = markdown ? unquote(lines[j]) : lines[j].replace(/^\s*\* ?/, "");
      if (inner.trim() === "```") break;
      body.push(inner);
    }
    blocks.push({ file, line: i + 1, ignored: open[2] !== undefined, code: body.join("\n") });
    i = j;
  }
  return blocks;
}

/**
 * The exports of the entry points without an `@example` in their JSDoc, as `entry: name`, from
 * `deno doc --json` (the JSDoc of any declaration of the symbol counts).
 */
async function exportsWithoutExample(entries: readonly string[]): Promise<string[]> {
  type Tag = { kind: string };
  type Symbol = { name: string; declarations?: { jsDoc?: { tags?: Tag[] } }[] };
  const missing: string[] = [];
  for (const entry of entries) { // one at a time: together, a re-export is a bare reference
    const doc = await new Deno.Command("deno", { args: ["doc", "--json", entry] }).output();
    if (!doc.success) throw new Error(new TextDecoder().decode(doc.stderr));
    const { nodes } = JSON.parse(new TextDecoder().decode(doc.stdout)) as {
      nodes: Record<string, { symbols?: Symbol[] }>;
    };
    for (const node of Object.values(nodes)) {
      for (const symbol of node.symbols ?? []) {
        const tagged = (symbol.declarations ?? []).some((declaration) =>
          (declaration.jsDoc?.tags ?? []).some((tag) => tag.kind === "example")
        );
        if (!tagged) missing.push(`${entry}: ${symbol.name}`);
      }
    }
  }
  return missing;
}

/** The `.ts` files under `dir`, recursively, sorted. */
async function sourceFiles(dir: string): Promise<string[]> {
  const files: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) files.push(...await sourceFiles(path));
    else if (entry.name.endsWith(".ts") && !entry.name.endsWith("_test.ts")) files.push(path);
  }
  return files.sort();
}

/** Where the extracted blocks go, relative to the repository root. */
const OUT = ".tmp/doc_examples";

/**
 * Writes the blocks to `OUT` and returns the written paths. A relative import is rewritten to
 * point from `OUT` at the file the block documents the module of.
 */
async function writeBlocks(blocks: readonly DocBlock[]): Promise<string[]> {
  await Deno.remove(OUT, { recursive: true }).catch(() => {});
  await Deno.mkdir(OUT, { recursive: true });
  const paths: string[] = [];
  for (const block of blocks) {
    const dir = block.file.includes("/") ? block.file.slice(0, block.file.lastIndexOf("/")) : ".";
    const code = block.code.replace(
      /(from\s+|import\s*\(\s*)"(\.\.?\/[^"]+)"/g,
      (_, lead: string, spec: string) => `${lead}"../../${dir}/${spec}"`,
    );
    const name = `${block.file.replace(/[/.]/g, "_")}_${block.line}.ts`;
    const header = `// ${block.file}:${block.line}${block.ignored ? " (ignore)" : ""}\n`;
    await Deno.writeTextFile(`${OUT}/${name}`, `${header}${code}\nexport {};\n`);
    paths.push(`${OUT}/${name}`);
  }
  return paths;
}

if (import.meta.main) {
  const root = new URL("..", import.meta.url).pathname;
  Deno.chdir(root);
  const files = [
    "mod.ts",
    "backend.ts",
    ...await sourceFiles("runtime"),
    ...await sourceFiles("sync"),
  ];
  files.push("README.md");
  for await (const entry of Deno.readDir("docs")) {
    if (entry.isFile && entry.name.endsWith(".md")) files.push(`docs/${entry.name}`);
  }
  const blocks: DocBlock[] = [];
  for (const file of files) blocks.push(...docBlocks(file, await Deno.readTextFile(file)));
  const paths = await writeBlocks(blocks);
  const ignored = blocks.filter((block) => block.ignored).length;
  const check = await new Deno.Command("deno", { args: ["check", "--quiet", ...paths] }).output();
  const report = new TextDecoder().decode(check.stderr);
  if (!check.success) {
    console.error(report);
    console.error(
      `The doc examples in ${OUT}/ failed to type-check (the first line of each names its source).`,
    );
    Deno.exit(1);
  }
  const config = JSON.parse(await Deno.readTextFile("deno.json")) as {
    exports: Record<string, string>;
  };
  const entries = Object.values(config.exports);
  const missing = await exportsWithoutExample(entries);
  if (missing.length > 0) {
    console.error(`Exports without an @example:\n  ${missing.join("\n  ")}`);
    Deno.exit(1);
  }
  console.log(
    `${blocks.length} doc examples type-check (${ignored} of them marked ignore) in ${files.length} files;`,
    `every export of the ${entries.length} entry points has an @example`,
  );
}
