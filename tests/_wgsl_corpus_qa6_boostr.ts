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
];
