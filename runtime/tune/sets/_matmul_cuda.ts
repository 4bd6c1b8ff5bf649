/**
 * CUDA C matmul variants `c = a b` from the same {@linkcode MatmulVariant} shapes as the WGSL
 * ones (`_matmul_wgsl.ts`): buffers `a`, `b`, `c`, params `M`, `N`, `K`, the same blocks and
 * launch counts, so `matmul.ts` launches either. The kinds with vec4 loads have no CUDA text (on
 * CUDA their register tiles are the `register` kind); {@linkcode CUDA_MATMUL_KINDS} lists those
 * that do. Products accumulate with `fmaf` in `k` order.
 *
 * @module
 */

import { cudaFrame, type CudaText } from "../../kernels/_backend_kernels.ts";
import type { MatmulVariant } from "./_matmul_wgsl.ts";

/** The variant kinds with a CUDA text. */
export const CUDA_MATMUL_KINDS: ReadonlySet<MatmulVariant["kind"]> = new Set([
  "naive",
  "shared",
  "register",
]);

const PARAMS = [["M", "u32"], ["N", "u32"], ["K", "u32"]] as const;
const BUFFERS = [["a", "float", true], ["b", "float", true], ["c", "float", false]] as const;
const U = "unsigned int";

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

/** The CUDA text of a variant whose kind is in {@linkcode CUDA_MATMUL_KINDS}. */
export function matmulCuda(v: MatmulVariant): CudaText {
  const [wx, wy] = v.workgroup;
  const entry = `matmul_${v.kind}`;
  const head = `${cudaFrame(entry, BUFFERS, PARAMS)}
  const ${U} M = params.M; const ${U} N = params.N; const ${U} K = params.K;
  const ${U} gx = blockIdx.x * blockDim.x + threadIdx.x;
  const ${U} gy = blockIdx.y * blockDim.y + threadIdx.y;`;
  let body: string;
  switch (v.kind) {
    case "naive":
      body = `
  if (gy >= M || gx >= N) return;
  float acc = 0.0f;
  for (${U} k = 0u; k < K; k++) acc = fmaf(a[gy * K + k], b[k * N + gx], acc);
  c[gy * N + gx] = acc;`;
      break;
    case "shared": {
      const t = wx; // square tiles: blocks t x t
      body = `
  __shared__ float tile_a[${t}][${t}];
  __shared__ float tile_b[${t}][${t}];
  const ${U} lx = threadIdx.x; const ${U} ly = threadIdx.y;
  float acc = 0.0f;
  for (${U} t = 0u; t < (K + ${t - 1}u) / ${t}u; t++) {
    const ${U} ka = t * ${t}u + lx; const ${U} kb = t * ${t}u + ly;
    tile_a[ly][lx] = gy < M && ka < K ? a[gy * K + ka] : 0.0f;
    tile_b[ly][lx] = kb < K && gx < N ? b[kb * N + gx] : 0.0f;
    __syncthreads();
    for (${U} k = 0u; k < ${t}u; k++) acc = fmaf(tile_a[ly][k], tile_b[k][lx], acc);
    __syncthreads();
  }
  if (gy < M && gx < N) c[gy * N + gx] = acc;`;
      break;
    }
    case "register":
      body = registerTile(
        v.rows,
        v.cols,
        (r) => `(row0 + ${r}u) * K + k`,
        (j) => `k * N + col0 + ${j}u`,
        "0u",
      );
      break;
    default:
      throw new Error(`matmulCuda: no CUDA text for the ${v.kind} variant ${v.name}`);
  }
  return {
    id: `tune.matmul.${v.name}.cuda`,
    entryPoint: entry,
    blockSize: [wx, wy, 1],
    params: PARAMS,
    source: `${head}${body}
}
`,
  };
}

/**
 * The register-tile body: `rows` x `cols` outputs from `row0 = gy * rows`, `col0 = gx * cols`,
 * loads `a[aAt(r)]` and `b[bAt(j)]` (index expressions of `k`), the product at `cBase`.
 */
export function registerTile(
  rows: number,
  cols: number,
  aAt: (r: number) => string,
  bAt: (j: number) => string,
  cBase: string,
): string {
  const loads = [
    ...range(rows).map((r) => `    const float a${r} = row0 + ${r}u < M ? a[${aAt(r)}] : 0.0f;`),
    ...range(cols).map((j) => `    const float b${j} = col0 + ${j}u < N ? b[${bAt(j)}] : 0.0f;`),
    ...range(rows).flatMap((r) =>
      range(cols).map((j) => `    acc${r}_${j} = fmaf(a${r}, b${j}, acc${r}_${j});`)
    ),
  ];
  const decls = range(rows).flatMap((r) => range(cols).map((j) => `float acc${r}_${j} = 0.0f;`));
  const stores = range(rows).flatMap((r) =>
    range(cols).map((j) =>
      `  if (row0 + ${r}u < M && col0 + ${j}u < N) c[${cBase} + (row0 + ${r}u) * N + col0 + ${j}u] = acc${r}_${j};`
    )
  );
  return `
  const ${U} row0 = gy * ${rows}u; const ${U} col0 = gx * ${cols}u;
  if (row0 >= M || col0 >= N) return;
  ${decls.join(" ")}
  for (${U} k = 0u; k < K; k++) {
${loads.join("\n")}
  }
${stores.join("\n")}`;
}
