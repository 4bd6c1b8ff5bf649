/**
 * The QA corpus, second wave: real-world WGSL compute shaders from sources the first wave did not
 * cover (see `_wgsl_corpus_qa.ts`), run by `webgpu_wgsl_corpus_qa_test.ts`.
 */
import type { CorpusCase } from "./_wgsl_corpus_qa_base.ts";

export type { CorpusCase } from "./_wgsl_corpus_qa_base.ts";
import { LANG } from "./_wgsl_corpus_qa2_lang.ts";
import { ML } from "./_wgsl_corpus_qa2_ml.ts";
import { GRAPHICS } from "./_wgsl_corpus_qa2_graphics.ts";
import { ALGORITHMS } from "./_wgsl_corpus_qa2_algorithms.ts";
import { RUNTIMES } from "./_wgsl_corpus_qa2_runtimes.ts";

/** Every case of the second wave. */
export const CORPUS_QA2: readonly CorpusCase[] = [
  ...LANG,
  ...ML,
  ...GRAPHICS,
  ...ALGORITHMS,
  ...RUNTIMES,
];
