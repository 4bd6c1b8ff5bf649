/**
 * Data helpers of the eighteenth QA wave (`_wgsl_corpus_qa18.ts`): uniform structs laid out as
 * WGSL lays them out, with the client's params of the same values.
 */
import type { PlainBinding } from "./_plain_webgpu.ts";
import { B } from "./_wgsl_corpus_qa_base.ts";

/** Alignment and size of the member types the wave's uniforms use. */
const LAYOUT = {
  u32: [4, 4],
  i32: [4, 4],
  f32: [4, 4],
  vec2u: [8, 8],
  vec2f: [8, 8],
  vec3u: [16, 12],
  vec3f: [16, 12],
  vec4u: [16, 16],
  vec4f: [16, 16],
  vec4u2: [16, 32],
  mat3x3f: [16, 48],
  mat4x4f: [16, 64],
} as const;

/** A uniform member: its WGSL type and value (arrays of vec4 as nested arrays). */
export type Member = readonly [
  keyof typeof LAYOUT,
  number | readonly number[] | readonly (readonly number[])[],
];

/** The uniform bytes of `members` laid out as WGSL lays out a struct in the uniform space. */
export function uniforms(members: Record<string, Member>): Uint8Array<ArrayBuffer> {
  const placed: [number, Member][] = [];
  let end = 0;
  for (const m of Object.values(members)) {
    const [align, size] = LAYOUT[m[0]];
    const at = Math.ceil(end / align) * align;
    placed.push([at, m]);
    end = at + size;
  }
  const bytes = new Uint8Array(Math.ceil(end / 16) * 16);
  const view = new DataView(bytes.buffer);
  for (const [at, [type, value]] of placed) {
    [value].flat(2).forEach((v, k) => {
      // A mat3x3f's columns are 16 bytes apart.
      const byte = at + (type === "mat3x3f" ? 16 * Math.floor(k / 3) + 4 * (k % 3) : 4 * k);
      if (type.includes("f")) view.setFloat32(byte, v, true);
      else if (type === "i32") view.setInt32(byte, v, true);
      else view.setUint32(byte, v, true);
    });
  }
  return bytes;
}

/** The client's params of `members` (the values under the member names). */
export const paramsOf = (members: Record<string, Member>): Record<string, Member[1]> =>
  Object.fromEntries(Object.entries(members).map(([k, [, v]]) => [k, v]));

/** A uniform binding (in `group`) and the matching params. */
export const U = (
  binding: number,
  members: Record<string, Member>,
  group = 0,
): { binding: PlainBinding; params: Record<string, Member[1]> } => ({
  binding: B(group, binding, uniforms(members), true),
  params: paramsOf(members),
});
