/**
 * Reflection defects the fourth QA wave's WGSL corpus (`_wgsl_corpus_qa4.ts`) found, each
 * reduced to the construct that was misread.
 */
import assert from "node:assert/strict";
import { reflectKernel } from "../runtime/server/webgpu/compile/_reflect.ts";

Deno.test("an override derived from an override without a default has the derived type", () => {
  // After Dawn's overridable-constant tests: `override OFFSET = SCALE * f32(TWICE);` with
  // `override SCALE: f32;` was refused ("override 'OFFSET' has no type the runtime can tell"):
  // the type was read by evaluating the default, which has no value until SCALE is given.
  const source = `override SCALE: f32;
override LANES: u32;
override OFFSET = SCALE * f32(LANES * 2u);
override HALF = LANES / 2u;
override SIGN = -i32(LANES);
override ON = SCALE > 1.0;
@group(0) @binding(0) var<storage, read_write> io: array<f32>;
@compute @workgroup_size(HALF)
fn main(@builtin(local_invocation_index) l: u32) {
  io[l] = select(OFFSET, f32(SIGN), ON);
}`;
  const types = Object.fromEntries(
    reflectKernel({ source }).overrides.map((o) => [o.name, [o.type, o.required]]),
  );
  assert.deepEqual(types, {
    SCALE: ["f32", true],
    LANES: ["u32", true],
    OFFSET: ["f32", false],
    HALF: ["u32", false],
    SIGN: ["i32", false],
    ON: ["bool", false],
  });
});
