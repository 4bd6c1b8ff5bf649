/**
 * The shipped PTX (`runtime/server/cuda/kernels/ptx.ts`): generated from the `.cu` sources as they
 * are (SHA-256 per source, always checked) and, where the same nvcc and ptxas are installed,
 * reproducibly; of a PTX ISA that drivers from r525 (CUDA 12.0) load at most, r450 (7.0) as
 * shipped; assembled by ptxas for sm_75, sm_80, sm_86, sm_89 and sm_90 where ptxas exists; loaded
 * by a simulated CUDA 12.0 driver and by a CUDA 11.0 one. The simulator's JIT log is ptxas's own
 * message for the same input.
 */
import assert from "node:assert/strict";
import { CompilationError } from "../backend.ts";
import { CUDA_KERNELS, CudaServer } from "../runtime/server/cuda/mod.ts";
import { PTX_ASSEMBLER, PTX_COMPILER, PTX_MODULES } from "../runtime/server/cuda/kernels/ptx.ts";
import {
  assemble,
  CHECKED_ARCHS,
  compileAll,
  isaText,
  ptxIsa,
  sha256,
  sources,
  toolVersion,
} from "../tools/ptx.ts";
import { SIM_LIBRARY, withSimEnv } from "./fixtures/cuda_sim.ts";

Deno.test("the committed PTX was generated from the current .cu sources (run `deno task ptx`)", async () => {
  const current = await sources();
  assert.deepEqual(Object.keys(PTX_MODULES).sort(), current.map((s) => s.name));
  for (const { name, text } of current) {
    assert.equal(PTX_MODULES[name].sourceSha256, await sha256(text), `${name}.cu changed`);
    assert.equal(PTX_MODULES[name].source, text);
  }
});

Deno.test("every shipped module is PTX ISA 7.0: drivers from r450 (CUDA 11.0) load it", () => {
  for (const [name, module] of Object.entries(PTX_MODULES)) {
    const isa = ptxIsa(module.ptx);
    assert.equal(isa !== undefined && isaText(isa), module.isa, name);
    assert.ok(isa! <= 80, `${name} is PTX ISA ${module.isa}: r525 (CUDA 12.0) loads up to 8.0`);
    assert.equal(isa, 70, `${name}: the kernels need nothing newer than ISA 7.0`);
    assert.match(module.ptx, /^\.target sm_75$/m, name);
  }
});

const [nvcc, ptxas] = await Promise.all([
  toolVersion("nvcc").catch(() => undefined),
  toolVersion("ptxas").catch(() => undefined),
]);

Deno.test({
  name: ptxas === undefined
    ? "ptxas assembles every shipped module (skipped: ptxas is not installed)"
    : `ptxas assembles every shipped module for ${CHECKED_ARCHS.join(", ")}`,
  ignore: ptxas === undefined,
  async fn() {
    for (const [name, module] of Object.entries(PTX_MODULES)) {
      for (const arch of CHECKED_ARCHS) {
        const { ok, log } = await assemble(module.ptx, arch);
        assert.ok(ok, `${name} for ${arch}: ${log}`);
      }
    }
  },
});

const sameTools = nvcc === PTX_COMPILER && ptxas === PTX_ASSEMBLER;
Deno.test({
  name: nvcc === undefined || ptxas === undefined
    ? "recompiling gives the committed PTX (skipped: nvcc or ptxas is not installed)"
    : !sameTools
    ? `recompiling gives the committed PTX (skipped: the PTX came from "${PTX_COMPILER}" and ` +
      `"${PTX_ASSEMBLER}", these are "${nvcc}" and "${ptxas}")`
    : "recompiling with nvcc and lowering with ptxas gives the committed PTX",
  ignore: !sameTools,
  async fn() {
    for (const module of await compileAll()) {
      assert.deepEqual(module, { name: module.name, ...PTX_MODULES[module.name] }, module.name);
    }
  },
});

for (const [version, driver] of [["12000", "CUDA 12.0 (r525)"], ["11000", "CUDA 11.0 (r450)"]]) {
  Deno.test(`every shipped kernel loads on a simulated ${driver} driver`, async () => {
    await withSimEnv({ CUDA_SIM_DRIVER_VERSION: version }, () => {
      using server = CudaServer.create({ library: SIM_LIBRARY });
      assert.equal(server.device.driverVersion, Number(version));
      for (const kernel of Object.values(CUDA_KERNELS)) server.compile(kernel);
      assert.equal(server.stats().moduleLoads, 3); // one per .cu file, none through NVRTC
    });
  });
}

/** Bad PTX and what the JIT says of it (on a CUDA 13.0 driver and an sm_75 device). */
const BAD_PTX: readonly [string, string][] = [
  ["a token that is no directive", ".version 7.0\n.target sm_75\n.address_size 64\n.foo 1\n"],
  [
    "an unclosed body",
    ".version 7.0\n.target sm_75\n.address_size 64\n.visible .entry f()\n{\n ret;\n",
  ],
  ["a target the version lacks", ".version 7.0\n.target sm_86\n.address_size 64\n"],
  ["a newer ISA", ".version 9.9\n.target sm_75\n.address_size 64\n"],
];

Deno.test("bad PTX is COMPILATION with the JIT's log and line", () => {
  using server = CudaServer.create({ library: SIM_LIBRARY });
  const [name, ptx] = BAD_PTX[0];
  assert.throws(
    () => server.compile({ id: "user.bad", ptx, entryPoint: "f", blockSize: [1, 1, 1] }),
    (e) => {
      assert.ok(e instanceof CompilationError, name);
      assert.equal(e.line, 4);
      assert.equal(
        e.message,
        "Kernel 'user.bad' failed to compile at line 4: cuModuleLoadDataEx(user.bad) failed " +
          "with CUDA_ERROR_INVALID_PTX (218): a PTX JIT compilation failed\n" +
          "ptxas application ptx input, line 4; fatal   : Parsing error near '.foo': syntax " +
          "error\nptxas fatal   : Ptx assembly aborted due to errors",
      );
      return true;
    },
  );
});

Deno.test({
  name: ptxas === undefined
    ? "the simulator's JIT log is ptxas's message (skipped: ptxas is not installed)"
    : "the simulator's JIT log is ptxas's message for the same PTX",
  ignore: ptxas === undefined,
  async fn() {
    using server = CudaServer.create({ library: SIM_LIBRARY });
    for (const [name, ptx] of BAD_PTX) {
      const { ok, log } = await assemble(ptx, "sm_75");
      assert.ok(!ok, name);
      let message = "";
      try {
        server.compile({ id: name, ptx, entryPoint: "f", blockSize: [1, 1, 1] });
      } catch (error) {
        message = (error as CompilationError).compilerMessage;
      }
      const jit = message.slice(message.indexOf("\n") + 1);
      assert.equal(jit, log.replaceAll("/dev/stdin", "application ptx input"), name);
    }
  },
});
