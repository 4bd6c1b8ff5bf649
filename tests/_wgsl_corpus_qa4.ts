/**
 * The QA corpus, fourth wave: real-world WGSL compute shaders from sources the first three
 * waves did not cover (`_wgsl_corpus_qa.ts`, `_wgsl_corpus_qa2.ts`, `_wgsl_corpus_qa3.ts`), each
 * crediting its source URL; run by `webgpu_wgsl_corpus_qa4_test.ts`.
 */
import type { CorpusCase } from "./_wgsl_corpus_qa_base.ts";
import { SORT4 } from "./_wgsl_corpus_qa4_sort.ts";
import { SYNTAX4 } from "./_wgsl_corpus_qa4_syntax.ts";
import { LANG4 } from "./_wgsl_corpus_qa4_lang.ts";
import { PHYSICS4 } from "./_wgsl_corpus_qa4_physics.ts";
import { ML4 } from "./_wgsl_corpus_qa4_ml.ts";
import { GRAPHICS4 } from "./_wgsl_corpus_qa4_graphics.ts";

/** The wave's cases by file. */
export const CORPUS_QA4_PARTS = { SORT4, SYNTAX4, LANG4, PHYSICS4, ML4, GRAPHICS4 } as const;

/** Every case of the fourth wave. */
export const CORPUS_QA4: readonly CorpusCase[] = Object.values(CORPUS_QA4_PARTS).flat();
