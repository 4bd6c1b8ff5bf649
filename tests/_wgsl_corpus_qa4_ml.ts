/**
 * QA wave 4, reductions and ML kernels: a barrier under a branch on a read-only storage value,
 * vector consts read by member in `@workgroup_size`; see `_wgsl_corpus_qa4.ts`.
 */
import { B, type CorpusCase, f } from "./_wgsl_corpus_qa_base.ts";
import { w } from "./_wgsl_corpus_qa3_base.ts";

/** A reduction tutorial's `reduce_0` with its workgroup array's count (see the cases). */
export const reduce0 = (count: string): string =>
  /* wgsl */ `const workgroup_size = vec3<u32>(64u,1u,1u);

struct Data {
    data: array<f32>
}

@binding(0) @group(0) var<storage,read> global_input: Data;
@binding(1) @group(0) var<storage,read_write> global_output: Data;

var<workgroup> workgroup_data : array<f32,COUNT>;

@compute @workgroup_size(workgroup_size.x,workgroup_size.y,workgroup_size.z)
fn reduce_0(@builtin(local_invocation_id) local_invocation_id: vec3<u32>, 
            @builtin(workgroup_id) workgroup_id: vec3<u32>) {
    let tid = local_invocation_id.x;
    let i = workgroup_id.x*workgroup_size.x + local_invocation_id.x;
    
    workgroup_data[tid] = global_input.data[i];
    workgroupBarrier();

    for(var s = 1u; s < workgroup_size.x; s *= 2u){
        if(tid % (2u*s) == 0u){
            workgroup_data[tid] += workgroup_data[tid + s];
        }
        workgroupBarrier();
    }

    if(tid == 0u){
        global_output.data[workgroup_id.x] = workgroup_data[0];
    }
}`.replace("COUNT", count);

export const ML4: readonly CorpusCase[] = [
  {
    // https://github.com/unixpickle/gridnet/blob/main/web/wgsl/moments.wgsl verbatim: scalar
    // `var<storage, read>` bindings (u32), and `reduceShared` (workgroup barriers) called under
    // `if (isFirst == 1)`: uniform control flow only because `isFirst` is read-only storage.
    name: "gridnet moments (barriers under a branch on a read-only storage u32)",
    source: /* wgsl */ `@group(0) @binding(0) var<storage, read> isFirst: u32;
@group(0) @binding(1) var<storage, read> numInputs: u32;
@group(0) @binding(2) var<storage, read> inputs: array<f32>;
@group(0) @binding(3) var<storage, read_write> sumOut: array<f32>;
@group(0) @binding(4) var<storage, read_write> sqSumOut: array<f32>;

var<workgroup> reductionBuffer: array<f32, 512>;

// Compute the sum and sum-of-squares of blocks of data.
@compute @workgroup_size(256)
fn reduceMoments(
    @builtin(workgroup_id) ctaId: vec3u,
    @builtin(local_invocation_index) tid: u32,
) {
    var localValue = 0.0;
    let globalIndex = tid + 256 * ctaId.x;
    if (globalIndex < numInputs) {
        localValue = inputs[globalIndex];
    }

    let sum = reduceShared(localValue, tid);
    if (tid == 0) {
        sumOut[ctaId.x] = sum;
    }

    if (isFirst == 1) {
        let sqSum = reduceShared(localValue * localValue, tid);
        if (tid == 0) {
            sqSumOut[ctaId.x] = sqSum;
        }
    }
}

fn reduceShared(input: f32, localIndex: u32) -> f32 {
    reductionBuffer[localIndex] = input;
    workgroupBarrier();
    for (var i = 0u; i < 8; i++) {
        workgroupBarrier();
        let shift: u32 = 1u << i;
        let otherIndex = localIndex ^ shift;
        let ourValue = reductionBuffer[localIndex];
        let otherValue = reductionBuffer[otherIndex];
        workgroupBarrier();
        reductionBuffer[localIndex] = ourValue + otherValue;
    }
    workgroupBarrier();
    return reductionBuffer[localIndex];
}
`,
    plain: [
      B(0, 0, w(1)),
      B(0, 1, w(600)),
      B(0, 2, f(768, 0.125, -6)),
      B(0, 3, new Float32Array(3)),
      B(0, 4, new Float32Array(3)),
    ],
    workgroups: [3, 1, 1],
  },
  {
    // https://github.com/unixpickle/gridnet/blob/main/web/wgsl/affine.wgsl verbatim: scalar
    // `f32` and `u32` bindings in `var<storage, read>` (4 bytes each) beside arrays, locals
    // named `output` and `mean`.
    name: "gridnet affine (scalar f32/u32 read-only storage bindings, normalization)",
    source: /* wgsl */ `@group(0) @binding(0) var<storage, read> numInputs: u32;
@group(0) @binding(1) var<storage, read> inputs: array<f32>;
@group(0) @binding(2) var<storage, read_write> outputs: array<f32>;
@group(0) @binding(3) var<storage, read> weight: array<f32>;
@group(0) @binding(4) var<storage, read> bias: array<f32>;
@group(0) @binding(5) var<storage, read> sum: f32;
@group(0) @binding(6) var<storage, read> sqSum: f32;

// Perform an affine transformation and normalization.
@compute @workgroup_size(256)
fn affine(
    @builtin(workgroup_id) ctaId: vec3u,
    @builtin(local_invocation_index) tid: u32,
) {
    var localValue = 0.0;
    var localWeight = 0.0;
    var localBias = 0.0;
    let globalIndex = tid + 256 * ctaId.x;
    if (globalIndex < numInputs) {
        localValue = inputs[globalIndex];
        localWeight = weight[globalIndex];
        localBias = bias[globalIndex];
    }

    let mean = sum / f32(numInputs);
    let sqMean = sqSum / f32(numInputs);
    let stddev = sqrt(sqMean - mean*mean + 1e-5);

    let output = ((localValue - mean) / stddev) * localWeight + localBias;
    if (globalIndex < numInputs) {
        outputs[globalIndex] = output;
    }
}
`,
    plain: [
      B(0, 0, w(500)),
      B(0, 1, f(512, 0.1, -5)),
      B(0, 2, new Float32Array(512)),
      B(0, 3, f(512, 0.01, 0.5)),
      B(0, 4, f(512, 0.02, -1)),
      B(0, 5, Float32Array.of(12.5)),
      B(0, 6, Float32Array.of(4100)),
    ],
    workgroups: [2, 1, 1],
  },
  {
    // https://github.com/unixpickle/gridnet/blob/main/web/wgsl/patch_embed.wgsl verbatim: a
    // 4x4 patch embedding of a 3x256x256 image into a 64x64x64 grid, `array<f32, 48>()` (the
    // zero-value constructor) in a local, abstract `4*4*3` loop bounds, a local named `input`.
    name: "gridnet patch_embed (array<f32, 48>() zero constructor, 3x256x256 input)",
    source: /* wgsl */ `// [in_ch x height x width]
@group(0) @binding(0) var<storage, read> inputs: array<f32>;

// [out_grid x out_grid x out_grid]
@group(0) @binding(1) var<storage, read_write> outputs: array<f32>;

// [out_ch x in_ch x kernel_size x kernel_size]
@group(0) @binding(2) var<storage, read> weight: array<f32>;

// [out_ch]
@group(0) @binding(3) var<storage, read> bias: array<f32>;

// Apply a 4x4 patch embedding to go from a 3x256x256 to the first
// 8 channels along the z axis of a 64x64x64 grid.
@compute @workgroup_size(32)
fn patchEmbedStandard4x4(
    @builtin(workgroup_id) ctaId: vec3u,
    @builtin(local_invocation_index) tid: u32,
) {
    let outChannel = tid % 8;
    let localBias: f32 = bias[outChannel];
    var localWeights: array<f32, 48> = array<f32, 48>(); // 4*4*3
    for (var i = 0u; i < 4*4*3; i++) {
        localWeights[i] = weight[outChannel*4*4*3 + i];
    }

    let row = ctaId.x;
    let firstCol = tid / 8;
    for (var col = firstCol; col < 64; col += 4u) {
        var sum = localBias;
        for (var ch = 0u; ch < 3; ch++) {
            for (var i = 0u; i < 4; i++) {
                for (var j = 0u; j < 4; j++) {
                    let input = inputs[col*4 + j + 256 * ((row * 4 + i) + 256 * ch)];
                    let w = localWeights[j + 4 * (i + 4 * ch)];
                    sum += input * w;
                }
            }
        }
        outputs[outChannel + 64 * (col + 64*row)] = sum;
    }
}`,
    plain: [
      B(0, 0, f(3 * 256 * 256, 1 / 64, -0.5)),
      B(0, 1, new Float32Array(64 * 64 * 64)),
      B(0, 2, f(8 * 48, 0.01, -0.3)),
      B(0, 3, f(8, 0.1)),
    ],
    workgroups: [64, 1, 1],
  },
  {
    // A WebGPU reduction tutorial's `reduce_0` (its header a CUDA-to-WebGPU glossary; the
    // code search did not name the repository), with its workgroup array's count written
    // `workgroup_size.x` (the tutorial's `workgroup_size`, a vec3, is refused:
    // `_wgsl_corpus_qa4_refused.ts`): `@workgroup_size(workgroup_size.x, workgroup_size.y,
    // workgroup_size.z)` of a `vec3<u32>` const, `@binding` before `@group`.
    name: "reduction tutorial reduce_0 (@workgroup_size of a vec3 const's components)",
    source: reduce0("workgroup_size.x"),
    plain: [B(0, 0, f(256, 0.5, -20)), B(0, 1, new Float32Array(4))],
    workgroups: [4, 1, 1],
  },
];
