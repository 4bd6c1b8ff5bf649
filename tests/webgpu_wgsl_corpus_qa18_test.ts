/**
 * The eighteenth QA wave's real-world WGSL (`_wgsl_corpus_qa18.ts`) runs through the client
 * bit-identical to plain WebGPU; what plain WebGPU refuses is refused with a typed error.
 */
import { CORPUS_QA18, REFUSED18 } from "./_wgsl_corpus_qa18.ts";
import { corpusTests } from "./_wgsl_corpus_run.ts";

await corpusTests("eighteenth", CORPUS_QA18, REFUSED18);
