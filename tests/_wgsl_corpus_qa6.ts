/**
 * The QA corpus, sixth wave: real-world WGSL compute shaders from sources the first five waves
 * did not cover, each crediting its source URL; run by `webgpu_wgsl_corpus_qa6_test.ts`.
 */
import type { CorpusCase } from "./_wgsl_corpus_qa_base.ts";
import { WGPU6 } from "./_wgsl_corpus_qa6_wgpu.ts";
import { VELLO6 } from "./_wgsl_corpus_qa6_vello.ts";
import { VELLO_SCAN6 } from "./_wgsl_corpus_qa6_vello_scan.ts";
import { RATCHET6 } from "./_wgsl_corpus_qa6_ratchet.ts";
import { TVM6 } from "./_wgsl_corpus_qa6_tvm.ts";
import { BOOSTR6 } from "./_wgsl_corpus_qa6_boostr.ts";

/** The wave's cases by file. */
export const CORPUS_QA6_PARTS = { WGPU6, VELLO6, VELLO_SCAN6, RATCHET6, TVM6, BOOSTR6 } as const;

/** Every case of the sixth wave. */
export const CORPUS_QA6: readonly CorpusCase[] = Object.values(CORPUS_QA6_PARTS).flat();
