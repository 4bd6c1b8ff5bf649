/**
 * The QA corpus, eighteenth wave: real-world WGSL compute shaders the earlier waves did not
 * cover, each written after its source (a stored version of its repository, credited; the
 * constructs are theirs, the code is not copied): webonnx/wonnx's templates rendered with
 * concrete values (`_wgsl_corpus_qa18_wonnx.ts`), onnxruntime-web's generated WebGPU ops
 * (`_wgsl_corpus_qa18_ort.ts`), onnxruntime's native WebGPU EP's DP4A kernels
 * (`_wgsl_corpus_qa18_ort_native.ts`), Babylon.js's Gaussian (point) splatting passes and
 * three.js's TSL compute output (`_wgsl_corpus_qa18_apps.ts`); run by
 * `webgpu_wgsl_corpus_qa18_test.ts`.
 */
import { APPS } from "./_wgsl_corpus_qa18_apps.ts";
import type { CorpusCase } from "./_wgsl_corpus_qa_base.ts";
import { ORT, ORT_F16 } from "./_wgsl_corpus_qa18_ort.ts";
import { ORT_NATIVE } from "./_wgsl_corpus_qa18_ort_native.ts";
import { WONNX, WONNX_REFUSED } from "./_wgsl_corpus_qa18_wonnx.ts";

/** The wave's cases plain WebGPU runs. */
export const CORPUS_QA18: readonly CorpusCase[] = [
  ...WONNX,
  ...ORT,
  ...ORT_F16,
  ...ORT_NATIVE,
  ...APPS,
];

/** The wave's cases plain WebGPU refuses, which the client must refuse with a typed error. */
export const REFUSED18: readonly CorpusCase[] = [...WONNX_REFUSED];
