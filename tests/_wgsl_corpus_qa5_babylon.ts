/**
 * QA wave 5, Babylon.js compute shaders (ShadersWGSL/*.compute.fx): block scans, splat depth
 * histograms and scatter, bounding boxes by float atomics; see `_wgsl_corpus_qa5.ts`.
 */
import { B, type CorpusCase, f, u } from "./_wgsl_corpus_qa_base.ts";
import { w } from "./_wgsl_corpus_qa3_base.ts";

/** Babylon.js' boundingInfo: float atomics through storage pointer parameters (see REFUSED5). */
export const BOUNDING_INFO: CorpusCase = {
  // https://github.com/BabylonJS/Babylon.js/blob/master/packages/dev/core/src/ShadersWGSL/boundingInfo.compute.fx
  // with its `#ifdef`/`#if` blocks (bones, morph targets)
  // left out as Babylon's preprocessor does without those defines: float min/max by
  // `atomicCompareExchangeWeak` loops on `ptr<storage, atomic<i32>, read_write>` parameters,
  // an uncalled helper taking a `texture_2d<f32>`, a `mat4x4f` const of `vec4f`s.
  name: "Babylon.js boundingInfo (float atomic min/max by CAS on struct members)",
  source: /* wgsl */ `
// We will need to use a min/max reduction algorithm at some point

struct Results {
  minX : atomic<i32>,
  minY : atomic<i32>,
  minZ : atomic<i32>,
  maxX : atomic<i32>,
  maxY : atomic<i32>,
  maxZ : atomic<i32>,
  dummy1 : i32,
  dummy2 : i32,
};

fn floatToBits(value: f32) -> i32 {
    return bitcast<i32>(value);
}

fn bitsToFloat(value: i32) -> f32 {
    return bitcast<f32>(value);
}

fn atomicMinFloat(atomicVar: ptr<storage, atomic<i32>, read_write>, value: f32) {
    let intValue = floatToBits(value);

    loop {
        let oldIntValue = atomicLoad(atomicVar);
        let oldValue = bitsToFloat(oldIntValue);
        if (value >= oldValue) {
            break;
        }
        if (atomicCompareExchangeWeak(atomicVar, oldIntValue, intValue).old_value == oldIntValue) {
            break;
        }
    }
}

fn atomicMaxFloat(atomicVar: ptr<storage, atomic<i32>, read_write>, value: f32) {
    let intValue = floatToBits(value);
    
    loop {
        let oldIntValue = atomicLoad(atomicVar);
        let oldValue = bitsToFloat(oldIntValue);
        if (value <= oldValue) {
            break;
        }
        if (atomicCompareExchangeWeak(atomicVar, oldIntValue, intValue).old_value == oldIntValue) {
            break;
        }
    }
}

fn readMatrixFromRawSampler(smp : texture_2d<f32>, index : f32) -> mat4x4<f32>
{
    let offset = i32(index)  * 4;\t

    let m0 = textureLoad(smp, vec2<i32>(offset + 0, 0), 0);
    let m1 = textureLoad(smp, vec2<i32>(offset + 1, 0), 0);
    let m2 = textureLoad(smp, vec2<i32>(offset + 2, 0), 0);
    let m3 = textureLoad(smp, vec2<i32>(offset + 3, 0), 0);

    return mat4x4<f32>(m0, m1, m2, m3);
}

const identity = mat4x4f(
    vec4f(1.0, 0.0, 0.0, 0.0),
    vec4f(0.0, 1.0, 0.0, 0.0),
    vec4f(0.0, 0.0, 1.0, 0.0),
    vec4f(0.0, 0.0, 0.0, 1.0)
);

struct Settings {
    indexResult : u32,
};

@group(0) @binding(0) var<storage, read> positionBuffer : array<f32>;
@group(0) @binding(1) var<storage, read_write> resultBuffer : array<Results>;
@group(0) @binding(7) var<uniform> settings : Settings;

@compute @workgroup_size(64, 1, 1)
fn main(@builtin(global_invocation_id) global_id : vec3<u32>) {
    let index = global_id.x;
    if (index >= arrayLength(&positionBuffer) / 3) {
        return;
    }

    let position = vec3f(positionBuffer[index * 3], positionBuffer[index * 3 + 1], positionBuffer[index * 3 + 2]);

    var finalWorld = identity;
    var positionUpdated = position;

    var worldPos = finalWorld * vec4f(positionUpdated.x, positionUpdated.y, positionUpdated.z, 1.0);

    atomicMinFloat(&resultBuffer[settings.indexResult].minX, worldPos.x);
    atomicMinFloat(&resultBuffer[settings.indexResult].minY, worldPos.y);
    atomicMinFloat(&resultBuffer[settings.indexResult].minZ, worldPos.z);

    atomicMaxFloat(&resultBuffer[settings.indexResult].maxX, worldPos.x);
    atomicMaxFloat(&resultBuffer[settings.indexResult].maxY, worldPos.y);
    atomicMaxFloat(&resultBuffer[settings.indexResult].maxZ, worldPos.z);
}
`,
  plain: [
    B(0, 0, f(3 * 100, 0.25, -12)),
    B(
      0,
      1,
      w(
        ...Array.from({ length: 2 }, () => [
          { f: 1e9 },
          { f: 1e9 },
          { f: 1e9 },
          { f: -1e9 },
          { f: -1e9 },
          { f: -1e9 },
          0,
          0,
        ]).flat(),
      ),
    ),
    B(0, 7, w(1), true),
  ],
  workgroups: [2, 1, 1],
  params: { indexResult: 1 },
};

export const BABYLON5: readonly CorpusCase[] = [
  {
    // https://github.com/BabylonJS/Babylon.js/blob/master/packages/dev/core/src/ShadersWGSL/prefixSumScanBlock.compute.fx
    // verbatim: Hillis-Steele block scan, per-block
    // exclusive sums in place and block totals, a uniform `count` guarding padded lanes.
    name: "Babylon.js prefixSumScanBlock (in-place block scan, block totals)",
    source: /* wgsl */ `// Blelloch/Hillis-Steele block scan (WebGPU compute).
struct Params {
    count : u32,
};

@group(0) @binding(0) var<storage, read_write> data : array<u32>;
@group(0) @binding(1) var<storage, read_write> blockSums : array<u32>;
@group(0) @binding(2) var<uniform> params : Params;

var<workgroup> temp : array<u32, 256>;

@compute @workgroup_size(256, 1, 1)
fn main(@builtin(global_invocation_id) gid : vec3u, @builtin(local_invocation_id) lid : vec3u, @builtin(workgroup_id) wid : vec3u) {
    let g = gid.x;
    let t = lid.x;

    // Explicit bounds check: \`select\` would still evaluate \`data[g]\` for out-of-range lanes, and the recursive
    // block-sums buffer is sized to the exact block count (not padded to the workgroup size), so that read can be
    // out of bounds. Guard the load so padded lanes contribute 0.
    var v = 0u;
    if (g < params.count) {
        v = data[g];
    }
    temp[t] = v;
    workgroupBarrier();

    for (var d = 1u; d < 256u; d = d * 2u) {
        var val = temp[t];
        if (t >= d) {
            val = val + temp[t - d];
        }
        workgroupBarrier();
        temp[t] = val;
        workgroupBarrier();
    }

    // Exclusive result = inclusive - own value.
    if (g < params.count) {
        data[g] = temp[t] - v;
    }
    // The last lane holds the inclusive total of the whole block (padded lanes contribute 0).
    if (t == 255u) {
        blockSums[wid.x] = temp[t];
    }
}
`,
    plain: [B(0, 0, u(700, 1000)), B(0, 1, new Uint32Array(3)), B(0, 2, w(700), true)],
    workgroups: [3, 1, 1],
    params: { count: 700 },
  },
  {
    // https://github.com/BabylonJS/Babylon.js/blob/master/packages/dev/core/src/ShadersWGSL/gaussianSplattingSortHistogram.compute.fx
    // verbatim: depths to buckets between
    // a range given as i32 bits (`bitcast<f32>(range[0])`), an atomic histogram, a uniform
    // struct with a `vec4f` after four u32.
    name: "Babylon.js gaussian splatting sort histogram (bitcast range, atomic buckets)",
    source: /* wgsl */ `struct Params {
    count : u32,
    paddedCount : u32,
    numBuckets : u32,
    pad : u32,
    coeff : vec4f,
};

@group(0) @binding(0) var<storage, read> depth : array<f32>;
@group(0) @binding(1) var<storage, read> range : array<i32>;
@group(0) @binding(2) var<storage, read_write> bucket : array<u32>;
@group(0) @binding(3) var<storage, read_write> histogram : array<atomic<u32>>;
@group(0) @binding(4) var<uniform> params : Params;

@compute @workgroup_size(256, 1, 1)
fn main(@builtin(global_invocation_id) gid : vec3u) {
    let i = gid.x;
    if (i >= params.count) {
        return;
    }
    let minDepth = bitcast<f32>(range[0]);
    let maxDepth = bitcast<f32>(range[1]);
    let span = maxDepth - minDepth;

    var b : u32 = 0u;
    if (span > 1e-12) {
        let scale = f32(params.numBuckets - 1u) / span;
        var k = i32((maxDepth - depth[i]) * scale);
        if (k < 0) {
            k = 0;
        }
        let maxBucket = i32(params.numBuckets - 1u);
        if (k > maxBucket) {
            k = maxBucket;
        }
        b = u32(k);
    }
    bucket[i] = b;
    atomicAdd(&histogram[b], 1u);
}
`,
    plain: [
      B(0, 0, f(300, 0.5, 1)),
      B(0, 1, new Int32Array(w({ f: 1 }, { f: 51 }).buffer)),
      B(0, 2, new Uint32Array(300)),
      B(0, 3, new Uint32Array(32)),
      B(0, 4, w(300, 512, 32, 0, { f: 1 }, { f: 2 }, { f: 3 }, { f: 4 }), true),
    ],
    workgroups: [2, 1, 1],
    params: { count: 300, paddedCount: 512, numBuckets: 32, pad: 0, coeff: [1, 2, 3, 4] },
  },
  {
    // https://github.com/BabylonJS/Babylon.js/blob/master/packages/dev/core/src/ShadersWGSL/gaussianSplattingSortScatter.compute.fx
    // verbatim: each slot claims its bucket's next place by `atomicAdd` on the scanned offsets
    // (one slot per bucket here: the order of equal-bucket slots is the device's), padding zeroed.
    name: "Babylon.js gaussian splatting sort scatter (atomic offsets, padded tail)",
    source: /* wgsl */ `// Gaussian Splatting GPU depth sort - scatter pass.
struct Params {
    count : u32,
    paddedCount : u32,
    numBuckets : u32,
    pad : u32,
    coeff : vec4f,
};

@group(0) @binding(0) var<storage, read> bucket : array<u32>;
@group(0) @binding(1) var<storage, read> seed : array<f32>;
@group(0) @binding(2) var<storage, read_write> offsets : array<atomic<u32>>;
@group(0) @binding(3) var<storage, read_write> sortedIndex : array<f32>;
@group(0) @binding(4) var<uniform> params : Params;

@compute @workgroup_size(256, 1, 1)
fn main(@builtin(global_invocation_id) gid : vec3u) {
    let i = gid.x;
    if (i >= params.paddedCount) {
        return;
    }
    if (i >= params.count) {
        // Padding beyond the active count renders the reserved invisible splat 0.
        sortedIndex[i] = 0.0;
        return;
    }
    let b = bucket[i];
    let dst = atomicAdd(&offsets[b], 1u);
    sortedIndex[dst] = seed[i];
}
`,
    plain: [
      B(0, 0, Uint32Array.from({ length: 300 }, (_, i) => (i * 7) % 300)),
      B(0, 1, f(300, 0.5, 1)),
      B(0, 2, Uint32Array.from({ length: 300 }, (_, i) => i)),
      B(0, 3, new Float32Array(320)),
      B(0, 4, w(300, 320, 300, 0, { f: 0 }, { f: 0 }, { f: 0 }, { f: 0 }), true),
    ],
    workgroups: [2, 1, 1],
    params: { count: 300, paddedCount: 320, numBuckets: 300, pad: 0, coeff: [0, 0, 0, 0] },
  },
];
