/**
 * The twelfth QA wave's real-world WGSL compute shaders (`_wgsl_corpus_qa12.ts`) run through the
 * client bit-identical to plain WebGPU; those plain WebGPU refuses are refused with a typed error.
 */
import { CORPUS_QA12 } from "./_wgsl_corpus_qa12.ts";
import { corpusTests } from "./_wgsl_corpus_run.ts";
import { REFUSED12 } from "./_wgsl_corpus_qa12_refused.ts";

await corpusTests("twelfth", CORPUS_QA12, REFUSED12);
