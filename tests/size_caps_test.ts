import assert from "node:assert/strict";
import { MAX_FILES, MAX_LINES, sizeViolations } from "../tools/check_sizes.ts";

Deno.test("size caps: a module over the line cap and a folder over the file cap are reported", async () => {
  await Deno.mkdir(".tmp", { recursive: true });
  const dir = await Deno.makeTempDir({ dir: ".tmp", prefix: "caps_" });
  try {
    const root = new URL(`file://${Deno.realPathSync(dir)}/`);
    await Deno.mkdir(new URL("runtime/wide/", root), { recursive: true });
    await Deno.mkdir(new URL("runtime/ok/deep/", root), { recursive: true });
    for (let i = 0; i <= MAX_FILES; i++) {
      await Deno.writeTextFile(new URL(`runtime/wide/m${i}.ts`, root), "export {};\n");
    }
    for (let i = 0; i < MAX_FILES; i++) {
      await Deno.writeTextFile(new URL(`runtime/ok/m${i}.ts`, root), "export {};\n");
    }
    await Deno.writeTextFile(
      new URL("runtime/ok/deep/long.ts", root),
      "//\n".repeat(MAX_LINES + 1),
    );
    await Deno.writeTextFile(new URL("runtime/ok/deep/fits.ts", root), "//\n".repeat(MAX_LINES));
    const violations = await sizeViolations(root, ["runtime"]);
    assert.deepEqual(violations, [
      {
        path: "runtime/ok/deep/long.ts",
        message: `${MAX_LINES + 1} lines, the cap is ${MAX_LINES}`,
      },
      { path: "runtime/wide", message: `${MAX_FILES + 1} files, the cap is ${MAX_FILES}` },
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
