/**
 * The QA corpus, fifth wave: real-world WGSL compute shaders from sources the first four waves
 * did not cover, each crediting its source URL; run by `webgpu_wgsl_corpus_qa5_test.ts`.
 */
import type { CorpusCase } from "./_wgsl_corpus_qa_base.ts";
import { ML5 } from "./_wgsl_corpus_qa5_ml.ts";
import { ORT5 } from "./_wgsl_corpus_qa5_ort.ts";
import { BABYLON5 } from "./_wgsl_corpus_qa5_babylon.ts";
import { PLAYCANVAS5 } from "./_wgsl_corpus_qa5_playcanvas.ts";
import { CUBECL5 } from "./_wgsl_corpus_qa5_cubecl.ts";
import { LANG5 } from "./_wgsl_corpus_qa5_lang.ts";
import { TFJS5 } from "./_wgsl_corpus_qa5_tfjs.ts";

/** The wave's cases by file. */
export const CORPUS_QA5_PARTS = {
  ML5,
  ORT5,
  TFJS5,
  BABYLON5,
  PLAYCANVAS5,
  CUBECL5,
  LANG5,
} as const;

/** Every case of the fifth wave. */
export const CORPUS_QA5: readonly CorpusCase[] = Object.values(CORPUS_QA5_PARTS).flat();
