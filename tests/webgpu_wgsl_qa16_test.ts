/**
 * WGSL that runs on plain WebGPU, through the client (sixteenth QA wave).
 *
 * Struct-valued consts in array counts and workgroup sizes: `struct Foo { n: u32 }
 * const c = Foo(2u);` then `array<f32, c.n>` or `@workgroup_size(c.w)` is valid WGSL, but the
 * runtime's const evaluator threw "Foo() is not evaluated by the runtime" (a
 * `CompilationError` / `UnsupportedError`). It now builds structs (positional arguments, the
 * zero value `Foo()`, nested structs, arrays of structs) and reads their members by name.
 */
import assert from "node:assert/strict";
import { createClient } from "../mod.ts";
import { B, type CorpusCase, f } from "./_wgsl_corpus_qa_base.ts";
import { runCorpusCase } from "./_wgsl_corpus_run.ts";

const adapter = await navigator.gpu?.requestAdapter();
const ignore = adapter === null || adapter === undefined; // no WebGPU adapter on this machine

const CASES: CorpusCase[] = [
  {
    name: "a struct const's members as an array count and the workgroup size",
    source: `struct Foo { n: u32, w: u32 }
const c = Foo(3u, 4u);
@group(0) @binding(0) var<storage, read> src: array<array<f32, c.n>>;
@group(0) @binding(1) var<storage, read_write> dst: array<array<f32, c.n>>;
@group(0) @binding(2) var<storage, read_write> hits: atomic<u32>;
@compute @workgroup_size(c.w) fn main(@builtin(global_invocation_id) g: vec3u,
                                      @builtin(local_invocation_index) l: u32) {
  atomicAdd(&hits, 1u); // the workgroups the runtime launches for 8 threads, times c.w
  if (g.x >= arrayLength(&dst)) { return; }
  for (var k = 0u; k < c.n; k++) { dst[g.x][k] = src[g.x][c.n - 1u - k] * 2.0 + f32(l); }
}`,
    plain: [B(0, 0, f(8 * 3, 0.5)), B(0, 1, new Float32Array(8 * 3)), B(0, 2, new Uint32Array(1))],
    workgroups: [2, 1, 1],
    threads: 8,
  },
  {
    name: "nested structs, an array of structs and a zero value in counts and sizes",
    source: `struct Dims { n: u32, m: u32 }
struct Cfg { @align(16) dims: Dims, w: vec2u, pad: array<u32, 2> }
const ZERO = Cfg();
const CFG = Cfg(Dims(2u, 5u), vec2u(2u, 4u), array(ZERO.pad[1], 7u));
const TABLE = array(Dims(1u, 9u), CFG.dims);
alias Row = array<f32, TABLE[1].m + ZERO.dims.n>;
@group(0) @binding(0) var<storage, read_write> rows: array<Row>;
@compute @workgroup_size(CFG.w.x, CFG.w.y, TABLE[0].n) fn main(
  @builtin(global_invocation_id) g: vec3u, @builtin(num_workgroups) n: vec3u) {
  let i = g.y * n.x * CFG.w.x + g.x;
  for (var k = 0u; k < TABLE[1].m; k++) { rows[i][k] = f32(i * 10u + k + CFG.pad[1]); }
}`,
    plain: [B(0, 0, new Float32Array(16 * 5))],
    workgroups: [2, 2, 1],
  },
];

for (const c of CASES) {
  Deno.test({
    name: `struct consts: ${c.name} run as on plain WebGPU`,
    ignore,
    async fn() {
      using client = await createClient();
      await runCorpusCase(client, c);
    },
  });
}

Deno.test({
  name: "struct consts: the values are the CPU's; what the runtime cannot read stays a typed error",
  ignore,
  async fn() {
    using client = await createClient();
    // The params' layout and the launch's workgroups come from the runtime's values: a wrong
    // count misplaces 'tail' (or refuses 3 rows), a wrong size launches other workgroups.
    const source = `struct Dims { n: u32, m: u32 }
struct Cfg { @align(16) dims: Dims, w: vec2u, pad: array<u32, 2> }
const ZERO = Cfg();
const CFG = Cfg(Dims(2u, 3u), vec2u(2u, 4u), array(ZERO.pad[1], 7u));
const TABLE = array(Dims(1u, 9u), CFG.dims);
struct Params { rows: array<vec4f, TABLE[1].m + ZERO.dims.n>, tail: f32 }
@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<storage, read_write> hits: atomic<u32>;
@compute @workgroup_size(CFG.w.x, CFG.w.y, TABLE[0].n) fn main(
  @builtin(global_invocation_id) g: vec3u) {
  atomicAdd(&hits, 1u);
  if (all(g == vec3u(0u))) {
    for (var k = 0u; k < 3u; k++) { out[k] = p.rows[k].y; }
    out[3] = p.tail + f32(CFG.pad[1] + CFG.pad[0]);
  }
}`;
    using out = client.zeros(4, "f32");
    using hits = client.zeros(1, "u32");
    const rows = [[0, 1, 0, 0], [0, 2, 0, 0], [0, 3, 0, 0]];
    client.execute({ source }, {
      threads: [4, 8], // 2x2 workgroups of 2x4x1
      buffers: { out, hits },
      params: { rows, tail: 0.5 },
    });
    assert.deepEqual([...await client.read(out)], [1, 2, 3, 7.5]);
    assert.deepEqual([...await client.read(hits)], [32]);
    // An override's default read from a struct const sizes the workgroup; a given value wins.
    const sized = `struct Foo { n: u32, w: u32 }
const c = Foo(2u, 4u);
override W: u32 = c.w * c.n;
@group(0) @binding(0) var<storage, read_write> hits: atomic<u32>;
@compute @workgroup_size(W) fn main() { atomicAdd(&hits, 1u); }`;
    for (const [overrides, launched] of [[undefined, 24], [{ W: 3 }, 18]] as const) {
      using count = client.zeros(1, "u32");
      client.execute({ source: sized }, { threads: 17, buffers: [count], overrides });
      assert.deepEqual([...await client.read(count)], [launched], `W ${overrides?.W ?? 8}`);
    }
    // A matrix member is built too (since wave 17); `transpose` is no const builtin of naga's:
    // refused by the device, a typed error.
    const matrix = `struct M { m: mat2x2f, n: u32 }
const Z = M();
@group(0) @binding(0) var<storage, read_write> o: array<array<f32, Z.n + 1u>>;
@compute @workgroup_size(1) fn main() { o[0][0] = 1.0; }`;
    await client.compile({ source: matrix });
    await assert.rejects(
      () => client.compile({ source: matrix.replace("M();", "M(transpose(mat2x2f()), 1u);") }),
      (e: Error) => e.name === "CompilationError" && e.message.includes("Transpose"),
    );
    // A member the struct does not have, and a wrong argument count: typed errors.
    for (
      const bad of [
        source.replace("TABLE[1].m + ZERO", "TABLE[1].q + ZERO"),
        source.replace("Dims(1u, 9u)", "Dims(1u)"),
      ]
    ) {
      await assert.rejects(
        () => client.compile({ source: bad }),
        (e: Error) => e.name === "CompilationError" || e.name === "UnsupportedError",
      );
    }
  },
});
