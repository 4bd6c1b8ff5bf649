/**
 * Element-wise kernels from one WGSL expression, in the spirit of CuPy's `ElementwiseKernel`.
 *
 * @module
 */

import type { ComputeClient } from "../client/client.ts";
import type { Handle } from "../core/handles/handle.ts";
import type { KernelParams } from "../core/kernel.ts";
import type { StreamId } from "../core/stream_id.ts";
import {
  checkCall,
  checkExpression,
  checkNoOverlap,
  checkOutput,
  commonLength,
  namedInputs,
  overlaps,
} from "./_inputs.ts";
import { assertKnownKeys, assertU32 } from "../core/_argument_checks.ts";
import { backendOf, type CudaText, launch } from "./_backend_kernels.ts";
import { elementwiseCuda } from "./_elementwise_cuda.ts";

/**
 * Element types of element-wise and reduction inputs, outputs and params (all 4 bytes).
 *
 * @example
 * ```ts
 * import type { ElementType } from "@gpucompute/runtime";
 * const index: ElementType = "u32";
 * ```
 */
export type ElementType = "f32" | "i32" | "u32";

/**
 * How an element-wise input is read: its element type (the expression reads element `i` by
 * the input's name), or `raw` + type (the expression indexes the whole array itself, as
 * CuPy's `raw` arguments: `m[i / cols]`; a raw input may have any length).
 *
 * @example
 * ```ts
 * import type { InputType } from "@gpucompute/runtime";
 * const rowValues: InputType = "raw f32";
 * ```
 */
export type InputType = ElementType | `raw ${ElementType}`;

/**
 * What an element-wise kernel computes: `out[i] = expression`, where the expression reads each
 * input's element `i` by the input's name (raw inputs: the whole array), each param by its
 * name, and the index as `i`.
 *
 * @example
 * ```ts
 * import type { ElementwiseSpec } from "@gpucompute/runtime";
 * const spec: ElementwiseSpec = { inputs: ["x", "y"], params: { a: "f32" }, expression: "a * x + y" };
 * ```
 */
export interface ElementwiseSpec<T extends ElementType = "f32"> {
  /**
   * Input names (all f32) or names with their types (see {@linkcode InputType}). Names, here and
   * in `params`, are WGSL identifiers other than `i`, `n`, `out`, `params` and `main`, which the generated code uses, and other than C++ keywords (`long`, `or`: the CUDA C
   * of the spec uses the same names): a `RangeError` naming them otherwise.
   */
  readonly inputs: readonly string[] | { readonly [name: string]: InputType };
  /**
   * A WGSL scalar expression; its value is converted to the output type as WGSL's `T(e)` does
   * (`u32(x)` of an f32 `x` rounds toward zero and clamps to [0, 4294967040]), on both backends.
   * A NaN converts to 0 on CUDA; WGSL leaves it to the device (llvmpipe: `i32(NaN)` is
   * -2147483648, `u32(NaN)` 0): where it matters, map NaN first, by its bits
   * (`(bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u`; a compiler may take `x != x` as false).
   */
  readonly expression: string;
  /**
   * Scalar params by name with their types.
   * @default {{}}
   */
  readonly params?: { readonly [name: string]: ElementType };
  /**
   * Element type of the output.
   * @default {"f32"}
   */
  readonly output?: T;
  /**
   * Name in errors and logs.
   * @default {"elementwise"}
   */
  readonly name?: string;
}

/**
 * Options of {@linkcode ElementwiseKernel.run}.
 *
 * @example
 * ```ts
 * import type { ElementwiseRunOptions } from "@gpucompute/runtime";
 * const options: ElementwiseRunOptions = { params: { a: 2 }, stream: 1 };
 * ```
 */
export interface ElementwiseRunOptions {
  /**
   * Values of the params.
   * @default {{}}
   */
  params?: KernelParams;
  /**
   * Where to write; a new handle of the output type when absent (the caller disposes it). It may
   * be longer than the computed length (only the first elements are written), and may be an
   * element-wise input itself (in place), but may not share memory with a raw input, which is
   * read at other elements than the one written (a `RangeError`).
   * @default {undefined}
   */
  out?: Handle;
  /**
   * Elements to compute, when no element-wise (non-raw) input says it (then `length` or `out`
   * is required: a `RangeError` otherwise). With element-wise inputs it must equal their length
   * (a `RangeError` otherwise).
   * @default {the length of the element-wise inputs, else of `out`}
   */
  length?: number;
  /**
   * The stream to run on.
   * @default {currentStreamId()}
   */
  stream?: StreamId;
}

/**
 * An element-wise kernel built by {@linkcode elementwise}.
 *
 * @example
 * ```ts
 * import { elementwise, type ElementwiseKernel } from "@gpucompute/runtime";
 * const square: ElementwiseKernel = elementwise({ inputs: ["x"], expression: "x * x" });
 * console.log(square.source.includes("out[i] = f32(x * x);")); // true
 * ```
 */
export interface ElementwiseKernel<T extends ElementType = ElementType> {
  /**
   * The generated WGSL (inputs read-only, then `out`, then a uniform with `n` and the params).
   * On a CUDA client the same expression runs as CUDA C (the WGSL scalar built-ins defined).
   */
  readonly source: string;
  /**
   * Runs over every element: `inputs` by name (the element-wise ones of one length), returns the
   * output. `RangeError` for inputs of different lengths, a missing input or one the spec does
   * not declare, `TypeError` for an input of another element type.
   */
  run(
    client: ComputeClient,
    inputs: { readonly [name: string]: Handle },
    options?: ElementwiseRunOptions,
  ): Handle<T>;
}

const WORKGROUP = 64; // on llvmpipe 64-wide groups are the fastest (bench/kernels_bench.ts)
const RESERVED = ["i", "n", "out", "params", "main"];
const IDENT = /^[A-Za-z][A-Za-z0-9_]*$/;
const TYPES: readonly string[] = ["f32", "i32", "u32"];

/**
 * C++ keywords WGSL lets a name be: the CUDA C generated from the same spec could not declare
 * them (`long` compiled on WebGPU, and failed at the first read on CUDA).
 */
const CPP_KEYWORDS = new Set(
  ("and and_eq asm bitand bitor bool break case catch char char8_t char16_t char32_t class compl " +
    "concept const const_cast consteval constexpr constinit continue co_await co_return " +
    "co_yield decltype default delete do double dynamic_cast else enum explicit export extern " +
    "false float for friend goto if inline int long mutable namespace new noexcept not not_eq " +
    "nullptr operator or or_eq private protected public register reinterpret_cast requires " +
    "return short signed sizeof static static_assert static_cast struct switch template this " +
    "thread_local throw true try typedef typeid typename union unsigned using virtual void " +
    "volatile wchar_t while xor xor_eq").split(" "),
);

/**
 * Throws `RangeError` unless `name` is a WGSL identifier the generated code leaves free, and no
 * C++ keyword (the CUDA C of a spec uses the same names).
 */
export function checkName(name: string, reserved: readonly string[] = []): void {
  if (!IDENT.test(name) || RESERVED.includes(name) || reserved.includes(name)) {
    throw new RangeError(
      `Name "${name}" must be a WGSL identifier other than ` +
        [...RESERVED, ...reserved].join(", "),
    );
  }
  if (CPP_KEYWORDS.has(name)) {
    throw new RangeError(
      `Name "${name}" is a C++ keyword: the CUDA C generated from the same spec cannot use it`,
    );
  }
}

/** Names with their element types, from a list (all f32) or a record; checked. */
export function elementTypes(
  spec: readonly string[] | { readonly [name: string]: string },
  what: string,
): [string, ElementType][] {
  const entries = Array.isArray(spec)
    ? (spec as readonly string[]).map((name): [string, string] => [name, "f32"])
    : Object.entries(spec ?? {});
  return entries.map(([name, type]) => {
    if (!TYPES.includes(type)) {
      throw new RangeError(`The type of ${what} "${name}" must be f32, i32 or u32, got "${type}"`);
    }
    return [name, type as ElementType];
  });
}

/**
 * Builds an element-wise kernel. Any length works: the launch covers every element (beyond
 * 65,535 workgroups too) and the kernel checks the bound.
 *
 * @example SAXPY
 * ```ts
 * import { createClient, elementwise } from "@gpucompute/runtime";
 * const saxpy = elementwise({ inputs: ["x", "y"], params: { a: "f32" }, expression: "a * x + y" });
 * using client = await createClient();
 * using x = client.createWithData(new Float32Array([1, 2, 3]));
 * using y = client.createWithData(new Float32Array([10, 20, 30]));
 * using out = saxpy.run(client, { x, y }, { params: { a: 2 } });
 * console.log(await client.read(out)); // Float32Array [12, 24, 36]
 * ```
 */
export function elementwise<T extends ElementType = "f32">(
  spec: ElementwiseSpec<T>,
): ElementwiseKernel<T> {
  checkExpression(spec, "expression");
  // A misspelt `output` gave f32 elements silently.
  assertKnownKeys(
    spec,
    ["inputs", "expression", "params", "output", "name"],
    "elementwise",
    "spec",
  );
  const raw = new Set<string>();
  const declared = Array.isArray(spec.inputs) ? spec.inputs : Object.fromEntries(
    Object.entries(spec.inputs ?? {}).map(([name, type]) => {
      const match = /^raw\s+(\w+)$/.exec(type);
      if (match !== null) raw.add(name);
      return [name, match?.[1] ?? type];
    }),
  );
  const inputs = elementTypes(declared, "input");
  const params = elementTypes(spec.params ?? {}, "param");
  for (const [name] of [...inputs, ...params]) checkName(name);
  const output = elementTypes({ output: spec.output ?? "f32" }, "output")[0][1];
  const source = `
struct Params { n: u32, ${params.map(([name, type]) => `${name}: ${type}`).join(", ")} }
${
    inputs.map(([name, type], b) =>
      `@group(0) @binding(${b}) var<storage, read> ${
        raw.has(name) ? name : `in_${name}`
      }: array<${type}>;`
    ).join("\n")
  }
@group(0) @binding(${inputs.length}) var<storage, read_write> out: array<${output}>;
@group(0) @binding(${inputs.length + 1}) var<uniform> params: Params;
@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(global_invocation_id) gid: vec3u) {
  let i = gid.x;
  if (i >= params.n) { return; }
${
    inputs.filter(([name]) => !raw.has(name)).map(([name]) => `  let ${name} = in_${name}[i];`)
      .join("\n")
  }
${params.map(([name]) => `  let ${name} = params.${name};`).join("\n")}
  out[i] = ${output}(${spec.expression});
}`;
  const name = spec.name ?? "elementwise";
  const kernel = { id: name, source };
  let cuda: CudaText | undefined; // generated on first use on a CUDA client
  // The element-wise (not raw) inputs, whose common length is the launch's.
  const sizedAt = inputs.flatMap(([input], k) => raw.has(input) ? [] : [k]);
  return {
    source,
    run(client, given, options = {}) {
      checkCall(name, client, options, ["params", "out", "length", "stream"]);
      // Checked here, not as the launch's threads (after the handles and params on CUDA).
      if (options.length !== undefined) assertU32(options.length, `${name}: options.length`);
      const handles = namedInputs(name, inputs, given);
      checkOutput(name, options.out, output);
      const out_ = options.out;
      if (out_ !== undefined && handles.some((handle) => overlaps(out_, handle))) {
        // A raw input is read at other elements than the one written: out may not share it.
        const read = inputs.map(([input], k) => [`input "${input}"`, handles[k], !raw.has(input)]);
        checkNoOverlap(name, ["out", out_], read as [string, Handle, boolean][]);
      }
      const sized: [string, Handle][] = [];
      for (const k of sizedAt) sized.push([inputs[k][0], handles[k]]);
      if (sized.length === 0 && options.length === undefined && options.out === undefined) {
        // Nothing says how many elements: an empty result would be silently wrong.
        const named = inputs.map(([input]) => `"${input}"`).join(", ");
        throw new RangeError(
          `${name} has no element-wise input${named ? ` (${named} are raw)` : ""} to say how ` +
            "many elements to compute: give options.length or options.out",
        );
      }
      const n = commonLength(name, sized, options.length ?? (options.out?.size() ?? 0) / 4);
      if (sized.length > 0 && options.length !== undefined && options.length !== n) {
        // Computing all n elements where the caller asked for another count is a wrong result.
        throw new RangeError(
          `${name} options.length is ${options.length}, but its element-wise inputs have ${n} ` +
            "elements (length is only for kernels whose inputs are all raw)",
        );
      }
      if (options.out !== undefined && options.out.size() < n * 4) {
        throw new RangeError(`${name} output has ${options.out.size()} bytes, needs ${n * 4}`);
      }
      const stream = options.stream;
      const out = options.out ?? client.empty(n, output, { stream });
      try {
        if (n > 0) {
          const text = backendOf(client, name) === "webgpu"
            ? kernel
            : cuda ??= elementwiseCuda(name, inputs, raw, params, output, spec.expression);
          launch(client, text, {
            threads: n,
            buffers: [...handles, out],
            params: { n },
            user: options.params === undefined ? {} : options.params, // null is refused
            stream,
          });
        }
      } catch (error) {
        if (options.out === undefined) out.dispose();
        throw error;
      }
      return out as Handle<T>;
    },
  };
}
