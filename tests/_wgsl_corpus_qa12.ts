/**
 * The QA corpus, twelfth wave: real-world WGSL compute shaders from sources the earlier waves
 * did not cover, each crediting its source; run by `webgpu_wgsl_corpus_qa12_test.ts`.
 */
import type { CorpusCase } from "./_wgsl_corpus_qa_base.ts";
import { RWKV12 } from "./_wgsl_corpus_qa12_rwkv.ts";
import { RWKV_MATMUL12 } from "./_wgsl_corpus_qa12_rwkv_matmul.ts";
import { VELLO12 } from "./_wgsl_corpus_qa12_vello.ts";
import { VELLO_BINNING12 } from "./_wgsl_corpus_qa12_vello_binning.ts";
import { VELLO_CLIP12 } from "./_wgsl_corpus_qa12_vello_clip.ts";
import { SAMPLES12 } from "./_wgsl_corpus_qa12_samples.ts";
import { DAWN12 } from "./_wgsl_corpus_qa12_dawn.ts";
import { APPS12 } from "./_wgsl_corpus_qa12_apps.ts";
import { LAB12 } from "./_wgsl_corpus_qa12_lab.ts";

/** The wave's cases by file. */
export const CORPUS_QA12_PARTS = {
  RWKV12,
  RWKV_MATMUL12,
  VELLO12,
  VELLO_BINNING12,
  VELLO_CLIP12,
  SAMPLES12,
  DAWN12,
  APPS12,
  LAB12,
} as const;

/** Every case of the twelfth wave. */
export const CORPUS_QA12: readonly CorpusCase[] = Object.values(CORPUS_QA12_PARTS).flat();
