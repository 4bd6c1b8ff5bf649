// The documentation's code blocks stay true to the API: every TypeScript block of the JSDoc
// (`@example`) and of README.md and docs/*.md type-checks, the ones marked `ignore` (CUDA, Workers,
// a browser) too, and every export of an entry point has an `@example` (tools/check_doc_examples.ts).
// Running the blocks not marked `ignore` (with no permission) takes a minute or two and is not part
// of the suite: `deno task test:doc`.
import { deepEqual, equal, match } from "node:assert/strict";
import { docBlocks } from "../tools/check_doc_examples.ts";

Deno.test("docBlocks finds the fenced TypeScript blocks of JSDoc and of Markdown, ignored or not", () => {
  const ts = [
    "/**",
    " * Doubles.",
    " *",
    " * @example",
    " * ```ts",
    ' * import { double } from "./double.ts";',
    " * console.log(double(2)); // 4",
    " * ```",
    " * ```ts ignore",
    " * await cudaOnly();",
    " * ```",
    " * ```sh",
    " * deno run double.ts",
    " * ```",
    " */",
    "export const double = (x: number): number => 2 * x;",
    'const text = "```ts"; // not in a comment',
  ].join("\n");
  deepEqual(docBlocks("runtime/double.ts", ts), [
    {
      file: "runtime/double.ts",
      line: 5,
      ignored: false,
      code: 'import { double } from "./double.ts";\nconsole.log(double(2)); // 4',
    },
    { file: "runtime/double.ts", line: 9, ignored: true, code: "await cudaOnly();" },
  ]);
  const md = [
    "# Title",
    "",
    "```ts",
    "const a = 1;",
    "```",
    "",
    "- item:",
    "",
    "  ```ts ignore",
    "  const b = 2;",
    "  ```",
    "",
    "> ```ts",
    "> const c = 3;",
    "> ```",
  ]
    .join("\n");
  deepEqual(docBlocks("README.md", md), [
    { file: "README.md", line: 3, ignored: false, code: "const a = 1;" },
    { file: "README.md", line: 9, ignored: true, code: "  const b = 2;" },
    { file: "README.md", line: 13, ignored: false, code: "const c = 3;" },
  ]);
});

Deno.test("every TypeScript block of the docs type-checks (ignored ones too), every export has an @example", async () => {
  const tool = new URL("../tools/check_doc_examples.ts", import.meta.url).pathname;
  const { success, stdout, stderr } = await new Deno.Command("deno", {
    args: ["run", "--allow-read", "--allow-write=.tmp", "--allow-run=deno", tool],
    cwd: new URL("..", import.meta.url).pathname,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const out = new TextDecoder().decode(stdout);
  equal(success, true, new TextDecoder().decode(stderr));
  match(
    out,
    /^\d{3,} doc examples type-check \(\d+ of them marked ignore\) .*; every export of the 7 entry points has an @example/,
  );
});
