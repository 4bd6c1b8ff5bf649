/**
 * WGSL matmul variants `c = a b` (row-major f32, `a` is M x K, `b` is K x N), generated with
 * their loops over the register tile unrolled. `a` and `b` are read-only inputs, `c` the output;
 * the sizes come as params `{ M, N, K }` in a uniform struct.
 *
 * Measured on llvmpipe (see DESIGN.md): workgroup memory and barriers are slow there, so register
 * tiles (several outputs per invocation, vec4 loads, no workgroup memory) win; on a discrete GPU
 * the shared-memory tiles may win instead. That is why these are tuned, not chosen.
 */

/**
 * The shape of a matmul variant.
 *
 * @example
 * ```ts
 * import type { MatmulVariant } from "@gpucompute/runtime/tune";
 * const v: MatmulVariant = { name: "r", kind: "vec4", workgroup: [8, 8], rows: 8, cols: 8 };
 * ```
 */
export interface MatmulVariant {
  /** Candidate name. */
  readonly name: string;
  /** `naive`: one output per invocation; `shared`: workgroup-memory tiles; `register`: scalar
   * register tiles; `vec4`: register tiles with vec4 loads (needs N and K multiples of 4);
   * `vec4i`: the same with each invocation's column quads interleaved with its neighbours', so
   * adjacent invocations load adjacent memory (vectorizes on CPU adapters). */
  readonly kind: "naive" | "shared" | "register" | "vec4" | "vec4i";
  /** Workgroup size x (columns) and y (rows). */
  readonly workgroup: readonly [number, number];
  /** Output rows per invocation. */
  readonly rows: number;
  /** Output columns per invocation (a multiple of 4 for `vec4`). */
  readonly cols: number;
}

const HEADER = (type: string) => `
struct Dims { M: u32, N: u32, K: u32 }
@group(0) @binding(0) var<storage, read> a: array<${type}>;
@group(0) @binding(1) var<storage, read> b: array<${type}>;
@group(0) @binding(2) var<storage, read_write> c: array<${type}>;
@group(0) @binding(3) var<uniform> dims: Dims;`;

/** The WGSL source of a variant. */
export function matmulWgsl(v: MatmulVariant): string {
  switch (v.kind) {
    case "naive":
      return naive(v);
    case "shared":
      return shared(v);
    case "register":
      return register(v);
    case "vec4":
      return vec4(v, false);
    case "vec4i":
      return vec4(v, true);
  }
}

function naive(v: MatmulVariant): string {
  const [wx, wy] = v.workgroup;
  return `${HEADER("f32")}
@compute @workgroup_size(${wx}, ${wy})
fn main(@builtin(global_invocation_id) gid: vec3u) {
  let M = dims.M; let N = dims.N; let K = dims.K;
  let row = gid.y; let col = gid.x;
  if (row >= M || col >= N) { return; }
  var acc = 0.0;
  for (var k = 0u; k < K; k = k + 1u) { acc = acc + a[row * K + k] * b[k * N + col]; }
  c[row * N + col] = acc;
}`;
}

function shared(v: MatmulVariant): string {
  const t = v.workgroup[0]; // square tiles: workgroup t x t
  return `${HEADER("f32")}
var<workgroup> tileA: array<array<f32, ${t}>, ${t}>;
var<workgroup> tileB: array<array<f32, ${t}>, ${t}>;
@compute @workgroup_size(${t}, ${t})
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(local_invocation_id) lid: vec3u) {
  let M = dims.M; let N = dims.N; let K = dims.K;
  let row = gid.y; let col = gid.x;
  var acc = 0.0;
  for (var t = 0u; t < (K + ${t - 1}u) / ${t}u; t = t + 1u) {
    let ka = t * ${t}u + lid.x; let kb = t * ${t}u + lid.y;
    tileA[lid.y][lid.x] = select(0.0, a[min(row * K + ka, arrayLength(&a) - 1u)], row < M && ka < K);
    tileB[lid.y][lid.x] = select(0.0, b[min(kb * N + col, arrayLength(&b) - 1u)], kb < K && col < N);
    workgroupBarrier();
    for (var k = 0u; k < ${t}u; k = k + 1u) { acc = acc + tileA[lid.y][k] * tileB[k][lid.x]; }
    workgroupBarrier();
  }
  if (row < M && col < N) { c[row * N + col] = acc; }
}`;
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

function register(v: MatmulVariant): string {
  const [wx, wy] = v.workgroup;
  const { rows, cols } = v;
  const lines: string[] = [];
  for (const r of range(rows)) {
    lines.push(`    let a${r} = loadA((row0 + ${r}u) * K + k, row0 + ${r}u < M);`);
  }
  for (const j of range(cols)) {
    lines.push(`    let b${j} = loadB(k * N + col0 + ${j}u, col0 + ${j}u < N);`);
  }
  for (const r of range(rows)) {
    for (const j of range(cols)) lines.push(`    acc${r}_${j} = fma(a${r}, b${j}, acc${r}_${j});`);
  }
  const decls = range(rows).flatMap((r) => range(cols).map((j) => `var acc${r}_${j} = 0.0;`));
  const stores = range(rows).flatMap((r) =>
    range(cols).map((j) =>
      `  if (row0 + ${r}u < M && col0 + ${j}u < N) { c[(row0 + ${r}u) * N + col0 + ${j}u] = acc${r}_${j}; }`
    )
  );
  return `${HEADER("f32")}
fn loadA(i: u32, ok: bool) -> f32 { if (ok) { return a[i]; } return 0.0; }
fn loadB(i: u32, ok: bool) -> f32 { if (ok) { return b[i]; } return 0.0; }
@compute @workgroup_size(${wx}, ${wy})
fn main(@builtin(global_invocation_id) gid: vec3u) {
  let M = dims.M; let N = dims.N; let K = dims.K;
  let row0 = gid.y * ${rows}u; let col0 = gid.x * ${cols}u;
  if (row0 >= M || col0 >= N) { return; }
  ${decls.join(" ")}
  for (var k = 0u; k < K; k = k + 1u) {
${lines.join("\n")}
  }
${stores.join("\n")}
}`;
}

/** vec4 loads of a (4 consecutive k) and b / c (4 consecutive columns); N % 4 == K % 4 == 0. */
function vec4(v: MatmulVariant, interleaved: boolean): string {
  const [wx, wy] = v.workgroup;
  const rows = v.rows;
  const quads = v.cols / 4;
  // Interleaved: quad q of an invocation is column quad tile0 + lane + q * wx of its workgroup.
  const column = (q: number) => interleaved ? `(col0 + ${q * wx}u)` : `(col0 + ${q}u)`;
  const lines: string[] = [];
  for (const r of range(rows)) {
    lines.push(`    let a${r} = loadA((row0 + ${r}u) * K4 + k4, row0 + ${r}u < M);`);
  }
  for (const s of range(4)) {
    for (const q of range(quads)) {
      const col = column(q);
      lines.push(`    let b${s}_${q} = loadB((k4 * 4u + ${s}u) * N4 + ${col}, ${col} < N4);`);
    }
  }
  const comp = ["x", "y", "z", "w"];
  for (const r of range(rows)) {
    for (const q of range(quads)) {
      const terms = range(4).reduce(
        (acc, s) => `fma(vec4f(a${r}.${comp[s]}), b${s}_${q}, ${acc})`,
        `acc${r}_${q}`,
      );
      lines.push(`    acc${r}_${q} = ${terms};`);
    }
  }
  const decls = range(rows).flatMap((r) =>
    range(quads).map((q) => `var acc${r}_${q} = vec4f(0.0);`)
  );
  const stores = range(rows).flatMap((r) =>
    range(quads).map((q) =>
      `  if (row0 + ${r}u < M && ${column(q)} < N4) { c[(row0 + ${r}u) * N4 + ${
        column(q)
      }] = acc${r}_${q}; }`
    )
  );
  return `${HEADER("vec4f")}
fn loadA(i: u32, ok: bool) -> vec4f { if (ok) { return a[i]; } return vec4f(0.0); }
fn loadB(i: u32, ok: bool) -> vec4f { if (ok) { return b[i]; } return vec4f(0.0); }
@compute @workgroup_size(${wx}, ${wy})
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(workgroup_id) wid: vec3u,
        @builtin(local_invocation_id) lid: vec3u) {
  let M = dims.M; let N4 = dims.N / 4u; let K4 = dims.K / 4u;
  let row0 = gid.y * ${rows}u;
  let col0 = ${interleaved ? `wid.x * ${wx * quads}u + lid.x` : `gid.x * ${quads}u`};
  if (row0 >= M || col0 >= N4) { return; }
  ${decls.join(" ")}
  for (var k4 = 0u; k4 < K4; k4 = k4 + 1u) {
${lines.join("\n")}
  }
${stores.join("\n")}
}`;
}
