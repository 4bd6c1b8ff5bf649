/**
 * The QA corpus, third wave: real-world WGSL compute shaders from sources the first two waves
 * did not cover (`_wgsl_corpus_qa.ts`, `_wgsl_corpus_qa2.ts`), each crediting its source URL;
 * run by `webgpu_wgsl_corpus_qa3_test.ts`.
 */
import type { CorpusCase } from "./_wgsl_corpus_qa_base.ts";
import { APPS } from "./_wgsl_corpus_qa3_apps.ts";
import { LANG3 } from "./_wgsl_corpus_qa3_lang.ts";
import { PARSE3 } from "./_wgsl_corpus_qa3_parse.ts";
import { ML3 } from "./_wgsl_corpus_qa3_ml.ts";
import { GRAPHICS3 } from "./_wgsl_corpus_qa3_graphics.ts";
import { MORE3 } from "./_wgsl_corpus_qa3_more.ts";
import { LAYOUT3 } from "./_wgsl_corpus_qa3_layout.ts";

/** Every case of the third wave. */
export const CORPUS_QA3: readonly CorpusCase[] = [
  ...APPS,
  ...LANG3,
  ...PARSE3,
  ...ML3,
  ...GRAPHICS3,
  ...MORE3,
  ...LAYOUT3,
];
