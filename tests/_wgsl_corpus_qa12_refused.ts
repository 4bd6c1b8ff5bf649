/**
 * QA wave 12: real-world WGSL plain WebGPU refuses on this adapter, which the client must refuse
 * with a typed error; see `_wgsl_corpus_qa12.ts`.
 */
import type { CorpusCase } from "./_wgsl_corpus_qa_base.ts";

export const REFUSED12: readonly CorpusCase[] = [];
