/**
 * QA wave 4, reductions and ML kernels: a barrier under a branch on a read-only storage value,
 * vector consts read by member in `@workgroup_size`; see `_wgsl_corpus_qa4.ts`.
 */
import { B, type CorpusCase, f } from "./_wgsl_corpus_qa_base.ts";
import { w } from "./_wgsl_corpus_qa3_base.ts";

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
];
