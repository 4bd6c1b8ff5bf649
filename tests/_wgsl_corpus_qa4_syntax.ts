/**
 * QA wave 4, WGSL as generators and bundlers emit it and as the spec's grammar allows it:
 * three.js node-builder output, a minified module on one line, CRLF line endings with tabs and
 * no trailing newline, aliases named like address spaces, struct members named like keywords,
 * pointer parameters in every address space; see `_wgsl_corpus_qa4.ts`.
 */
import { B, type CorpusCase, f, u } from "./_wgsl_corpus_qa_base.ts";
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
];
