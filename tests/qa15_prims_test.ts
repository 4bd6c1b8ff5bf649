/**
 * QA wave 15 on WebGPU: the primitives used as a NumPy / PyTorch user would (cases in
 * tests/_qa15_prims_cases.ts): uniform numbers never reach `high` (`[1, 2)` gave 2).
 */
import { createClient } from "../mod.ts";
import {
  checkAbstractInts,
  checkConstantShifts,
  checkFloatRemainder,
  checkUniformBelowHigh,
} from "./_qa15_prims_cases.ts";

const adapter = await navigator.gpu?.requestAdapter();
const ignore = adapter === null || adapter === undefined; // no WebGPU adapter on this machine

Deno.test({
  name: "random on WebGPU: uniform numbers stay below high where f32 rounding reached it",
  ignore,
  async fn() {
    using client = await createClient();
    await checkUniformBelowHigh(client);
  },
});

Deno.test({
  name: "elementwise on WebGPU: a shift by a constant of 32 or more is refused, as WGSL refuses it",
  ignore,
  async fn() {
    using client = await createClient();
    await checkConstantShifts(client);
  },
});

Deno.test({
  name: "elementwise on WebGPU: an f32 % is WGSL's x - y * trunc(x / y), rounded step by step",
  ignore,
  async fn() {
    using client = await createClient();
    await checkFloatRemainder(client);
  },
});

Deno.test({
  name: "elementwise on WebGPU: abstract int literals fold in 64 bits, as WGSL's",
  ignore,
  async fn() {
    using client = await createClient();
    await checkAbstractInts(client);
  },
});
