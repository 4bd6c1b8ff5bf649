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
import { assemble, toolVersion } from "../tools/ptx.ts";

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
    /error {3}: Feature 'redux' requires \.target sm_80 or higher/,
  ],
  [
    "tanh.approx.f32 (PTX ISA 7.0)",
    "tanh.approx.f32 %f2, %f1;",
    ["6.5", "sm_75"],
    ["7.0", "sm_75"],
    /error {3}: Feature 'tanh' requires PTX ISA \.version 7\.0 or later/,
  ],
  [
    "add.bf16 (sm_90, PTX ISA 7.8)",
    "mov.b16 %h1, 0x3F80;\nadd.rn.bf16 %h2, %h1, %h1;",
    ["7.0", "sm_80"],
    ["7.8", "sm_90"],
    /Feature 'add\.bf16' requires \.target sm_90 or higher\n.*Feature 'add\.bf16' requires PTX ISA \.version 7\.8 or later/,
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
    /Instruction 'atom\.add\.f64\.global' requires \.target sm_60 or higher/,
  ],
  [
    "cvt.rn.bf16.f32 (sm_80)",
    "cvt.rn.bf16.f32 %h2, %f1;",
    ["7.0", "sm_75"],
    ["7.0", "sm_80"],
    /Feature 'cvt\.bf16\.f32' requires \.target sm_80 or higher/,
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
    /Feature 'activemask' requires PTX ISA \.version 6\.2 or later/,
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

Deno.test("a .target loads from the PTX ISA that introduced it (sm_52 from 4.1, sm_61 from 5.0, sm_72 from 6.1)", async () => {
  await withSimEnv({ CUDA_SIM_CC: "90" }, () => {
    using server = CudaServer.create({ library: SIM_LIBRARY });
    for (const [version, target] of [["4.1", "sm_52"], ["5.0", "sm_61"], ["6.1", "sm_72"]]) {
      const error = load(
        server,
        `${version} ${target}`,
        ptx(version, target, "add.u32 %r2, %r1, %r1;"),
      );
      assert.equal(error, undefined, `.version ${version} .target ${target}: ${error?.message}`);
    }
    const error = load(server, "4.1 sm_53", ptx("4.1", "sm_53", ""));
    assert.match(
      error?.compilerMessage ?? "",
      /line 2; error {3}: PTX \.version 4\.1 does not support \.target sm_53/,
    );
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
      "line 17; error   : Feature 'cp.async.wait_all' requires .target sm_80 or higher",
      "line 18; error   : Feature 'elect' requires PTX ISA .version 8.0 or later",
      "line 18; error   : Feature 'elect' requires .target sm_90 or higher",
      "line 19; error   : Modifier '.wait' requires .target sm_90 or higher",
      "line 19; error   : Modifier '.wait' requires PTX ISA .version 7.8 or later",
      "line 19; error   : Feature 'griddepcontrol' requires PTX ISA .version 7.8 or later",
      "line 19; error   : Instruction 'griddepcontrol' requires .target sm_90 or higher",
      "line 20; error   : Feature 'redux' requires .target sm_80 or higher",
      "line 21; error   : Modifier '.alias' requires PTX ISA .version 7.5 or later",
      "line 21; error   : Feature 'fence.proxy' requires PTX ISA .version 7.5 or later",
    ]);
  });
});

/** Statements below their target or version: [.version, .target, statement]. */
const BELOW: readonly [string, string, string][] = [
  ["7.0", "sm_75", "redux.sync.add.u32 %r2, %r1, 0xffffffff;"],
  ["6.5", "sm_75", "tanh.approx.f32 %f2, %f1;"],
  ["7.0", "sm_80", "add.rn.bf16 %h2, %h1, %h1;"],
  ["6.0", "sm_60", "match.any.sync.b32 %r2, %r1, 0xffffffff;"],
  ["6.0", "sm_52", "atom.global.add.f64 %fd2, [%rd1], 0d3FF0000000000000;"],
  ["7.0", "sm_75", "cvt.rn.bf16.f32 %h2, %f1;"],
  ["7.0", "sm_75", "fma.rn.bf16 %h2, %h1, %h1, %h1;"],
  ["7.0", "sm_75", "fma.rn.relu.f16 %h2, %h1, %h1, %h1;"],
  ["6.0", "sm_60", "dp4a.u32.u32 %r2, %r1, %r1, %r1;"],
  ["6.0", "sm_70", "activemask.b32 %r2;"],
  ["7.0", "sm_75", "mov.u32 %r2, %clusterid.x;"],
  ["7.0", "sm_75", "cp.async.wait_all;"],
  ["7.0", "sm_75", "elect.sync %r3|%p2, 0xffffffff;"],
  ["7.0", "sm_75", "griddepcontrol.wait;"],
  ["7.0", "sm_75", "fence.proxy.alias;"],
  ["7.0", "sm_80", "min.xorsign.abs.f32 %f2, %f1, %f1;"],
  ["7.0", "sm_75", "min.f16 %h2, %h1, %h1;"],
  ["7.0", "sm_75", "max.NaN.f32 %f2, %f1, %f1;"],
  ["6.5", "sm_75", "ex2.approx.f16 %h2, %h1;"],
  ["7.0", "sm_75", "atom.global.add.noftz.bf16 %h2, [%rd1], %h1;"],
  ["6.0", "sm_60", "atom.global.add.noftz.f16 %h2, [%rd1], %h1;"],
  ["7.0", "sm_75", "mapa.u64 %rd2, %rd1, %r1;"],
  ["7.0", "sm_75", "setmaxnreg.inc.sync.aligned.u32 64;"],
  ["7.0", "sm_75", "cvt.rn.satfinite.e4m3x2.f32 %h2, %f1, %f1;"],
  ["6.0", "sm_70", "nanosleep.u32 100;"],
  ["7.0", "sm_75", "atom.global.cluster.add.u32 %r2, [%rd1], 1;"],
  ["6.0", "sm_60", "fence.acq_rel.gpu;"],
  ["7.0", "sm_75", "add.u16x2 %r2, %r1, %r1;"],
  ["7.0", "sm_75", "setp.lt.bf16 %p1, %h1, %h1;"],
  ["7.0", "sm_75", "cvt.f32.bf16 %f2, %h1;"],
  ["7.0", "sm_80", "cvt.f32.bf16 %f2, %h1;"],
  ["7.0", "sm_75", "neg.bf16 %h2, %h1;"],
  ["7.0", "sm_75", "abs.bf16 %h2, %h1;"],
  ["6.0", "sm_52", "add.f16 %h2, %h1, %h1;"],
  ["6.0", "sm_52", "neg.f16 %h2, %h1;"],
  ["7.0", "sm_80", "tanh.approx.bf16 %h2, %h1;"],
  ["7.0", "sm_80", "ex2.approx.ftz.bf16 %h2, %h1;"],
  ["6.0", "sm_52", "setp.lt.f16 %p1, %h1, %h1;"],
  ["7.0", "sm_75", "cvt.rn.f16x2.f32 %r2, %f1, %f1;"],
  ["7.0", "sm_75", "cvt.rna.tf32.f32 %r2, %f1;"],
  ["7.0", "sm_80", "cvt.rn.tf32.f32 %r2, %f1;"],
  ["7.0", "sm_80", "cvt.rn.bf16.f16 %h2, %h1;"],
  ["7.0", "sm_75", "cvt.rn.relu.f16.f32 %h2, %f1;"],
  ["6.0", "sm_52", "atom.global.add.noftz.f16x2 %r2, [%rd1], %r1;"],
  ["6.0", "sm_60", "atom.global.cas.b16 %h2, [%rd1], %h1, %h1;"],
  ["6.0", "sm_60", "atom.relaxed.gpu.global.add.u32 %r2, [%rd1], 1;"],
  ["6.0", "sm_52", "atom.gpu.global.add.u32 %r2, [%rd1], 1;"],
  ["6.0", "sm_52", "red.global.add.f64 [%rd1], %fd1;"],
  ["7.0", "sm_75", "min.u16x2 %r2, %r1, %r1;"],
  ["7.0", "sm_75", "max.relu.s32 %r2, %r1, %r1;"],
  ["7.0", "sm_75", "mbarrier.init.shared.b64 [%rd1], 1;"],
  ["7.0", "sm_80", "barrier.cluster.arrive;"],
  ["7.0", "sm_75", "cp.async.ca.shared.global [%rd1], [%rd1], 4;"],
  ["7.0", "sm_80", "cp.async.bulk.commit_group;"],
  ["7.0", "sm_75", "fence.sc.cluster;"],
  ["6.0", "sm_52", "membar.proxy.alias;"],
  ["7.0", "sm_75", "ld.relaxed.cluster.global.u32 %r2, [%rd1];"],
  ["6.0", "sm_60", "bmsk.clamp.b32 %r2, %r1, %r1;"],
  ["6.0", "sm_60", "szext.clamp.s32 %r2, %r1, %r1;"],
  ["7.0", "sm_75", "griddepcontrol.launch_dependents;"],
  ["7.0", "sm_75", "mov.u32 %r2, %cluster_ctarank;"],
  ["6.0", "sm_60", "nanosleep.u32 100;"],
  ["6.0", "sm_60", "ld.relaxed.gpu.global.u32 %r2, [%rd1];"],
  ["6.0", "sm_60", "st.release.gpu.global.u32 [%rd1], %r1;"],
  ["7.0", "sm_80", "fma.rn.oob.f16 %h2, %h1, %h1, %h1;"],
  ["6.0", "sm_60", "fence.sc.gpu;"],
  ["5.0", "sm_52", "shfl.sync.idx.b32 %r2, %r1, 0, 31, 0xffffffff;"],
  ["5.0", "sm_61", "vote.sync.ballot.b32 %r2, %p1, 0xffffffff;"],
  ["4.1", "sm_53", "add.u32 %r2, %r1, %r1;"],
  ["5.0", "sm_70", "add.u32 %r2, %r1, %r1;"],
];

const ptxas = await toolVersion("ptxas").catch(() => undefined);

Deno.test({
  name: ptxas === undefined
    ? "the simulator's log for an instruction below its target is ptxas's (skipped: no ptxas)"
    : "the simulator's log for an instruction below its target or version is ptxas's, line for line",
  ignore: ptxas === undefined,
  async fn() {
    await withSimEnv({ CUDA_SIM_CC: "90" }, async () => {
      using server = CudaServer.create({ library: SIM_LIBRARY });
      const differ: string[] = [];
      for (const [version, target, body] of BELOW) {
        const text = ptx(version, target, body);
        const { ok, log } = await assemble(text, "sm_90");
        const error = load(server, body, text);
        assert.ok(!ok && error, `${body}: ptxas ${ok ? "assembled" : "refused"} it`);
        const jit = error.compilerMessage.slice(error.compilerMessage.indexOf("\n") + 1);
        const want = log.replaceAll("/dev/stdin", "application ptx input");
        if (jit !== want) {
          differ.push(`${body} (.version ${version}, .target ${target}):\n${jit}\nptxas:\n${want}`);
        }
      }
      for (const [name, body, , [version, target]] of CASES) {
        const { ok, log } = await assemble(ptx(version, target, body), "sm_90");
        assert.ok(ok, `ptxas refused ${name} at .version ${version} .target ${target}: ${log}`);
      }
      assert.deepEqual(differ, []);
    });
  },
});
