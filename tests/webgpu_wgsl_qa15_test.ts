/**
 * WGSL that runs on plain WebGPU, through the client (fifteenth QA wave).
 *
 * Module-scope consts in any order: a typed `const A: i32 = B;` above `const B: i32 = 4;` made
 * the reflection fail ("Invalid cast from f32 to i32"): it was an `UnsupportedError`.
 *
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

Deno.test("module-scope consts named before they are declared, typed, in sizes and params", async () => {
  using client = await createClient();
  const source = `const WG: u32 = HALF * 2u;
const N: u32 = WG * 2u;
struct Params { scale: f32, count: u32 }
@group(0) @binding(0) var<storage, read_write> o: array<f32, N>;
@group(0) @binding(1) var<uniform> p: Params;
const HALF: u32 = ONE + ONE;
const ONE: u32 = 1u;
const K: i32 = FOUR_ALIAS + FOUR_ALIAS;
const FOUR_ALIAS: i32 = FOUR;
const FOUR: i32 = 4;
@compute @workgroup_size(WG) fn main(@builtin(global_invocation_id) id: vec3u) {
  if (id.x < p.count) { o[id.x] = p.scale * f32(i32(id.x) + K); }
}`;
  using o = client.createWithData(new Float32Array(8));
  // 8 threads in two workgroups of WG = 4; count 6 leaves the last two at 0
  client.execute({ source }, { threads: 8, buffers: { o }, params: { scale: 0.5, count: 6 } });
  assert.deepEqual([...await client.read(o)], [4, 4.5, 5, 5.5, 6, 6.5, 0, 0]);
  // a cycle is the device's to refuse, with a typed error
  const cycle = source.replace("const ONE: u32 = 1u;", "const ONE: u32 = HALF;");
  await assert.rejects(
    () => client.compile({ source: cycle }),
    (e: Error) => e.name === "CompilationError" || e.name === "UnsupportedError",
  );
});
