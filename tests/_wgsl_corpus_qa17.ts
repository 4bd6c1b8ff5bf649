/**
 * The QA corpus, seventeenth wave: real-world WGSL compute shaders from sources the earlier
 * waves did not cover, each written after its source (a stored version of its repository,
 * credited; the constructs are theirs, the code is not copied): gpu.cpp's examples
 * (`_wgsl_corpus_qa17_gpucpp.ts`), wgpu-py's examples and texture tests
 * (`_wgsl_corpus_qa17_wgpupy.ts`), kishimisu's radix sort (`_wgsl_corpus_qa17_radix.ts`), the
 * compute passes of toji's metaballs, webgpu-samples and Bevy (`_wgsl_corpus_qa17_apps.ts`),
 * jax-js's generated kernels (`_wgsl_corpus_qa17_jax.ts`), and const expressions of vectors and
 * matrices the runtime refused (`_wgsl_corpus_qa17_consts.ts`); run by
 * `webgpu_wgsl_corpus_qa17_test.ts`.
 */
import { APPS } from "./_wgsl_corpus_qa17_apps.ts";
import {
  CONSTS,
  CONSTS_ALIAS,
  CONSTS_F16,
  CONSTS_F32,
  CONSTS_I64,
  CONSTS_OVERRIDE,
  CONSTS_REFUSED,
} from "./_wgsl_corpus_qa17_consts.ts";
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
  ...CONSTS,
  CONSTS_I64,
  CONSTS_F16,
  CONSTS_F32,
  CONSTS_OVERRIDE,
  CONSTS_ALIAS,
];

/** The wave's cases plain WebGPU refuses, which the client must refuse with a typed error. */
export const REFUSED17: readonly CorpusCase[] = [
  ...WGPU_PY_REFUSED,
  ...RADIX_REFUSED,
  ...CONSTS_REFUSED,
];
