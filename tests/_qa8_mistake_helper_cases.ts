/**
 * QA wave 8, the mistakes table of the helpers and primitives: see tests/_qa8_mistake_cases.ts.
 *
 * @module
 */
import {
  argmax,
  bincount,
  dot,
  elementwise,
  gather,
  histogram,
  matmul,
  random,
  reduce,
  reduction,
  scan,
  scatterAdd,
  segmentReduce,
  sort,
  topk,
  transpose,
} from "../mod.ts";
import type { Mistake } from "./_qa8_mistake_cases.ts";
import type { MistakeEnv } from "./_qa8_mistake_run.ts";

// deno-lint-ignore no-explicit-any
type Any = any;
const square = elementwise({ inputs: ["x"], expression: "x * x" });
const scaled = elementwise({ inputs: ["x"], params: { a: "f32" }, expression: "x * a" });

/**
 * An expression WGSL refuses: WebGPU's compiler says so at the first read after the launch, NVRTC
 * at the call (docs/known_issues.md); the CUDA translation must refuse what C++ would take.
 */
const refusedExpression = (expression: string): Mistake => ({
  name: `elementwise ${JSON.stringify(expression)}`,
  names: expression.split(" ")[0],
  run: (e) => elementwise({ inputs: ["x"], expression }).run(e.client, { x: e.f }),
  documented: COMPILED_LATER,
});

const withK = elementwise({ inputs: ["x"], params: { k: "i32" }, expression: "x * f32(k)" });
/** `withK` run with `params`. */
const kParams = (params: unknown) => (e: MistakeEnv) =>
  withK.run(e.client, { x: e.f }, { params: params as Any });

const COMPILED_LATER = {
  webgpu: "the read after it fails: CompilationError COMPILATION",
  cuda: "throws at the call: CompilationError COMPILATION",
  why: "a generated kernel compiles at the call on CUDA, later on WebGPU (known_issues)",
};

/** Mistakes of the helpers and primitives. */
export const HELPER_MISTAKES: readonly Mistake[] = [
  {
    name: "elementwise u32 for f32",
    names: "x",
    run: (e) => square.run(e.client, { x: e.u as Any }),
  },
  { name: "elementwise missing input", names: "x", run: (e) => square.run(e.client, {} as Any) },
  {
    name: "elementwise unknown input",
    names: "z",
    run: (e) => square.run(e.client, { x: e.f, z: e.f } as Any),
  },
  {
    name: "elementwise disposed",
    names: "dispose",
    run: (e) => square.run(e.client, { x: e.goneF as Any }),
  },
  { name: "elementwise foreign", run: (e) => square.run(e.client, { x: e.foreign as Any }) },
  {
    name: "elementwise out too short",
    names: "out",
    run: (e) => square.run(e.client, { x: e.f }, { out: e.g.withOffsetEnd(8) }),
  },
  {
    name: "elementwise out of u32",
    names: "out",
    run: (e) => square.run(e.client, { x: e.f }, { out: e.v }),
  },
  {
    name: "elementwise length wrong",
    names: "length",
    run: (e) => square.run(e.client, { x: e.f }, { length: 3 }),
  },
  {
    name: "elementwise option typo",
    names: "otu",
    run: (e) => square.run(e.client, { x: e.f }, { otu: e.g } as Any),
  },
  { name: "elementwise param missing", names: "a", run: (e) => scaled.run(e.client, { x: e.f }) },
  {
    name: "elementwise param string",
    names: "a",
    run: (e) => scaled.run(e.client, { x: e.f }, { params: { a: "2" } as Any }),
  },
  {
    name: "elementwise param unknown",
    names: "b",
    run: (e) => scaled.run(e.client, { x: e.f }, { params: { a: 2, b: 1 } }),
  },
  {
    name: "elementwise stream -1",
    names: /stream/i,
    run: (e) => square.run(e.client, { x: e.f }, { stream: -1 }),
  },
  { name: "reduce bad op", names: "op", run: (e) => reduce(e.client, e.f, { op: "bogus" as Any }) },
  {
    name: "reduce mean of u32",
    names: /mean|f32/,
    run: (e) => reduce(e.client, e.u, { op: "mean" }),
  },
  {
    name: "reduce shape not matching",
    names: "shape",
    run: (e) => reduce(e.client, e.f, { shape: [3, 3], axis: 1 }),
  },
  {
    name: "reduce axis 2",
    names: "axis",
    run: (e) => reduce(e.client, e.f, { shape: [2, 2], axis: 2 as Any }),
  },
  {
    name: "reduce option typo",
    names: "axes",
    run: (e) => reduce(e.client, e.f, { axes: 1 } as Any),
  },
  { name: "reduce disposed", names: "dispose", run: (e) => reduce(e.client, e.gone) },
  { name: "reduce foreign", run: (e) => reduce(e.client, e.foreign) },
  {
    name: "reduce not a handle",
    names: /input|x/,
    run: (e) => reduce(e.client, new Float32Array(4) as Any),
  },
  { name: "dot mixed types", names: /type|u32|f32/, run: (e) => dot(e.client, [e.f, e.u] as Any) },
  {
    name: "dot mixed lengths",
    names: /length/,
    run: (e) => dot(e.client, [e.f, e.f.withOffsetEnd(8)]),
  },
  { name: "dot one handle", names: /handles|b must/, run: (e) => dot(e.client, [e.f] as Any) },
  { name: "scan bad op", names: "op", run: (e) => scan(e.client, e.f, { op: "bogus" as Any }) },
  {
    name: "scan exclusive string",
    names: "exclusive",
    run: (e) => scan(e.client, e.f, { exclusive: "yes" as Any }),
  },
  {
    name: "scan option typo",
    names: "exlusive",
    run: (e) => scan(e.client, e.f, { exlusive: true } as Any),
  },
  {
    name: "scan u8 bytes",
    names: /type|u8|bytes/,
    run: (e) => scan(e.client, e.client.createWithData(new Uint8Array(4)) as Any),
  },
  {
    name: "scan exclusive number",
    names: "exclusive",
    run: (e) => scan(e.client, e.f, { exclusive: 1 as Any }),
  },
  {
    name: "gather check string",
    names: "check",
    run: (e) => gather(e.client, e.f, e.u, { check: "yes" as Any }),
  },
  { name: "gather index out of range", run: (e) => gather(e.client, e.f, e.u, { check: true }) },
  {
    name: "matmul tune string",
    names: "tune",
    run: (e) => matmul(e.client, e.f, e.f, { m: 2, n: 2, k: 2, tune: "yes" as Any }),
  },
  {
    name: "sort descending string",
    names: "descending",
    run: (e) => sort(e.client, e.f, { descending: "no" as Any }),
  },
  {
    name: "sort values of other length",
    names: "values",
    run: (e) => sort(e.client, e.f, { values: e.u.withOffsetEnd(8) }),
  },
  {
    name: "sort values disposed",
    names: "dispose",
    run: (e) => sort(e.client, e.f, { values: e.gone }),
  },
  { name: "sort values foreign", run: (e) => sort(e.client, e.f, { values: e.foreign }) },
  {
    name: "sort option typo",
    names: "descnding",
    run: (e) => sort(e.client, e.f, { descnding: true } as Any),
  },
  {
    name: "argmax empty",
    names: /empty|element|length|0/,
    run: (e) => argmax(e.client, e.f.withOffsetEnd(16)),
  },
  {
    name: "argmax axis 2",
    names: "axis",
    run: (e) => argmax(e.client, e.f, { shape: [2, 2], axis: 2 as Any }),
  },
  { name: "topk k 0", run: (e) => topk(e.client, e.f, 0) },
  { name: "topk k 5", names: "k", run: (e) => topk(e.client, e.f, 5) },
  { name: "topk k 1.5", names: "k", run: (e) => topk(e.client, e.f, 1.5) },
  {
    name: "histogram bins 0",
    names: "bins",
    run: (e) => histogram(e.client, e.f, { bins: 0, range: [0, 4] }),
  },
  {
    name: "histogram bins 1.5",
    names: "bins",
    run: (e) => histogram(e.client, e.f, { bins: 1.5, range: [0, 4] }),
  },
  {
    name: "histogram range reversed",
    names: "range",
    run: (e) => histogram(e.client, e.f, { bins: 2, range: [4, 0] }),
  },
  {
    name: "histogram range NaN",
    names: "range",
    run: (e) => histogram(e.client, e.f, { bins: 2, range: [0, NaN] }),
  },
  {
    name: "histogram of u32",
    names: /f32|type/,
    run: (e) => histogram(e.client, e.u as Any, { bins: 2, range: [0, 4] }),
  },
  {
    name: "histogram options missing",
    names: /options|bins/,
    run: (e) => histogram(e.client, e.f, undefined as Any),
  },
  {
    name: "bincount of f32",
    names: /u32|type/,
    run: (e) => bincount(e.client, e.f as Any, { length: 4 }),
  },
  {
    name: "bincount length -1",
    names: "length",
    run: (e) => bincount(e.client, e.u, { length: -1 }),
  },
  { name: "random n -1", names: "n", run: (e) => random(e.client, -1, { seed: 1 }) },
  { name: "random n 1.5", names: "n", run: (e) => random(e.client, 1.5, { seed: 1 }) },
  { name: "random seed -1", names: "seed", run: (e) => random(e.client, 4, { seed: -1 }) },
  { name: "random seed 2^64", names: "seed", run: (e) => random(e.client, 4, { seed: 2n ** 64n }) },
  {
    name: "random dtype i32",
    names: "dtype",
    run: (e) => random(e.client, 4, { seed: 1, dtype: "i32" as Any }),
  },
  {
    name: "random options missing",
    names: /options|seed/,
    run: (e) => random(e.client, 4, undefined as Any),
  },
  {
    name: "random std without normal",
    names: "std",
    run: (e) => random(e.client, 4, { seed: 1, std: 2 } as Any),
  },
  { name: "random option typo", names: "sed", run: (e) => random(e.client, 4, { sed: 1 } as Any) },
  {
    name: "matmul transposeA string",
    names: "transposeA",
    run: (e) => matmul(e.client, e.f, e.f, { m: 2, n: 2, k: 2, transposeA: "false" as Any }),
  },
  {
    name: "matmul transposeB number",
    names: "transposeB",
    run: (e) => matmul(e.client, e.f, e.f, { m: 2, n: 2, k: 2, transposeB: 0 as Any }),
  },
  {
    name: "matmul k wrong",
    names: /k|elements/,
    run: (e) => matmul(e.client, e.f, e.f, { m: 2, n: 2, k: 3 }),
  },
  {
    name: "matmul foreign b",
    run: (e) =>
      matmul(e.client, e.f, e.other.createWithData(new Float32Array(4)), { m: 2, n: 2, k: 2 }),
  },
  {
    name: "scatterAdd lengths",
    names: /indices|values/,
    run: (e) => scatterAdd(e.client, e.g, e.u, e.f.withOffsetEnd(4)),
  },
  { name: "scatterAdd index out of range", run: (e) => scatterAdd(e.client, e.g, e.u, e.f) },
  {
    name: "scatterAdd values of i32",
    names: "values",
    run: (e) => scatterAdd(e.client, e.g, e.u, e.i),
  },
  {
    name: "scatterAdd target read as index",
    names: /target|indices/,
    run: (e) => scatterAdd(e.client, e.v, e.v, e.v),
  },
  {
    name: "segmentReduce segments 0",
    run: (e) => segmentReduce(e.client, e.f, e.u, { segments: 0 }),
  },
  {
    name: "segmentReduce segments -1",
    names: "segments",
    run: (e) => segmentReduce(e.client, e.f, e.u, { segments: -1 }),
  },
  {
    name: "segmentReduce id out of range",
    run: (e) => segmentReduce(e.client, e.f, e.u, { segments: 2 }),
  },
  {
    name: "transpose shape wrong",
    names: "shape",
    run: (e) => transpose(e.client, e.f, { shape: [3, 2] }),
  },
  {
    name: "elementwise out foreign",
    run: (e) => square.run(e.client, { x: e.f }, { out: e.other.zeros(4, "f32") as Any }),
  },
  {
    name: "elementwise out disposed",
    names: "dispose",
    run: (e) => square.run(e.client, { x: e.f }, { out: e.goneF }),
  },
  {
    name: "reduce out of wrong type",
    names: "out",
    run: (e) => reduce(e.client, e.f, { out: e.v } as Any),
  },
  ...["x * i", "x + 1u", "!x", "x > 0.0 && i", "x + true", "sqrt(i)", "min(x, i)", "sqrtf(x)"]
    .map(refusedExpression),
  ...["select(x, 0.0, i)", "i32(x) + i", "-i", "x << 1u", "x, 1.0"].map(refusedExpression),
  { name: "elementwise i32 param 1.5", names: "k", run: kParams({ k: 1.5 }) },
  { name: "elementwise i32 param 2^31", names: "k", run: kParams({ k: 2 ** 31 }) },
  { name: "elementwise i32 param bigint", run: kParams({ k: -2n }) },
  { name: "elementwise i32 param NaN", names: "k", run: kParams({ k: NaN }) },
  { name: "elementwise params null", names: "params", run: kParams(null) },
  { name: "elementwise params an array", names: "params", run: kParams([1]) },
  {
    name: "reduction map mixing types",
    names: "x * i",
    run: (e) =>
      reduction({ inputs: ["x"], map: "x * i", combine: "a + b", identity: "0.0" })
        .run(e.client, { x: e.f }),
    documented: COMPILED_LATER,
  },
  { name: "helper on another client's handle", run: (e) => square.run(e.other, { x: e.f }) },
];
