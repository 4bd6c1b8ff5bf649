/**
 * The WGSL reflection's dependency (`wgsl_reflect`) reports constructs its evaluator does not
 * know on `console.error` (a const built from a struct declared further down: `Unknown function
 * "Dflt"`), though the runtime runs the module: a library must not print to its user's console,
 * so the reflection mutes it (and passes the lines to the `["gpucompute", "server"]` logger at
 * debug level).
 */
import assert from "node:assert/strict";
import { createClient } from "../mod.ts";

Deno.test("reflecting WGSL prints nothing on the console; the module runs", async () => {
  using client = await createClient();
  const source = `const D = Dflt(5.0, 6.0);
struct Dflt { a: f32, b: f32 }
@group(0) @binding(0) var<storage, read_write> o: array<f32>;
@compute @workgroup_size(1) fn main() { o[0] = D.a; o[1] = D.b; }`;
  using o = client.createWithData(new Float32Array(2));
  const printed: string[] = [];
  const { error, warn, log } = console;
  console.error = console.warn = console.log = (...args: unknown[]) => {
    printed.push(args.map(String).join(" "));
  };
  try {
    client.execute({ source }, { threads: 1, buffers: [o] });
  } finally {
    Object.assign(console, { error, warn, log });
  }
  assert.deepEqual(printed, []);
  assert.deepEqual([...await client.read(o)], [5, 6]);
  // the console is the caller's again
  assert.equal(console.error, error);
});
