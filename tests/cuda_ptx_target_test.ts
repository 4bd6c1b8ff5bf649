/**
 * The simulator refuses at load, as NVIDIA's JIT (ptxas) does, an instruction that needs a newer
 * `.target` or `.version` than its module declares (CUDA_ERROR_INVALID_PTX, the log naming the
 * instruction, its line and the requirement of the PTX ISA document), and loads and runs the
 * same instruction under the target and version that have it. The runtime's CompilationError
 * carries that log and the line.
 */
import assert from "node:assert/strict";
import { CompilationError } from "../backend.ts";
import { CudaServer } from "../runtime/server/cuda/mod.ts";
import { SIM_LIBRARY, withSimEnv } from "./fixtures/cuda_sim.ts";

/** A kernel of one thread: `body` between a u32 register file and `ret`. */
function ptx(version: string, target: string, body: string): string {
  return `.version ${version}
.target ${target}
.address_size 64

.visible .entry f(.param .u64 out)
{
.reg .pred %p<4>;
.reg .b16 %h<4>;
.reg .b32 %r<8>;
.reg .f32 %f<4>;
.reg .b64 %rd<4>;
.reg .f64 %fd<4>;
ld.param.u64 %rd1, [out];
mov.u32 %r1, 3;
mov.f32 %f1, 0f3F000000;
${body}
ret;
}
`;
}
/** The line of `body`'s first statement in `ptx(...)`. */
const BODY_LINE = 16;

/** [instruction, its statement, below (version, target), at (version, target), the log's words]. */
const CASES: readonly [string, string, [string, string], [string, string], RegExp][] = [
  [
    "redux.sync (sm_80)",
    "redux.sync.add.u32 %r2, %r1, 0xffffffff;",
    ["7.0", "sm_75"],
    ["7.0", "sm_80"],
    /error {3}: Instruction 'redux' requires \.target sm_80 or higher/,
  ],
  [
    "tanh.approx.f32 (PTX ISA 7.0)",
    "tanh.approx.f32 %f2, %f1;",
    ["6.5", "sm_75"],
    ["7.0", "sm_75"],
    /error {3}: Instruction 'tanh' requires PTX ISA \.version 7\.0 or later/,
  ],
  [
    "add.bf16 (sm_90, PTX ISA 7.8)",
    "mov.b16 %h1, 0x3F80;\nadd.rn.bf16 %h2, %h1, %h1;",
    ["7.0", "sm_80"],
    ["7.8", "sm_90"],
    /Feature '\.bf16' requires PTX ISA \.version 7\.8 or later\n.*Feature '\.bf16' requires \.target sm_90 or higher/,
  ],
  [
    "match.sync (sm_70)",
    "match.any.sync.b32 %r2, %r1, 0xffffffff;",
    ["6.0", "sm_60"],
    ["6.0", "sm_70"],
    /Instruction 'match' requires \.target sm_70 or higher/,
  ],
  [
    "atom.add.f64 (sm_60)",
    "atom.global.add.f64 %fd2, [%rd1], 0d3FF0000000000000;",
    ["6.0", "sm_52"],
    ["6.0", "sm_60"],
    /Feature '\.add\.f64' requires \.target sm_60 or higher/,
  ],
  [
    "cvt.rn.bf16.f32 (sm_80)",
    "cvt.rn.bf16.f32 %h2, %f1;",
    ["7.0", "sm_75"],
    ["7.0", "sm_80"],
    /Feature 'bf16' requires \.target sm_80 or higher/,
  ],
  [
    "fma.rn.bf16 (sm_80)",
    "mov.b16 %h1, 0x3F80;\nfma.rn.bf16 %h2, %h1, %h1, %h1;",
    ["7.0", "sm_75"],
    ["7.0", "sm_80"],
    /Feature '\.bf16' requires \.target sm_80 or higher/,
  ],
  [
    "dp4a (sm_61)",
    "dp4a.u32.u32 %r2, %r1, %r1, %r1;",
    ["6.0", "sm_60"],
    ["6.0", "sm_61"],
    /Instruction 'dp4a' requires \.target sm_61 or higher/,
  ],
  [
    "activemask (PTX ISA 6.2)",
    "activemask.b32 %r2;",
    ["6.0", "sm_70"],
    ["6.2", "sm_70"],
    /Instruction 'activemask' requires PTX ISA \.version 6\.2 or later/,
  ],
];

/** Loads `text` on a simulated device of compute capability 9.0: undefined, or the error. */
function load(server: CudaServer, id: string, text: string): CompilationError | undefined {
  try {
    server.compile({ id, ptx: text, entryPoint: "f", blockSize: [1, 1, 1] });
    return undefined;
  } catch (error) {
    assert.ok(error instanceof CompilationError, `${id}: ${error}`);
    return error;
  }
}

Deno.test("an instruction below its .target or .version is CUDA_ERROR_INVALID_PTX naming it; at them it loads", async () => {
  await withSimEnv({ CUDA_SIM_CC: "90" }, () => {
    using server = CudaServer.create({ library: SIM_LIBRARY });
    for (const [name, body, [v0, t0], [v1, t1], words] of CASES) {
      const refused = load(server, `below ${name}`, ptx(v0, t0, body));
      assert.ok(refused, `${name} under .version ${v0} .target ${t0} loaded`);
      const line = BODY_LINE + body.split("\n").length - 1;
      assert.equal(refused.line, line, name);
      assert.match(refused.message, /CUDA_ERROR_INVALID_PTX \(218\)/, name);
      assert.match(refused.compilerMessage, words, name);
      assert.match(
        refused.compilerMessage,
        new RegExp(`ptxas application ptx input, line ${line}; error {3}: `),
        name,
      );
      assert.match(refused.compilerMessage, /ptxas fatal {3}: Ptx assembly aborted due to errors$/);
      assert.equal(load(server, `at ${name}`, ptx(v1, t1, body)), undefined, name);
    }
  });
});

Deno.test("every statement that needs more is reported, each at its line; cluster registers and sm_90 instructions too", async () => {
  await withSimEnv({ CUDA_SIM_CC: "90" }, () => {
    using server = CudaServer.create({ library: SIM_LIBRARY });
    const body = [
      "mov.u32 %r2, %clusterid.x;", // 16
      "cp.async.wait_all;", // 17
      "@%p1 elect.sync %r3|%p2, 0xffffffff;", // 18
      "$L1: griddepcontrol.wait;", // 19
      "add.u32 %r4, %r1, %r1; redux.sync.or.b32 %r5, %r1, 0xffffffff;", // 20
      "fence.proxy.alias;", // 21
    ].join("\n");
    const error = load(server, "many", ptx("7.0", "sm_75", body));
    assert.ok(error);
    assert.equal(error.line, 16);
    const lines = error.compilerMessage.split("\n").filter((l) => l.includes("error   :"));
    assert.deepEqual(lines.map((l) => l.replace(/^ptxas application ptx input, /, "")), [
      "line 16; error   : Feature '%clusterid' requires PTX ISA .version 7.8 or later",
      "line 16; error   : Feature '%clusterid' requires .target sm_90 or higher",
      "line 17; error   : Instruction 'cp.async' requires .target sm_80 or higher",
      "line 18; error   : Instruction 'elect' requires PTX ISA .version 8.0 or later",
      "line 18; error   : Instruction 'elect' requires .target sm_90 or higher",
      "line 19; error   : Instruction 'griddepcontrol' requires PTX ISA .version 7.8 or later",
      "line 19; error   : Instruction 'griddepcontrol' requires .target sm_90 or higher",
      "line 20; error   : Instruction 'redux' requires .target sm_80 or higher",
      "line 21; error   : Feature 'fence.proxy' requires PTX ISA .version 7.5 or later",
    ]);
  });
});
