/**
 * QA wave 6, huggingface/ratchet's kernels the second wave did not take: a uniform `Meta` of two
 * `vec3<u32>`s with a `u32` packed into the second one's fourth slot (RoPE), helper functions
 * holding barriers over a `const`-sized workgroup array (group norm); see `_wgsl_corpus_qa6.ts`.
 */
import { B, type CorpusCase, f } from "./_wgsl_corpus_qa_base.ts";

/** Words of a uniform: numbers as u32 unless listed in `floats` (by word index). */
function words(values: readonly number[], floats: readonly number[]): Uint32Array<ArrayBuffer> {
  const view = new DataView(new ArrayBuffer(values.length * 4));
  values.forEach((v, i) =>
    floats.includes(i) ? view.setFloat32(i * 4, v, true) : view.setUint32(i * 4, v, true)
  );
  return new Uint32Array(view.buffer);
}

export const RATCHET6: readonly CorpusCase[] = [
  {
    // https://github.com/huggingface/ratchet/blob/master/crates/ratchet-core/kernels/rope_scalar.wgsl
    // verbatim but for its long header comment: `seq_len` sits at byte 28, in the padding slot
    // of `out_strides: vec3<u32>`. Its 16x2x16 workgroup is 512 invocations, past WebGPU's
    // default 256: plain WebGPU's device asks for 512 (the client's has the adapter's limits).
    name: "ratchet rope_scalar (u32 packed after a vec3<u32> in a uniform, 3-D workgroup)",
    source:
      /* wgsl */ `//Translated from: https://github.com/ml-explore/mlx/blob/main/mlx/backend/metal/kernels/rope.metal
@group(0) @binding(0)
var<storage, read_write> in: array<f32>;

struct Meta {
    in_strides: vec3<u32>,
    out_strides: vec3<u32>,
    seq_len: u32,
    hd: u32,
    offset: u32,
    base: f32,
    scale: f32,
}

@group(1) @binding(0)
var<uniform> metadata: Meta;

@compute @workgroup_size(16, 2, 16)
fn main( 
        @builtin(local_invocation_id) local_id: vec3<u32>,
        @builtin(global_invocation_id) pos: vec3<u32>,
        @builtin(num_workgroups) groups: vec3<u32>,
) {
  if(pos.y >= metadata.seq_len) {
    return;
  }

  let grid = vec3<u32>(groups.x * 16u, groups.y * 2u, groups.z * 16u);

  let out_index_1 = dot(pos, vec3<u32>(metadata.out_strides[2], metadata.out_strides[1], metadata.out_strides[0]));
  let out_index_2 = out_index_1 + grid.x * metadata.out_strides[2];

  let in_index_1 = dot(pos, vec3<u32>(metadata.in_strides[2], metadata.in_strides[1], metadata.in_strides[0]));
  let in_index_2 = in_index_1 + grid.x * metadata.in_strides[2];

  let L = metadata.scale * f32(pos.y + metadata.offset);
  let d = f32(pos.x) / f32(grid.x);

  let theta = L * exp2(-d * metadata.base);
  let costheta = cos(theta);
  let sintheta = sin(theta);

  let x1 = in[in_index_1];
  let x2 = in[in_index_2];

  let rx1 = x1 * costheta - x2 * sintheta;
  let rx2 = x1 * sintheta + x2 * costheta;

  in[out_index_1] = rx1;
  in[out_index_2] = rx2;
}
`,
    plain: [
      B(0, 0, f(2048, 0.01, -0.5)),
      B(1, 0, words([128, 32, 1, 0, 128, 32, 1, 3, 64, 2, 1.5, 0.75], [10, 11]), true),
    ],
    workgroups: [1, 2, 1],
    limits: { maxComputeInvocationsPerWorkgroup: 512 },
    params: {
      in_strides: [128, 32, 1],
      out_strides: [128, 32, 1],
      seq_len: 3,
      hd: 64,
      offset: 2,
      base: 1.5,
      scale: 0.75,
    },
  },
  {
    // https://github.com/huggingface/ratchet/blob/master/crates/ratchet-core/kernel-handwritten/groupnorm_scalar.wgsl
    // verbatim: `var<workgroup> smem: array<f32, BLOCK_SIZE>`, barriers in `block_sum`, a
    // local `let mu = mu(...)` shadowing the function it calls; uniform in group 1.
    name: "ratchet groupnorm_scalar (shadowing lets, barriers in helpers, group 1 uniform)",
    source: /* wgsl */ `@group(0) @binding(0)
var<storage, read> X: array<f32>;

@group(0) @binding(1)
var<storage, read> S: array<f32>;

@group(0) @binding(2)
var<storage, read> B: array<f32>;

@group(0) @binding(3)
var<storage, read_write> Y: array<f32>;

struct Meta {
    M: u32,
    N: u32,
    ND2: u32,
    ND4: u32,
    eps: f32,
}

@group(1) @binding(0)
var<uniform> metadata: Meta;

const BLOCK_SIZE: u32 = 128u;

var<workgroup> smem: array<f32, BLOCK_SIZE>; //max 16kb

fn block_sum(index: u32, stride: u32) {
    if index < stride {
        smem[index] += smem[index + stride];
    }
    workgroupBarrier();
}

fn mu(local_id: vec3<u32>, anchor: u32) -> f32 {
    var threadSum = f32(0.0);
    for (var i: u32 = local_id.x; i < metadata.N; i += BLOCK_SIZE) {
        threadSum += X[anchor + i];
    }
    workgroupBarrier();
    smem[local_id.x] = threadSum;
    workgroupBarrier();

    block_sum(local_id.x, 64u);
    block_sum(local_id.x, 32u);
    block_sum(local_id.x, 16u);
    block_sum(local_id.x, 8u);
    block_sum(local_id.x, 4u);
    block_sum(local_id.x, 2u);
    block_sum(local_id.x, 1u);

    return smem[0] / f32(metadata.N);
}

fn sigma(local_id: vec3<u32>, anchor: u32, mu: f32) -> f32 {
    var threadSum = f32(0.0);
    //Compute σ
    for (var i: u32 = local_id.x; i < metadata.N; i += BLOCK_SIZE) {
        let val = X[anchor + i] - mu;
        threadSum = fma(val, val, threadSum);
    }

    workgroupBarrier();
    smem[local_id.x] = threadSum;
    workgroupBarrier();

    block_sum(local_id.x, 64u);
    block_sum(local_id.x, 32u);
    block_sum(local_id.x, 16u);
    block_sum(local_id.x, 8u);
    block_sum(local_id.x, 4u);
    block_sum(local_id.x, 2u);
    block_sum(local_id.x, 1u);

    return smem[0] / f32(metadata.N);
}

@compute @workgroup_size(128, 1, 1)
fn main(
    @builtin(local_invocation_id) local_id: vec3<u32>,
    @builtin(workgroup_id) group_id: vec3<u32>,
    @builtin(global_invocation_id) global_id: vec3<u32>
) {
    let anchor = metadata.N * ((group_id.y * metadata.M) + group_id.x);
    let mu = mu(local_id, anchor);
    let sigma = sigma(local_id, anchor, mu);

    let denom = inverseSqrt(sigma + f32(metadata.eps));

    for (var i: u32 = local_id.x; i < metadata.N; i += BLOCK_SIZE) {
        let val = (X[anchor + i] - mu) * denom;
        Y[anchor + i] = fma(val, S[i], B[i]);
    }
}
`,
    plain: [
      B(0, 0, f(1200, 0.1, -3)),
      B(0, 1, f(200, 0.02)),
      B(0, 2, f(200, -0.01)),
      B(0, 3, new Float32Array(1200)),
      B(1, 0, words([3, 200, 100, 50, 1e-5, 0, 0, 0], [4]), true),
    ],
    workgroups: [3, 2, 1],
    params: { M: 3, N: 200, ND2: 100, ND4: 50, eps: 1e-5 },
  },
];
