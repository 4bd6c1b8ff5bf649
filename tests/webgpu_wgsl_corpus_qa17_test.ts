/**
 * The seventeenth QA wave's real-world WGSL (`_wgsl_corpus_qa17.ts`) runs through the client
 * bit-identical to plain WebGPU; what plain WebGPU refuses is refused with a typed error.
 */
import { CORPUS_QA17, REFUSED17 } from "./_wgsl_corpus_qa17.ts";
import { corpusTests } from "./_wgsl_corpus_run.ts";

await corpusTests("seventeenth", CORPUS_QA17, REFUSED17);
