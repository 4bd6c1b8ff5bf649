/**
 * QA wave 18, engines' compute passes the earlier waves left out: Babylon.js's Gaussian splatting
 * cull and Gaussian point splatting scan and partition kernels (BabylonJS/Babylon.js,
 * `packages/dev/core/src/ShadersWGSL/`, stored versions fc7686c5 (gaussianSplattingCull),
 * 975a24a1 (gpsScanBlocks), 24704025 (ShadersInclude/gaussianPointSplattingScan), 85876402
 * (gpsPartition)), and three.js's TSL compute output (WGSLNodeBuilder's layout as in r186-r187
 * dumps: a `diagnostic( off, derivative_uniformity )` directive, storage buffers as structs
 * wrapping a runtime-sized `value` array, uniforms grouped in `objectStruct` and `renderStruct`
 * in two groups with mat3x3 members, `var<private> instanceIndex`). Each is written after its
 * source (the constructs are theirs, the code is not copied); see `_wgsl_corpus_qa18.ts`.
 */
import { B, type CorpusCase, f, u } from "./_wgsl_corpus_qa_base.ts";
import { type Member, U } from "./_wgsl_corpus_qa18_base.ts";

const CULL = {
  count: ["u32", 300],
  pad0: ["u32", 0],
  pad1: ["u32", 0],
  pad2: ["u32", 0],
  clip0: ["vec4f", [1.2, 0, 0, 0]],
  clip1: ["vec4f", [0, 0.9, 0, 0]],
  clip2: ["vec4f", [0, 0, 0.5, 1]],
  clip3: ["vec4f", [-0.1, 0.2, -2, 1.5]],
} satisfies Record<string, Member>;

/** Babylon's Blelloch scan of a 512-entry workgroup array (the include, as the #include puts it). */
const GPS_SCAN = `
const GpsMaxPointCount : u32 = 0xFFFFFF00u;

fn gpsSaturatingAdd(a : u32, b : u32) -> u32 {
    let sum = a + b;
    return select(GpsMaxPointCount, sum, sum >= a && sum <= GpsMaxPointCount);
}

var<workgroup> gpsScanTemp : array<u32, 512>;

fn gpsScanExclusive512(t : u32) -> u32 {
    var offset = 1u;
    for (var d = 256u; d > 0u; d = d >> 1u) {
        workgroupBarrier();
        if (t < d) {
            let ai = offset * (2u * t + 1u) - 1u;
            let bi = offset * (2u * t + 2u) - 1u;
            gpsScanTemp[bi] = gpsSaturatingAdd(gpsScanTemp[bi], gpsScanTemp[ai]);
        }
        offset = offset << 1u;
    }
    var total = 0u;
    if (t == 0u) {
        total = gpsScanTemp[511];
        gpsScanTemp[511] = 0u;
    }
    for (var d = 1u; d < 512u; d = d << 1u) {
        offset = offset >> 1u;
        workgroupBarrier();
        if (t < d) {
            let ai = offset * (2u * t + 1u) - 1u;
            let bi = offset * (2u * t + 2u) - 1u;
            let s = gpsScanTemp[ai];
            gpsScanTemp[ai] = gpsScanTemp[bi];
            gpsScanTemp[bi] = gpsSaturatingAdd(gpsScanTemp[bi], s);
        }
    }
    workgroupBarrier();
    return total;
}
`;

/** The shared declarations of Babylon's gaussianPointSplatting include the partition pass gets. */
const GPS_COMMON = `
const GPS_TWO_PI : f32 = 6.2831853071795864;
const GPS_U32_TO_UNIT : f32 = 2.3283064365386963e-10;
const GPS_PARTITION_BUCKETS : u32 = 65536u;

struct GpsUniforms {
    view : mat4x4f,
    viewProjection : mat4x4f,
    resNearFar : vec4f,
    params0 : vec4f,
};
`;

/** three.js's TSL compute entry: the system line computing instanceIndex from num_workgroups. */
const TSL_MAIN = `@compute @workgroup_size( 64, 1, 1 )
fn main( @builtin( global_invocation_id ) globalId : vec3<u32>,
\t@builtin( workgroup_id ) workgroupId : vec3<u32>,
\t@builtin( local_invocation_id ) localId : vec3<u32>,
\t@builtin( num_workgroups ) numWorkgroups : vec3<u32> ) {

\t// system
\tinstanceIndex = globalId.x
\t\t+ globalId.y * ( 64 * numWorkgroups.x )
\t\t+ globalId.z * ( 64 * numWorkgroups.x ) * ( 64 * numWorkgroups.y );
`;

const TSL_OBJECT = {
  nodeUniform0: ["f32", 0.016],
  nodeUniform2: ["mat3x3f", [0.8, 0.6, 0, -0.6, 0.8, 0, 0, 0, 1]],
  nodeUniform3: ["vec2f", [0.5, -0.25]],
  nodeUniform4: ["f32", 0.98],
  nodeUniform5: ["mat3x3f", [1, 0, 0, 0, 1, 0, 0.1, -0.2, 1]],
} satisfies Record<string, Member>;

const TSL_RENDER = {
  nodeUniform6: ["vec3f", [0, -9.8, 0]],
  nodeUniform7: ["f32", 4],
} satisfies Record<string, Member>;

const TSL_HIST = { nodeUniform0: ["u32", 16], nodeUniform1: ["f32", 0.125] } satisfies Record<
  string,
  Member
>;

/** The cases that run. */
export const APPS: readonly CorpusCase[] = [
  (() => {
    const uniform = U(4, CULL);
    return {
      // gaussianSplattingCull.compute.fx: a Params uniform of a count, three u32 pads and four
      // vec4f matrix columns, sorted indices stored as f32 (`u32(x + 0.5)`), the 1.2 * w bounds.
      name: "Babylon.js gaussianSplattingCull (pad fields, vec4f columns times scalars)",
      source: `
struct Params {
    count : u32,
    pad0 : u32,
    pad1 : u32,
    pad2 : u32,
    clip0 : vec4f,
    clip1 : vec4f,
    clip2 : vec4f,
    clip3 : vec4f,
};

@group(0) @binding(0) var<storage, read> positions : array<f32>;
@group(0) @binding(1) var<storage, read> sortedIndex : array<f32>;
@group(0) @binding(2) var<storage, read_write> flag : array<u32>;
@group(0) @binding(3) var<storage, read_write> offsets : array<u32>;
@group(0) @binding(4) var<uniform> params : Params;

@compute @workgroup_size(256, 1, 1)
fn main(@builtin(global_invocation_id) gid : vec3u) {
    let i = gid.x;
    if (i >= params.count) {
        return;
    }
    let src = u32(sortedIndex[i] + 0.5);
    let o = src * 4u;
    let clipPos = params.clip0 * positions[o] + params.clip1 * positions[o + 1u]
        + params.clip2 * positions[o + 2u] + params.clip3;
    let bounds = 1.2 * clipPos.w;
    var visible = 1u;
    if (clipPos.z < 0.0 || clipPos.x < -bounds || clipPos.x > bounds || clipPos.y < -bounds || clipPos.y > bounds) {
        visible = 0u;
    }
    flag[i] = visible;
    offsets[i] = visible + 2u * src;
}`,
      plain: [
        B(0, 0, f(1200, 0.07, -3.5)),
        B(0, 1, Float32Array.from({ length: 300 }, (_, i) => (i * 113) % 300)),
        B(0, 2, new Uint32Array(320).fill(9)),
        B(0, 3, new Uint32Array(320).fill(9)),
        uniform.binding,
      ],
      workgroups: [2, 1, 1],
      params: uniform.params,
    };
  })(),
  {
    // gpsScanBlocks.compute.fx with its scan include: a 512-entry workgroup array scanned in
    // place by a helper holding every barrier, a saturating add against a hex const, the block
    // from `wid.y * 65535u + wid.x`, arrayLength bounding a partial last block.
    name: "Babylon.js gpsScanBlocks (Blelloch scan in a helper, saturating hex const)",
    source: `${GPS_SCAN}
@group(0) @binding(0) var<storage, read> weights : array<u32>;
@group(0) @binding(1) var<storage, read_write> cdf : array<u32>;
@group(0) @binding(2) var<storage, read_write> blockSums : array<u32>;

@compute @workgroup_size(256, 1, 1)
fn main(@builtin(local_invocation_id) lid : vec3u, @builtin(workgroup_id) wid : vec3u) {
    let t = lid.x;
    let block = wid.y * 65535u + wid.x;
    let base = block * 512u;
    let n = arrayLength(&weights);
    let i0 = base + 2u * t;
    let i1 = base + 2u * t + 1u;

    gpsScanTemp[2u * t] = select(0u, weights[i0], i0 < n);
    gpsScanTemp[2u * t + 1u] = select(0u, weights[i1], i1 < n);

    let total = gpsScanExclusive512(t);

    if (t == 0u) {
        blockSums[block] = total;
    }
    if (i0 < n) {
        cdf[i0] = gpsScanTemp[2u * t];
    }
    if (i1 < n) {
        cdf[i1] = gpsScanTemp[2u * t + 1u];
    }
}`,
    plain: [
      B(0, 0, Uint32Array.from(u(1300, 50), (x, i) => i === 700 ? 0xfffffff0 : x)),
      B(0, 1, new Uint32Array(1300)),
      B(0, 2, new Uint32Array(4)),
    ],
    workgroups: [3, 1, 1],
  },
  {
    // gpsPartition.compute.fx after the include's consts and (unused here) GpsUniforms struct:
    // 65537 invocations (one per bucket and one past), a binary search in a `loop`, the bucket
    // start from f32 arithmetic on a u32 const.
    name: "Babylon.js gpsPartition (65536-bucket u32 const, loop binary search, arrayLength)",
    source: `${GPS_COMMON}
@group(0) @binding(0) var<storage, read> cdf : array<u32>;
@group(0) @binding(1) var<storage, read> pointCount : array<u32>;
@group(0) @binding(2) var<storage, read_write> partTable : array<u32>;

fn gpsFindGaussian(p : u32, count : u32) -> u32 {
    var lo = 0u;
    var hi = count;
    loop {
        if (lo + 1u >= hi) {
            break;
        }
        let mid = (lo + hi) >> 1u;
        if (cdf[mid] <= p) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    return lo;
}

@compute @workgroup_size(256, 1, 1)
fn main(@builtin(global_invocation_id) gid : vec3u) {
    let k = gid.x;
    if (k > GPS_PARTITION_BUCKETS) {
        return;
    }
    let total = pointCount[0];
    let count = arrayLength(&cdf);
    if (total == 0u || count == 0u) {
        partTable[k] = 0u;
        return;
    }
    var pk = u32(f32(k) / f32(GPS_PARTITION_BUCKETS) * f32(total));
    if (pk > total - 1u) {
        pk = total - 1u;
    }
    partTable[k] = gpsFindGaussian(pk, count);
}`,
    plain: [
      B(0, 0, Uint32Array.from({ length: 500 }, (_, i) => i * i * 3 + (i % 7))),
      B(0, 1, Uint32Array.from([749_000])),
      B(0, 2, new Uint32Array(65540)),
    ],
    workgroups: [257, 1, 1],
    threads: 65537,
  },
  (() => {
    const object = U(0, TSL_OBJECT, 1), render = U(0, TSL_RENDER);
    return {
      // A TSL particle update as WGSLNodeBuilder lays it out: vec3 storage arrays wrapped in
      // NodeBuffer structs, uniforms in renderStruct (@group(0)) and objectStruct (@group(1),
      // mat3x3 members between scalars and a vec2), `nodeVar` privates, a tsl_mod polyfill.
      name: "three.js TSL compute (diagnostic directive, mat3x3 uniforms in two groups)",
      source: `// Three.js r187 - Node System

// global
diagnostic( off, derivative_uniformity );


// directives


// structs

struct NodeBuffer_12Struct {
\tvalue : array< vec3<f32> >
};
@binding( 1 ) @group( 0 )
var<storage, read_write> NodeBuffer_12 : NodeBuffer_12Struct;

struct NodeBuffer_13Struct {
\tvalue : array< vec3<f32> >
};
@binding( 2 ) @group( 0 )
var<storage, read_write> NodeBuffer_13 : NodeBuffer_13Struct;

// uniforms

struct renderStruct {
\tnodeUniform6 : vec3<f32>,
\tnodeUniform7 : f32
};
@binding( 0 ) @group( 0 )
var<uniform> render : renderStruct;

struct objectStruct {
\tnodeUniform0 : f32,
\tnodeUniform2 : mat3x3<f32>,
\tnodeUniform3 : vec2<f32>,
\tnodeUniform4 : f32,
\tnodeUniform5 : mat3x3<f32>
};
@binding( 0 ) @group( 1 )
var<uniform> object : objectStruct;

// vars
var<private> instanceIndex : u32;
var<private> nodeVar0 : vec3<f32>;
var<private> nodeVar1 : vec3<f32>;

// codes
fn tsl_mod_vec2( x : vec2f, y : vec2f ) -> vec2f { return x - y * floor( x / y ); }

${TSL_MAIN}
\t// vars

\t// flow
\t// code

\tnodeVar0 = NodeBuffer_13.value[ instanceIndex ];
\tnodeVar0 = ( ( nodeVar0 + ( render.nodeUniform6 * vec3<f32>( object.nodeUniform0 ) ) ) * vec3<f32>( object.nodeUniform4 ) );
\tnodeVar1 = ( object.nodeUniform2 * ( NodeBuffer_12.value[ instanceIndex ] + ( nodeVar0 * vec3<f32>( object.nodeUniform0 ) ) ) );
\tlet nodeConst0 = ( 3 + 47 );
\tnodeVar1 = ( object.nodeUniform5 * vec3<f32>( tsl_mod_vec2( nodeVar1.xy + object.nodeUniform3, vec2<f32>( render.nodeUniform7 ) ), f32( nodeConst0 ) * nodeVar1.z ) );
\tNodeBuffer_12.value[ instanceIndex ] = nodeVar1;
\tNodeBuffer_13.value[ instanceIndex ] = nodeVar0;

}`,
      plain: [
        render.binding,
        B(0, 1, f(128 * 4, 0.3, -13)),
        B(0, 2, f(128 * 4, 0.05, -2)),
        object.binding,
      ],
      workgroups: [2, 1, 1],
      params: { render: render.params, object: object.params },
    };
  })(),
  (() => {
    const object = U(0, TSL_HIST);
    return {
      // A TSL histogram: a workgroupArray of atomics cleared and published across barriers, a
      // storage buffer of atomics wrapped in a NodeBuffer struct, `atomicAdd( &... , 1u )` with
      // TSL's spacing, the bin from a u32 uniform and an f32 scale.
      name: "three.js TSL atomic histogram (workgroup atomics array, NodeBuffer of atomics)",
      source: `// Three.js r187 - Node System

// global
diagnostic( off, derivative_uniformity );

// structs

struct NodeBuffer_3Struct {
\tvalue : array< f32 >
};
@binding( 1 ) @group( 0 )
var<storage, read> NodeBuffer_3 : NodeBuffer_3Struct;

struct NodeBuffer_4Struct {
\tvalue : array< atomic<u32> >
};
@binding( 2 ) @group( 0 )
var<storage, read_write> NodeBuffer_4 : NodeBuffer_4Struct;

// uniforms

struct objectStruct {
\tnodeUniform0 : u32,
\tnodeUniform1 : f32
};
@binding( 0 ) @group( 0 )
var<uniform> object : objectStruct;

// vars
var<private> instanceIndex : u32;
var<workgroup> nodeVar_wg0 : array< atomic<u32>, 16 >;

${TSL_MAIN}
\t// flow
\t// code

\tif ( ( localId.x < object.nodeUniform0 ) ) {
\t\tatomicStore( &nodeVar_wg0[ localId.x ], 0u );
\t}
\tworkgroupBarrier();
\tlet nodeVar2 = min( u32( max( NodeBuffer_3.value[ instanceIndex ] * object.nodeUniform1, 0.0 ) ), ( object.nodeUniform0 - 1u ) );
\tatomicAdd( &nodeVar_wg0[ nodeVar2 ], 1u );
\tworkgroupBarrier();
\tif ( ( localId.x < object.nodeUniform0 ) ) {
\t\tatomicAdd( &NodeBuffer_4.value[ localId.x ], atomicLoad( &nodeVar_wg0[ localId.x ] ) );
\t}

}`,
      plain: [object.binding, B(0, 1, f(64 * 5, 1.3)), B(0, 2, new Uint32Array(16).fill(1))],
      workgroups: [5, 1, 1],
      params: object.params,
    };
  })(),
];
