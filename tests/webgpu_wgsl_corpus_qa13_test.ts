/**
 * The thirteenth QA wave's WGSL (`_wgsl_corpus_qa13.ts`), found by a bulk differential sweep of
 * Tint's and naga's WGSL tests, runs through the client bit-identical to plain WebGPU; those plain
 * WebGPU refuses are refused with a typed error.
 */
import { CORPUS_QA13, REFUSED13 } from "./_wgsl_corpus_qa13.ts";
import { corpusTests } from "./_wgsl_corpus_run.ts";

await corpusTests("thirteenth", CORPUS_QA13, REFUSED13);
