/**
 * QA wave 6, ml-rust/boostr's wgpu kernels: multi-entry-point modules whose entry points use
 * different subsets of the bindings, a function-scope `array<f32, 512>`, a params uniform of
 * mixed f32/u32 fields; see `_wgsl_corpus_qa6.ts`.
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

// https://github.com/ml-rust/boostr/blob/main/src/ops/wgpu/shaders/training/fused_optimizer.wgsl
// verbatim: four entry points over one binding list.
const OPTIMIZER = /* wgsl */ `// Fused optimizer kernels — F32 only (WebGPU is 32-bit by design)

struct OptimizerParams {
    lr: f32,
    beta1: f32,
    beta2: f32,
    eps: f32,
    wd: f32,
    step_size: f32,
    momentum: f32,
    dampening: f32,
    nesterov: u32,
    has_buf: u32,
    n: u32,
    _pad: u32,
}

@group(0) @binding(0) var<storage, read> grad: array<f32>;
@group(0) @binding(1) var<storage, read_write> param: array<f32>;
@group(0) @binding(2) var<storage, read_write> state0: array<f32>;  // m or accum or momentum_buf
@group(0) @binding(3) var<storage, read_write> state1: array<f32>;  // v (for adamw/lamb)
@group(0) @binding(4) var<uniform> params: OptimizerParams;

@compute @workgroup_size(256)
fn fused_adamw_f32(@builtin(global_invocation_id) gid: vec3<u32>) {
    let idx = gid.x;
    if (idx >= params.n) { return; }

    let gi = grad[idx];
    let mi = params.beta1 * state0[idx] + (1.0 - params.beta1) * gi;
    let vi = params.beta2 * state1[idx] + (1.0 - params.beta2) * gi * gi;

    let update = params.step_size * mi / (sqrt(vi) + params.eps);
    let decayed = param[idx] * (1.0 - params.lr * params.wd);

    param[idx] = decayed - update;
    state0[idx] = mi;
    state1[idx] = vi;
}

@compute @workgroup_size(256)
fn fused_sgd_f32(@builtin(global_invocation_id) gid: vec3<u32>) {
    let idx = gid.x;
    if (idx >= params.n) { return; }

    let gi = grad[idx];
    var grad_wd: f32;
    if (params.wd > 0.0) {
        grad_wd = gi + params.wd * param[idx];
    } else {
        grad_wd = gi;
    }

    var b: f32;
    if (params.momentum > 0.0) {
        if (params.has_buf != 0u) {
            b = params.momentum * state0[idx] + (1.0 - params.dampening) * grad_wd;
        } else {
            b = grad_wd;
        }
        state0[idx] = b;
    } else {
        b = grad_wd;
        state0[idx] = b;
    }

    var update: f32;
    if (params.nesterov != 0u && params.momentum > 0.0) {
        update = grad_wd + params.momentum * b;
    } else if (params.momentum > 0.0) {
        update = b;
    } else {
        update = grad_wd;
    }

    param[idx] = param[idx] - params.lr * update;
}

@compute @workgroup_size(256)
fn fused_adagrad_f32(@builtin(global_invocation_id) gid: vec3<u32>) {
    let idx = gid.x;
    if (idx >= params.n) { return; }

    let gi = grad[idx];
    var grad_wd: f32;
    if (params.wd > 0.0) {
        grad_wd = gi + params.wd * param[idx];
    } else {
        grad_wd = gi;
    }

    let acc = state0[idx] + grad_wd * grad_wd;
    state0[idx] = acc;
    param[idx] = param[idx] - params.lr * grad_wd / (sqrt(acc) + params.eps);
}

@compute @workgroup_size(256)
fn fused_lamb_f32(@builtin(global_invocation_id) gid: vec3<u32>) {
    let idx = gid.x;
    if (idx >= params.n) { return; }

    let gi = grad[idx];
    let mi = params.beta1 * state0[idx] + (1.0 - params.beta1) * gi;
    let vi = params.beta2 * state1[idx] + (1.0 - params.beta2) * gi * gi;

    state0[idx] = mi;
    state1[idx] = vi;

    // bias_corr1 stored in step_size, bias_corr2 stored in dampening (reusing uniform fields)
    let m_hat = mi / params.step_size;
    let v_hat = vi / params.dampening;
    let adam_update = m_hat / (sqrt(v_hat) + params.eps);

    // Store update in param buffer (caller reads it back)
    if (params.wd > 0.0) {
        param[idx] = adam_update + params.wd * param[idx];
    } else {
        param[idx] = adam_update;
    }
}
`;

const OPT_PARAMS = {
  lr: 0.01,
  beta1: 0.9,
  beta2: 0.999,
  eps: 1e-8,
  wd: 0.1,
  step_size: 0.5,
  momentum: 0.8,
  dampening: 0.25,
  nesterov: 1,
  has_buf: 1,
  n: 300,
  _pad: 0,
};
const OPT_WORDS = words(Object.values(OPT_PARAMS), [0, 1, 2, 3, 4, 5, 6, 7]);

export const BOOSTR6: readonly CorpusCase[] = [
  {
    name: "boostr fused_optimizer, fused_adamw_f32 (four entry points, one binding list)",
    entryPoint: "fused_adamw_f32",
    source: OPTIMIZER,
    plain: [
      B(0, 0, f(320, 0.01, -0.4)),
      B(0, 1, f(320, 0.02)),
      B(0, 2, f(320, 0.001)),
      B(0, 3, f(320, 0.003)),
      B(0, 4, OPT_WORDS, true),
    ],
    workgroups: [2, 1, 1],
    threads: 300,
    params: OPT_PARAMS,
  },
  {
    // The same module's `fused_lamb_f32`: its m/v over `step_size` and `dampening`, the
    // uniform's f32 fields past the first four words.
    name: "boostr fused_optimizer, fused_lamb_f32",
    entryPoint: "fused_lamb_f32",
    source: OPTIMIZER,
    plain: [
      B(0, 0, f(320, 0.01, -0.4)),
      B(0, 1, f(320, 0.02)),
      B(0, 2, f(320, 0.001)),
      B(0, 3, f(320, 0.003)),
      B(0, 4, OPT_WORDS, true),
    ],
    workgroups: [2, 1, 1],
    threads: 300,
    params: OPT_PARAMS,
  },
  {
    // `fused_sgd_f32` never touches `state1` (binding 3): plain WebGPU's "auto" layout leaves it
    // out, and the client takes the three buffers the entry point uses (grad, param, state0).
    name: "boostr fused_optimizer, fused_sgd_f32 (an entry point using 3 of 4 storage bindings)",
    entryPoint: "fused_sgd_f32",
    source: OPTIMIZER,
    plain: [
      B(0, 0, f(320, 0.01, -0.4)),
      B(0, 1, f(320, 0.02)),
      B(0, 2, f(320, 0.001)),
      B(0, 4, OPT_WORDS, true),
    ],
    workgroups: [2, 1, 1],
    threads: 300,
    params: OPT_PARAMS,
  },
  {
    // https://github.com/ml-rust/boostr/blob/main/src/ops/wgpu/shaders/attention/flash.wgsl
    // verbatim: `//!` doc comments, a function-scope `var accum: array<f32, 512>`, GQA (2 query
    // heads over 1 kv head), causal with a window of 4, token-major output; an empty second
    // entry point. Sq 5 over Sk 7, head_dim 8: 10 invocations.
    name: "boostr flash attention fwd (function-scope array<f32, 512>, causal window, GQA)",
    entryPoint: "flash_attention_fwd_f32",
    source: /* wgsl */ `//! Flash Attention v2 - Fused Attention Kernel
//! Q [B, num_heads, S_q, head_dim]
//! K [B, num_kv_heads, S_k, head_dim]
//! V [B, num_kv_heads, S_k, head_dim]
//! Output [B, num_heads, S_q, head_dim], or [B, S_q, num_heads, head_dim]
//! when \`token_major != 0\` (same values, different store address)
//! LSE [B, num_heads, S_q] (logsumexp for backward)
//!
//! O(N²) GPU implementation. Handles GQA internally.

struct FlashParams {
    batch_size: u32,
    num_heads: u32,
    num_kv_heads: u32,
    seq_len_q: u32,
    seq_len_k: u32,
    head_dim: u32,
    scale: f32,
    causal: u32,
    window_size: u32,
    token_major: u32,
}

@group(0) @binding(0) var<storage, read> q: array<f32>;
@group(0) @binding(1) var<storage, read> k: array<f32>;
@group(0) @binding(2) var<storage, read> v: array<f32>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;
@group(0) @binding(4) var<storage, read_write> lse: array<f32>;
@group(0) @binding(5) var<uniform> params: FlashParams;

@compute @workgroup_size(256)
fn flash_attention_fwd_f32(@builtin(global_invocation_id) gid: vec3<u32>) {
    let query_idx = gid.x;
    let total_queries = params.batch_size * params.num_heads * params.seq_len_q;

    if query_idx >= total_queries {
        return;
    }

    // Decode query position
    let i = query_idx % params.seq_len_q;
    let remainder = query_idx / params.seq_len_q;
    let h_q = remainder % params.num_heads;
    let b = remainder / params.num_heads;

    // GQA: map query head to kv head
    let h_kv = (h_q * params.num_kv_heads) / params.num_heads;

    // Read Q[b, h_q, i, :]
    let q_base = ((b * params.num_heads + h_q) * params.seq_len_q + i) * params.head_dim;

    // Compute attention and aggregate
    var accum: array<f32, 512>;  // Max head_dim = 512
    var max_score = -1e30f;
    var sum_exp = 0.0f;

    // Query row \`i\` is at ABSOLUTE sequence position \`key_offset + i\`: a
    // KV-cached decode or chunked prefill passes seq_len_q < seq_len_k and its
    // queries are the LAST seq_len_q positions. Prefill (seq_len_q ==
    // seq_len_k) gives 0, leaving both rules unchanged. Same convention as
    // \`ops/impl_generic/attention/flash_standard.rs::build_attention_mask\`.
    let key_offset = select(0u, params.seq_len_k - params.seq_len_q, params.seq_len_k >= params.seq_len_q);
    let q_pos = key_offset + i;

    // Compute valid key range [start_k, end_k) based on window and causal
    var start_k = 0u;
    var end_k = params.seq_len_k;

    if params.causal != 0u {
        end_k = min(q_pos + 1u, params.seq_len_k);
    }
    if params.window_size > 0u {
        if q_pos >= params.window_size {
            start_k = max(start_k, q_pos - params.window_size + 1u);
        }
    }

    // First pass: find max for stability
    for (var j = start_k; j < end_k; j = j + 1u) {
        let k_base = ((b * params.num_kv_heads + h_kv) * params.seq_len_k + j) * params.head_dim;
        var score = 0.0f;
        for (var d = 0u; d < params.head_dim; d = d + 1u) {
            score += q[q_base + d] * k[k_base + d];
        }
        score *= params.scale;
        max_score = max(max_score, score);
    }

    // Handle the case where max_score stays at -inf (no valid keys)
    if max_score == -1e30f {
        max_score = 0.0f;
    }

    // Second pass: softmax and aggregate
    for (var j = start_k; j < end_k; j = j + 1u) {
        let k_base = ((b * params.num_kv_heads + h_kv) * params.seq_len_k + j) * params.head_dim;
        var score = 0.0f;
        for (var d = 0u; d < params.head_dim; d = d + 1u) {
            score += q[q_base + d] * k[k_base + d];
        }
        score *= params.scale;

        let weight = exp(score - max_score);
        sum_exp += weight;

        // Accumulate weighted V
        let v_base = ((b * params.num_kv_heads + h_kv) * params.seq_len_k + j) * params.head_dim;
        for (var d = 0u; d < params.head_dim; d = d + 1u) {
            accum[d] += weight * v[v_base + d];
        }
    }

    // Normalize. Only the store address depends on the layout.
    var out_base = ((b * params.num_heads + h_q) * params.seq_len_q + i) * params.head_dim;
    if params.token_major != 0u {
        out_base = ((b * params.seq_len_q + i) * params.num_heads + h_q) * params.head_dim;
    }
    for (var d = 0u; d < params.head_dim; d = d + 1u) {
        out[out_base + d] = accum[d] / max(sum_exp, 1e-10f);
    }

    // Store logsumexp: log(sum_exp) + max_score
    let lse_idx = (b * params.num_heads + h_q) * params.seq_len_q + i;
    if sum_exp > 0.0f {
        lse[lse_idx] = log(sum_exp) + max_score;
    } else {
        lse[lse_idx] = -1e30f;  // No valid keys, use -inf
    }
}

// Placeholder backward pass (simplified, real implementation would need gradients)
@compute @workgroup_size(256)
fn flash_attention_bwd_f32(@builtin(global_invocation_id) gid: vec3<u32>) {
    // Backward pass would require:
    // - dout, q, k, v, output, lse as inputs
    // - Compute dq, dk, dv
    // For now, this is a placeholder. Full implementation would mirror forward pass
    // with gradient accumulation logic.
}
`,
    plain: [
      B(0, 0, f(80, 0.01, -0.3)),
      B(0, 1, f(56, 0.02, -0.5)),
      B(0, 2, f(56, 0.05)),
      B(0, 3, new Float32Array(80)),
      B(0, 4, new Float32Array(10)),
      B(0, 5, words([1, 2, 1, 5, 7, 8, 0.35, 1, 4, 1], [6]), true),
    ],
    workgroups: [1, 1, 1],
    threads: 10,
    params: {
      batch_size: 1,
      num_heads: 2,
      num_kv_heads: 1,
      seq_len_q: 5,
      seq_len_k: 7,
      head_dim: 8,
      scale: 0.35,
      causal: 1,
      window_size: 4,
      token_major: 1,
    },
  },
];
