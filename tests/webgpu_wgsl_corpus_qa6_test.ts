/**
 * The sixth QA wave's real-world WGSL compute shaders (`_wgsl_corpus_qa6.ts`) run through the
 * client bit-identical to plain WebGPU; those plain WebGPU refuses are refused with a typed error.
 */
import { CORPUS_QA6 } from "./_wgsl_corpus_qa6.ts";
import { corpusTests } from "./_wgsl_corpus_run.ts";
import { REFUSED6 } from "./_wgsl_corpus_qa6_refused.ts";

await corpusTests("sixth", CORPUS_QA6, REFUSED6);
