/**
 * The QA corpus, seventeenth wave: real-world WGSL compute shaders from sources the earlier
 * waves did not cover, each crediting its source (a stored version of its repository): gpu.cpp's
 * examples (`_wgsl_corpus_qa17_gpucpp.ts`), wgpu-py's examples and texture tests
 * (`_wgsl_corpus_qa17_wgpupy.ts`), kishimisu's
 * radix sort (`_wgsl_corpus_qa17_radix.ts`); run by `webgpu_wgsl_corpus_qa17_test.ts`.
 */
import { APPS } from "./_wgsl_corpus_qa17_apps.ts";
import type { CorpusCase } from "./_wgsl_corpus_qa_base.ts";
import { GPUCPP } from "./_wgsl_corpus_qa17_gpucpp.ts";
import { JAX } from "./_wgsl_corpus_qa17_jax.ts";
import { RADIX, RADIX_REFUSED } from "./_wgsl_corpus_qa17_radix.ts";
import { WGPU_PY, WGPU_PY_REFUSED } from "./_wgsl_corpus_qa17_wgpupy.ts";

/** The wave's cases plain WebGPU runs. */
export const CORPUS_QA17: readonly CorpusCase[] = [
  ...GPUCPP,
  ...WGPU_PY,
  ...RADIX,
  ...APPS,
  ...JAX,
];

/** The wave's cases plain WebGPU refuses, which the client must refuse with a typed error. */
export const REFUSED17: readonly CorpusCase[] = [...WGPU_PY_REFUSED, ...RADIX_REFUSED];
