/**
 * `deno task check` step: the user entry point (`mod.ts`) exports at most 64 names, values and
 * types together, so that a leak of internals is a visible failure.
 *
 * @module
 */

export const MAX_USER_EXPORTS = 110; // recordKernels and KernelRecording (#30: generated kernels exposed for debugging); launch graphs (#29: LaunchGraph, CaptureOptions, ReplayOptions) and textures (#27: Texture, TextureFormat, SamplerDescriptor, CreateTextureOptions); the primitives users reach for (#30: scan, sort, argsort, argmax, argmin, topk, histogram, bincount, scatterAdd, segmentReduce, random, matmul, transpose, gather, their options and results: +34); the backend registry (#25, #26: BackendUnavailableError, CreateRegisteredClientOptions); 68 before (64 before several devices, #21)

/** The names exported by `export { ... }` / `export type { ... }` lists in `source`. */
export function exportedNames(source: string): string[] {
  const names: string[] = [];
  for (const match of source.matchAll(/export\s+(?:type\s+)?\{([^}]*)\}/g)) {
    for (const item of match[1].split(",")) {
      const name = item.trim().replace(/^type\s+/, "").split(/\s+as\s+/).pop()?.trim();
      if (name) names.push(name);
    }
  }
  return names;
}

if (import.meta.main) {
  const source = await Deno.readTextFile(new URL("../mod.ts", import.meta.url));
  if (/export\s+\*/.test(source)) throw new Error("mod.ts must list its exports explicitly");
  const names = exportedNames(source);
  if (names.length > MAX_USER_EXPORTS) {
    console.error(`mod.ts exports ${names.length} names, the limit is ${MAX_USER_EXPORTS}`);
    Deno.exit(1);
  }
  console.log(`mod.ts exports ${names.length} names (at most ${MAX_USER_EXPORTS})`);
}
