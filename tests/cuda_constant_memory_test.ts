/**
 * `__constant__` memory (PTX `.const`) on the CUDA backend: a variable the source initializes
 * reads its initializer; one without an initializer reads zeros (nothing can write it: there is
 * no `cudaMemcpyToSymbol`), and loading its module warns, naming it, instead of staying silent.
 */
import assert from "node:assert/strict";
import { createClient } from "../mod.ts";
import { SIM_LIBRARY } from "./fixtures/cuda_sim.ts";

const PTX = `
.version 7.0
.target sm_70
.address_size 64
.const .align 4 .b8 coeffs[16];
.const .align 4 .b8 table[8] = {1, 0, 0, 0, 2, 0, 0, 0};
.visible .entry read_constants(.param .u64 out_param)
{
  .reg .b32 %r<3>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [out_param];
  cvta.to.global.u64 %rd2, %rd1;
  ld.const.u32 %r1, [coeffs+4];
  ld.const.u32 %r2, [table+4];
  st.global.u32 [%rd2], %r1;
  st.global.u32 [%rd2+4], %r2;
  ret;
}
`;

Deno.test("a __constant__ variable without an initializer reads zeros, and its module load warns naming it", async () => {
  const warnings: string[] = [];
  const warn = console.warn;
  console.warn = (...args: unknown[]) => void warnings.push(args.join(" "));
  try {
    using client = await createClient({ backend: "cuda", library: SIM_LIBRARY });
    using out = client.zeros(2, "u32");
    client.execute({ ptx: PTX }, { threads: 1, buffers: [out] });
    assert.deepEqual([...await client.read(out)], [0, 2]);
  } finally {
    console.warn = warn;
  }
  const about = warnings.filter((line) => line.includes("__constant__"));
  assert.equal(about.length, 1, warnings.join("\n"));
  assert.match(about[0], /without an initializer \(coeffs\): they read zeros/);
  assert.doesNotMatch(about[0], /table/);
});
