/**
 * QA wave 15 on WebGPU: the primitives used as a NumPy / PyTorch user would (cases in
 * tests/_qa15_prims_cases.ts): uniform numbers never reach `high` (`[1, 2)` gave 2).
 */
import assert from "node:assert/strict";
import { createClient } from "../mod.ts";
import {
  checkAbstractInts,
  checkConstantShifts,
  checkFloatRemainder,
  checkUniformBelowHigh,
  remainderInputs,
} from "./_qa15_prims_cases.ts";
import { wgslRemainders } from "./_wgsl_remainder.ts";

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
  name: "elementwise on WebGPU: an f32 % is WGSL's x - y * trunc(x / y), within WGSL's accuracy",
  ignore,
  async fn() {
    using client = await createClient();
    await checkFloatRemainder(client, false);
  },
});

Deno.test("WGSL's f32 % allows the steps' accuracy, and neither C's fmodf nor a floored modulo", () => {
  const f = Math.fround;
  const has = (x: number, y: number, r: number) => wgslRemainders(x, y)?.some((v) => v === r);
  // 1e10 / 3 = 3333333333.3: f32 quotients 256 apart. Rounded to nearest, step by step: 0; the
  // quotient 1 ULP up with x - y * t fused: -512 (an H100 through Vulkan); C's fmodf: 1.
  assert.equal(has(1e10, 3, 0), true);
  assert.equal(has(1e10, 3, -512), true);
  assert.equal(has(1e10, 3, 1), false);
  assert.equal(has(1e10, 3, 256 * 5), false); // the quotient 3 ULP off
  // Truncated, not floored: -7.5 % 2 is -1.5, Python's 0.5 is refused; 7.3 % 0.1 keeps f32 rounding.
  assert.deepEqual(wgslRemainders(-7.5, 2), [-1.5]);
  assert.equal(has(f(7.3), f(0.1), f(f(7.3) - f(f(0.1) * 72))), true);
  // Anything where a step is infinite or NaN, or the divisor outside [2^-126, 2^126].
  for (const [x, y] of [[5, 0], [0.5, -Infinity], [NaN, 1], [1, -1e-40], [1, 3.4e38]]) {
    assert.equal(wgslRemainders(x, y), undefined, `${x} % ${y}`);
  }
  // Subnormal results may be flushed; zeros are one value.
  assert.deepEqual(wgslRemainders(f(3e-39), 1)?.sort(), [0, f(3e-39)].sort());
  assert.deepEqual(wgslRemainders(-0, 2), [0]);
  // Over the test's inputs: the step-by-step reference is always allowed, and fmodf (exact) is
  // refused where the quotient is past 2^24 (its truncation is no f32 quotient's), a floored
  // modulo where the signs differ.
  const { x, y } = remainderInputs();
  let fmodRefused = 0, flooredRefused = 0, checked = 0;
  for (let i = 0; i < x.length; i++) {
    const allowed = wgslRemainders(x[i], y[i]);
    if (allowed === undefined) continue;
    checked++;
    const stepwise = f(x[i] - f(y[i] * Math.trunc(f(x[i] / y[i]))));
    assert.ok(allowed.some((r) => r === stepwise), `${x[i]} % ${y[i]}: ${stepwise} in ${allowed}`);
    const fmod = f(x[i] % y[i]); // JavaScript's % is C's fmod, exact
    if (!allowed.some((r) => r === fmod)) fmodRefused++;
    const floored = f(x[i] - f(y[i] * Math.floor(f(x[i] / y[i]))));
    if (!allowed.some((r) => r === floored)) flooredRefused++;
    assert.ok(allowed.length <= 24, `${x[i]} % ${y[i]}: ${allowed.length} results`);
  }
  assert.ok(checked > 400, `${checked}`);
  assert.ok(fmodRefused > 50, `C's fmodf was refused ${fmodRefused} times of ${checked}`);
  assert.ok(flooredRefused > 50, `a floored modulo was refused ${flooredRefused} times`);
});

Deno.test({
  name: "elementwise on WebGPU: abstract int literals fold in 64 bits, as WGSL's",
  ignore,
  async fn() {
    using client = await createClient();
    await checkAbstractInts(client);
  },
});
