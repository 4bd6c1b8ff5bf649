/**
 * QA wave 12, webgpu-samples' newer compute shaders (https://github.com/webgpu/webgpu-samples):
 * the visionTransformer sample's kernels (a local named `dot` shadowing the builtin, an f32
 * between u32 uniform fields, an entry point named `linear`), bitonicSort's atomicToZero (a
 * bare `atomic<u32>` at binding 3 alone) and packedIntegerDotProduct (`requires
 * packed_4x8_integer_dot_product;`, a bare `i32` storage binding); see `_wgsl_corpus_qa12.ts`.
 */
import { B, type CorpusCase, f } from "./_wgsl_corpus_qa_base.ts";

/** A uniform's bytes from u32 and f32 words (`["f", 0.5]` is an f32), 16-byte padded. */
function words(...values: (number | ["f", number])[]): Uint8Array<ArrayBuffer> {
  const view = new DataView(new ArrayBuffer(Math.ceil(values.length / 4) * 16));
  values.forEach((v, i) =>
    typeof v === "number" ? view.setUint32(4 * i, v, true) : view.setFloat32(4 * i, v[1], true)
  );
  return new Uint8Array(view.buffer);
}

export const SAMPLES12: readonly CorpusCase[] = [
  {
    // https://github.com/webgpu/webgpu-samples/blob/main/sample/visionTransformer/shaders/layerNorm.wgsl
    // (stored version e1b2fd3d2c120129ec229d3bf211a629dd932654), its header comment shortened:
    // one workgroup per row, thread 0 computes the moments into workgroup scalars.
    name:
      `webgpu-samples visionTransformer layerNorm (Params { N, D, eps: f32 }, workgroup scalars)`,
    source: /* wgsl */ `// Layer normalization: stabilizes training and inference by normalizing
// each token's activations to zero mean and unit variance, then applying
// learned scale (gamma) and shift (beta) parameters.

struct Params {
  N: u32,       // number of rows (tokens)
  D: u32,       // dimension per row
  eps: f32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> input: array<f32>;
@group(0) @binding(2) var<storage, read> gamma: array<f32>;
@group(0) @binding(3) var<storage, read> beta: array<f32>;
@group(0) @binding(4) var<storage, read_write> output: array<f32>;

var<workgroup> shared_mean: f32;
var<workgroup> shared_inv_std: f32;

@compute @workgroup_size(256)
fn main(
  @builtin(workgroup_id) wg_id: vec3u,
  @builtin(local_invocation_id) local_id: vec3u,
) {
  let row = wg_id.x;
  let tid = local_id.x;
  let D = params.D;
  let base = row * D;

  // Thread 0 computes mean and variance
  if (tid == 0u) {
    var sum = 0.0;
    var sq_sum = 0.0;
    for (var i = 0u; i < D; i++) {
      let val = input[base + i];
      sum += val;
      sq_sum += val * val;
    }
    let mean = sum / f32(D);
    let variance = sq_sum / f32(D) - mean * mean;
    shared_mean = mean;
    shared_inv_std = 1.0 / sqrt(variance + params.eps);
  }
  workgroupBarrier();

  let mean = shared_mean;
  let inv_std = shared_inv_std;

  // All threads normalize and apply affine transform in parallel
  for (var i = tid; i < D; i += 256u) {
    let val = input[base + i];
    output[base + i] = (val - mean) * inv_std * gamma[i] + beta[i];
  }
}
`,
    plain: [
      B(0, 0, words(2, 40, ["f", 1e-5]), true),
      B(0, 1, f(80, 0.05, -2)),
      B(0, 2, f(40, 0.01, 0.5)),
      B(0, 3, f(40, 0.02, -0.3)),
      B(0, 4, new Float32Array(80)),
    ],
    workgroups: [2, 1, 1],
    params: { N: 2, D: 40, eps: 1e-5 },
  },
  {
    // https://github.com/webgpu/webgpu-samples/blob/main/sample/visionTransformer/shaders/attnScores.wgsl
    // (stored version e1b2fd3d...), its header comment dropped: `var dot = 0.0;`, a local
    // named like the builtin, a `d` loop variable beside a `D` let, `scale: f32` after four u32s.
    name: "webgpu-samples visionTransformer attnScores (a local named dot, computeScores entry)",
    source: /* wgsl */ `struct Params {
  N: u32,        // number of tokens (197)
  D: u32,        // model dimension (192)
  numHeads: u32, // number of attention heads (3)
  headDim: u32,  // dimension per head (64)
  scale: f32,    // 1/sqrt(headDim)
  layerIdx: u32, // which layer for attnWeights storage offset
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> qBuf: array<f32>;     // (N, D)
@group(0) @binding(2) var<storage, read> kBuf: array<f32>;     // (N, D)
@group(0) @binding(3) var<storage, read_write> scoreBuf: array<f32>; // (numHeads, N, N)

// Compute raw scores
@compute @workgroup_size(256)
fn computeScores(@builtin(global_invocation_id) gid: vec3u) {
  let idx = gid.x;
  let N = params.N;
  let numHeads = params.numHeads;
  let headDim = params.headDim;
  let D = params.D;
  let totalScores = numHeads * N * N;

  if (idx >= totalScores) { return; }

  let head = idx / (N * N);
  let remainder = idx % (N * N);
  let qi = remainder / N;
  let ki = remainder % N;

  let headOffset = head * headDim;

  var dot = 0.0;
  for (var d = 0u; d < headDim; d++) {
    dot += qBuf[qi * D + headOffset + d] * kBuf[ki * D + headOffset + d];
  }

  scoreBuf[idx] = dot * params.scale;
}
`,
    entryPoint: "computeScores",
    plain: [
      B(0, 0, words(6, 16, 2, 8, ["f", 0.35355339], 1), true),
      B(0, 1, f(96, 0.03, -1)),
      B(0, 2, f(96, 0.02, -0.7)),
      B(0, 3, new Float32Array(72)),
    ],
    workgroups: [1, 1, 1],
    params: { N: 6, D: 16, numHeads: 2, headDim: 8, scale: 0.35355339, layerIdx: 1 },
  },
  {
    // https://github.com/webgpu/webgpu-samples/blob/main/sample/visionTransformer/shaders/attnSoftmax.wgsl
    // (stored version e1b2fd3d...), its header comment dropped: two read_write bindings,
    // the scores normalized in place and copied at a uniform layer offset.
    name: "webgpu-samples visionTransformer attnSoftmax (in-place rows, layer offset)",
    source: /* wgsl */ `struct Params {
  N: u32,
  numHeads: u32,
  layerIdx: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> scoreBuf: array<f32>;    // (numHeads, N, N)
@group(0) @binding(2) var<storage, read_write> attnWeights: array<f32>; // (numLayers, numHeads, N, N)

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3u) {
  let idx = gid.x;
  let N = params.N;
  let numHeads = params.numHeads;
  let totalRows = numHeads * N;

  if (idx >= totalRows) { return; }

  let base = idx * N;

  // Find max for numerical stability
  var m = -1e30;
  for (var i = 0u; i < N; i++) {
    m = max(m, scoreBuf[base + i]);
  }

  // Exp and sum
  var s = 0.0;
  for (var i = 0u; i < N; i++) {
    let e = exp(scoreBuf[base + i] - m);
    scoreBuf[base + i] = e;
    s += e;
  }

  // Normalize and store
  let layerOffset = params.layerIdx * numHeads * N * N;
  for (var i = 0u; i < N; i++) {
    let val = scoreBuf[base + i] / s;
    scoreBuf[base + i] = val;
    attnWeights[layerOffset + idx * N + i] = val;
  }
}
`,
    plain: [
      B(0, 0, words(8, 2, 1), true),
      B(0, 1, f(128, 0.07, -3)),
      B(0, 2, new Float32Array(256)),
    ],
    workgroups: [1, 1, 1],
    params: { N: 8, numHeads: 2, layerIdx: 1 },
  },
  {
    // https://github.com/webgpu/webgpu-samples/blob/main/sample/visionTransformer/shaders/mlp.wgsl
    // (stored version e1b2fd3d...), its header comment dropped: entry points named `linearGelu`
    // and `linear` sharing a layout, a tanh GELU helper with a `let c` of an abstract float.
    name: "webgpu-samples visionTransformer mlp linearGelu (tanh GELU helper, two entry points)",
    source: /* wgsl */ `struct Params {
  numRows: u32,  // number of tokens
  inDim: u32,    // input dimension
  outDim: u32,   // output dimension
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> input: array<f32>;
@group(0) @binding(2) var<storage, read> weight: array<f32>;
@group(0) @binding(3) var<storage, read> bias: array<f32>;
@group(0) @binding(4) var<storage, read_write> output: array<f32>;

// Tanh-based GELU approximation. WGSL does not have erf(), so we use the
// standard approximation from Hendrycks & Gimpel (2016). The max error vs
// exact GELU is ~3e-4, which is negligible for inference.
fn gelu(x: f32) -> f32 {
  let c = 0.7978845608; // sqrt(2/pi)
  let inner = c * (x + 0.044715 * x * x * x);
  return 0.5 * x * (1.0 + tanh(inner));
}

// Linear + GELU: output = GELU(input @ weight + bias)
@compute @workgroup_size(256)
fn linearGelu(@builtin(global_invocation_id) gid: vec3u) {
  let idx = gid.x;
  let numRows = params.numRows;
  let inDim = params.inDim;
  let outDim = params.outDim;

  if (idx >= numRows * outDim) { return; }

  let row = idx / outDim;
  let col = idx % outDim;

  var val = bias[col];
  for (var k = 0u; k < inDim; k++) {
    val += input[row * inDim + k] * weight[k * outDim + col];
  }
  output[idx] = gelu(val);
}

// Plain linear: output = input @ weight + bias
@compute @workgroup_size(256)
fn linear(@builtin(global_invocation_id) gid: vec3u) {
  let idx = gid.x;
  let numRows = params.numRows;
  let inDim = params.inDim;
  let outDim = params.outDim;

  if (idx >= numRows * outDim) { return; }

  let row = idx / outDim;
  let col = idx % outDim;

  var val = bias[col];
  for (var k = 0u; k < inDim; k++) {
    val += input[row * inDim + k] * weight[k * outDim + col];
  }
  output[idx] = val;
}
`,
    entryPoint: "linearGelu",
    plain: [
      B(0, 0, words(4, 12, 24), true),
      B(0, 1, f(48, 0.04, -2)),
      B(0, 2, f(288, 0.01, -0.5)),
      B(0, 3, f(24, 0.03, -0.4)),
      B(0, 4, new Float32Array(96)),
    ],
    workgroups: [1, 1, 1],
    params: { numRows: 4, inDim: 12, outDim: 24 },
  },
  {
    // https://github.com/webgpu/webgpu-samples/blob/main/sample/bitonicSort/atomicToZero.wgsl
    // (stored version 786161fee7faa60f6cd3ba8a4455140a95159908) verbatim: the module's only
    // binding is a bare `atomic<u32>` at binding 3; an entry point without parameters.
    name: "webgpu-samples bitonicSort atomicToZero (a bare atomic<u32> alone at binding 3)",
    source: /* wgsl */ `@group(0) @binding(3) var<storage, read_write> counter: atomic<u32>;

@compute @workgroup_size(1, 1, 1)
fn atomicToZero() {
  let counterValue = atomicLoad(&counter);
  atomicSub(&counter, counterValue);
}
`,
    entryPoint: "atomicToZero",
    plain: [B(0, 3, Uint32Array.from([12345]))],
    workgroups: [1, 1, 1],
  },
  {
    // https://github.com/webgpu/webgpu-samples/blob/main/sample/packedIntegerDotProduct/packed.wgsl
    // (stored version 7d8dad10c2d3ec082955a304ff57966c4842262d) verbatim: a `requires`
    // directive of a language feature, a struct and a bare `i32` as storage bindings.
    name: "webgpu-samples packedIntegerDotProduct (requires packed_4x8_integer_dot_product)",
    source: /* wgsl */ `requires packed_4x8_integer_dot_product;

struct Input { lhs: u32, rhs: u32 }

@group(0) @binding(0) var<storage, read> input: Input;
@group(0) @binding(1) var<storage, read_write> output: i32;

@compute @workgroup_size(1)
fn main() {
  output = dot4I8Packed(input.lhs, input.rhs);
}
`,
    plain: [B(0, 0, Uint32Array.from([0x81ff7f02, 0x7f80fe03])), B(0, 1, new Int32Array(1))],
    workgroups: [1, 1, 1],
  },
];
