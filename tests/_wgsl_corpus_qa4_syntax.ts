/**
 * QA wave 4, WGSL as generators and bundlers emit it and as the spec's grammar allows it:
 * three.js node-builder output, a minified module on one line, CRLF line endings with tabs and
 * no trailing newline, aliases named like address spaces, struct members named like keywords,
 * pointer parameters in every address space; see `_wgsl_corpus_qa4.ts`.
 */
import { B, type CorpusCase, f } from "./_wgsl_corpus_qa_base.ts";
import { w } from "./_wgsl_corpus_qa3_base.ts";

export const SYNTAX4: readonly CorpusCase[] = [
  {
    // three.js WGSLNodeBuilder compute output (src/renderers/webgpu/nodes/WGSLNodeBuilder.js,
    // https://github.com/mrdoob/three.js/blob/dev/src/renderers/webgpu/nodes/WGSLNodeBuilder.js
    // _getWGSLComputeCode and _getWGSLStructBinding): `@binding( 0 ) @group( 0 )` (binding
    // first, spaces inside), the struct declared before its binding, `var<private>
    // instanceIndex` computed from num_workgroups, `NodeBuffer_N` names, a TSL `nodeVar`.
    name: "three.js WebGPURenderer compute output (@binding( 0 ) @group( 0 ), var<private>)",
    source: /* wgsl */ `// Three.js r171 - Node System

// directives


// system
var<private> instanceIndex : u32;

// locals


// structs

struct NodeBuffer_554Struct {
\tvalue : array< vec3<f32> >
};
@binding( 0 ) @group( 0 )
var<storage, read_write> NodeBuffer_554 : NodeBuffer_554Struct;
struct NodeBuffer_555Struct {
\tvalue : array< f32 >
};
@binding( 1 ) @group( 0 )
var<storage, read_write> NodeBuffer_555 : NodeBuffer_555Struct;

// uniforms
struct objectStruct {
\tnodeUniform3 : f32,
\tnodeUniform4 : vec3<f32>
};
@binding( 2 ) @group( 0 )
var<uniform> object : objectStruct;

// codes


@compute @workgroup_size( 64 )
fn main( @builtin( global_invocation_id ) globalId : vec3<u32>,
\t@builtin( workgroup_id ) workgroupId : vec3<u32>,
\t@builtin( local_invocation_id ) localId : vec3<u32>,
\t@builtin( num_workgroups ) numWorkgroups : vec3<u32> ) {

\t// system
\tinstanceIndex = globalId.x + globalId.y * numWorkgroups.x * u32(64) + globalId.z * numWorkgroups.x * numWorkgroups.y * u32(64);

\t// vars
\tvar nodeVar0 : vec3<f32>;

\t// flow
\t// code
\tnodeVar0 = NodeBuffer_554.value[ instanceIndex ];
\tNodeBuffer_554.value[ instanceIndex ] = ( nodeVar0 + ( object.nodeUniform4 * vec3<f32>( NodeBuffer_555.value[ instanceIndex ] ) ) );
\tNodeBuffer_555.value[ instanceIndex ] = ( NodeBuffer_555.value[ instanceIndex ] - object.nodeUniform3 );

}
`,
    plain: [
      B(0, 0, f(512, 0.25)),
      B(0, 1, f(128, 0.5, -3)),
      B(0, 2, w({ f: 0.125 }, 0, 0, 0, { f: 1 }, { f: -2 }, { f: 0.5 }, 0), true),
    ],
    workgroups: [2, 1, 1],
    params: { nodeUniform3: 0.125, nodeUniform4: [1, -2, 0.5] },
  },
  {
    // Skia's SkSL-to-WGSL compute output, tests/sksl/compute/BuiltinStageInputs.wgsl
    // (https://github.com/google/skia/blob/main/tests/sksl/compute/BuiltinStageInputs.wgsl),
    // verbatim: `diagnostic(off, chromium.unreachable_code)` (a dotted rule name), every
    // builtin in a struct parameter (num_workgroups among them), names starting with `_`.
    name: "Skia SkSL compute output (dotted diagnostic rule, builtins struct, _storage0)",
    source: /* wgsl */ `diagnostic(off, derivative_uniformity);
diagnostic(off, chromium.unreachable_code);
struct CSIn {
  @builtin(global_invocation_id) sk_GlobalInvocationID: vec3<u32>,
  @builtin(local_invocation_id) sk_LocalInvocationID: vec3<u32>,
  @builtin(local_invocation_index) sk_LocalInvocationIndex: u32,
  @builtin(num_workgroups) sk_NumWorkgroups: vec3<u32>,
  @builtin(workgroup_id) sk_WorkgroupID: vec3<u32>,
};
struct outputs {
  outputBuffer: array<u32>,
};
@group(0) @binding(0) var<storage, read_write> _storage0 : outputs;
fn helper_I(_stageIn: CSIn) -> u32 {
  {
    return ((_stageIn.sk_NumWorkgroups.x + _stageIn.sk_WorkgroupID.x) + _stageIn.sk_LocalInvocationID.x) + _stageIn.sk_GlobalInvocationID.x;
  }
}
fn _skslMain(_stageIn: CSIn) {
  {
    let _skTemp1 = helper_I(_stageIn);
    _storage0.outputBuffer[_stageIn.sk_LocalInvocationIndex] = _skTemp1;
  }
}
@compute @workgroup_size(64, 1, 1) fn main(_stageIn: CSIn) {
  _skslMain(_stageIn);
}
`,
    plain: [B(0, 0, new Uint32Array(64))],
    workgroups: [1, 1, 1],
  },
  {
    // Tint's test/tint/builtins/gen/literal/max/320815.wgsl
    // (https://dawn.googlesource.com/dawn/+/refs/heads/main/test/tint/builtins/gen/literal/max/320815.wgsl),
    // its license header left out: the binding in `@group(2)` (groups 0 and 1 empty), declared
    // after the helper that writes it, vertex and fragment entry points beside `compute_main`.
    name: "Tint builtins/gen max_320815 (binding in group 2 only, declared after its use)",
    entryPoint: "compute_main",
    source: /* wgsl */ `fn max_320815() {
  var res : vec2<u32> = max(vec2<u32>(1u), vec2<u32>(1u));
  prevent_dce = res;
}

@group(2) @binding(0) var<storage, read_write> prevent_dce : vec2<u32>;

@vertex
fn vertex_main() -> @builtin(position) vec4<f32> {
  max_320815();
  return vec4<f32>();
}

@fragment
fn fragment_main() {
  max_320815();
}

@compute @workgroup_size(1)
fn compute_main() {
  max_320815();
}
`,
    plain: [B(2, 0, Uint32Array.of(7, 9))],
    workgroups: [1, 1, 1],
  },
  {
    // Tint's test/tint/builtins/gen/literal/workgroupUniformLoad/7a857c.wgsl, license header
    // left out: `workgroupUniformLoad(&(arg_0))` (a parenthesized address-of) into a scalar
    // `f32` storage binding named `prevent_dce`.
    name: "Tint builtins/gen workgroupUniformLoad_7a857c (&(arg_0), scalar f32 binding)",
    source: /* wgsl */ `@group(0) @binding(0) var<storage, read_write> prevent_dce : f32;

var<workgroup> arg_0 : f32;

fn workgroupUniformLoad_7a857c() -> f32 {
  var res : f32 = workgroupUniformLoad(&(arg_0));
  return res;
}

@compute @workgroup_size(1)
fn compute_main() {
  prevent_dce = workgroupUniformLoad_7a857c();
}
`,
    plain: [B(0, 0, Float32Array.of(5))],
    workgroups: [1, 1, 1],
  },
];
