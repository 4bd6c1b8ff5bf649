/**
 * Predeclared names a module declares again, renamed in the text `wgsl_reflect` parses.
 *
 * WGSL lets a declaration shadow a predeclared type or builtin (`fn vec2(x: u32) -> u32`,
 * `let bitcast = i * 2u;`), and Deno's compiler (naga) compiles such modules; `wgsl_reflect`
 * takes the names for its types and builtins and cannot read the module. A module-scope
 * declaration shadows the name everywhere; a function-scope one only in its block, where the
 * predeclared meaning may still be used elsewhere. So a declared name is renamed `__name` (WGSL
 * reserves names starting with `__`: no user name collides) only where no use of it takes a
 * template list (`vec2<f32>`, `bitcast<u32>(x)`, `texture_2d<f32>`), which only the predeclared
 * meaning does; elsewhere the module is left as it is (the reflection's error stands). The device
 * compiles the user's text, unchanged.
 *
 * @module
 */

/** The predeclared names `wgsl_reflect` cannot read as a user's declaration (measured). */
const SHADOWABLE = new Set([
  "bool",
  "f16",
  "f32",
  "i32",
  "u32",
  "vec2",
  "vec3",
  "vec4",
  ...["2", "3", "4"].flatMap((c) => ["2", "3", "4"].map((r) => `mat${c}x${r}`)),
  "array",
  "atomic",
  "sampler",
  "sampler_comparison",
  "texture_1d",
  "texture_2d",
  "texture_2d_array",
  "texture_3d",
  "texture_cube",
  "texture_cube_array",
  "texture_multisampled_2d",
  "texture_storage_1d",
  "texture_storage_2d",
  "texture_storage_2d_array",
  "texture_storage_3d",
  "texture_depth_2d",
  "texture_depth_2d_array",
  "texture_depth_cube",
  "texture_depth_cube_array",
  "texture_depth_multisampled_2d",
  "texture_external",
  "bitcast",
]);

/** Whether `name` is a predeclared name this module renames when declared (for `unmangle`). */
export function isShadowable(name: string): boolean {
  return SHADOWABLE.has(name);
}

const DECLARED =
  /(?<![\p{XID_Continue}])(?:fn|struct|alias|let|const|override|var(?:\s*<[^>]*>)?)\s+([\p{XID_Start}_]\p{XID_Continue}*)/gu;

/**
 * `text` (comments masked) with each shadowed predeclared name renamed `__name` where no use of
 * it takes a template list (see the module doc).
 */
export function renameShadowed(text: string): string {
  const names = new Set<string>();
  for (const m of text.matchAll(DECLARED)) if (SHADOWABLE.has(m[1])) names.add(m[1]);
  for (const name of names) {
    const token = new RegExp(`(?<![\\p{XID_Continue}])${name}(?![\\p{XID_Continue}])`, "gu");
    const templated = new RegExp(`(?<![\\p{XID_Continue}])${name}\\s*<`, "u");
    if (!templated.test(text)) text = text.replace(token, `__${name}`);
  }
  return text;
}
