/**
 * Element-wise kernels from one WGSL expression, in the spirit of CuPy's `ElementwiseKernel`.
 *
 * @module
 */

import type { ComputeClient } from "../client/client.ts";
import type { Handle } from "../core/handle.ts";
import type { KernelParams } from "../core/kernel.ts";
import type { StreamId } from "../core/stream_id.ts";

/**
 * Element types of element-wise inputs, outputs and params (all 4 bytes).
 *
 * @example
 * ```ts
 * import type { ElementType } from "@gpucompute/runtime";
 * const index: ElementType = "u32";
 * ```
 */
export type ElementType = "f32" | "i32" | "u32";

/**
 * What an element-wise kernel computes: `out[i] = expression`, where the expression reads each
 * input's element `i` by the input's name, each param by its name, and the index as `i`.
 *
 * @example
 * ```ts
 * import type { ElementwiseSpec } from "@gpucompute/runtime";
 * const spec: ElementwiseSpec = { inputs: ["x", "y"], params: { a: "f32" }, expression: "a * x + y" };
 * ```
 */
export interface ElementwiseSpec {
  /** Input names (all f32) or names with their element types. */
  readonly inputs: readonly string[] | { readonly [name: string]: ElementType };
  /** A WGSL expression of the output element's type. */
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
  readonly output?: ElementType;
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
   * Where to write; a new handle of the inputs' length when absent (the caller disposes it).
   * @default {undefined}
   */
  out?: Handle;
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
 * console.log(square.source.includes("out[i] = x * x;")); // true
 * ```
 */
export interface ElementwiseKernel {
  /** The generated WGSL (inputs read-only, then `out`, then a uniform with `n` and the params). */
  readonly source: string;
  /**
   * Runs over every element: `inputs` by name (all of the same length), returns the output.
   * Throws `RangeError` for inputs of different lengths or a missing input.
   */
  run(
    client: ComputeClient,
    inputs: { readonly [name: string]: Handle },
    options?: ElementwiseRunOptions,
  ): Handle;
}

const WORKGROUP = 64; // on llvmpipe 64-wide groups are the fastest (bench/kernels_bench.ts)
const RESERVED = ["i", "n", "out", "params", "main"];
const IDENT = /^[A-Za-z][A-Za-z0-9_]*$/;

/**
 * Builds an element-wise kernel. Any length works: the launch covers every element (folding
 * beyond 65,535 workgroups) and the kernel checks the bound.
 *
 * @example SAXPY
 * ```ts ignore
 * import { createClient, elementwise } from "@gpucompute/runtime";
 * const saxpy = elementwise({ inputs: ["x", "y"], params: { a: "f32" }, expression: "a * x + y" });
 * using client = await createClient();
 * using x = client.createWithData(new Float32Array([1, 2, 3]));
 * using y = client.createWithData(new Float32Array([10, 20, 30]));
 * using out = saxpy.run(client, { x, y }, { params: { a: 2 } });
 * console.log(await client.read(out, Float32Array)); // Float32Array [12, 24, 36]
 * ```
 */
export function elementwise(spec: ElementwiseSpec): ElementwiseKernel {
  if (typeof spec?.expression !== "string") throw new TypeError("spec.expression must be a string");
  const inputs: [string, ElementType][] = Array.isArray(spec.inputs)
    ? (spec.inputs as readonly string[]).map((name): [string, ElementType] => [name, "f32"])
    : Object.entries(spec.inputs ?? {}) as [string, ElementType][];
  const params = Object.entries(spec.params ?? {});
  for (const [name] of [...inputs, ...params]) {
    if (!IDENT.test(name) || RESERVED.includes(name)) {
      throw new RangeError(
        `Element-wise name "${name}" must be a WGSL identifier other than ${RESERVED.join(", ")}`,
      );
    }
  }
  const output = spec.output ?? "f32";
  for (const [name, type] of [...inputs, ...params, ["output", output]]) {
    if (!["f32", "i32", "u32"].includes(type)) {
      throw new RangeError(`Element-wise type of "${name}" must be f32, i32 or u32, got "${type}"`);
    }
  }
  const source = `
struct Params { n: u32, ${params.map(([name, type]) => `${name}: ${type}`).join(", ")} }
${
    inputs.map(([name, type], b) =>
      `@group(0) @binding(${b}) var<storage, read> in_${name}: array<${type}>;`
    ).join("\n")
  }
@group(0) @binding(${inputs.length}) var<storage, read_write> out: array<${output}>;
@group(0) @binding(${inputs.length + 1}) var<uniform> params: Params;
@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  let i = (wid.x + nwg.x * (wid.y + nwg.y * wid.z)) * ${WORKGROUP}u + lid;
  if (i >= params.n) { return; }
${inputs.map(([name]) => `  let ${name} = in_${name}[i];`).join("\n")}
${params.map(([name]) => `  let ${name} = params.${name};`).join("\n")}
  out[i] = ${spec.expression};
}`;
  const kernel = { id: spec.name ?? "elementwise", source };
  return {
    source,
    run(client, given, options = {}) {
      const handles = inputs.map(([name]) => {
        const handle = given[name];
        if (handle === undefined) throw new RangeError(`Missing element-wise input "${name}"`);
        return handle;
      });
      const n = (handles[0]?.size() ?? options.out?.size() ?? 0) / 4;
      handles.forEach((handle, k) => {
        if (handle.size() !== n * 4) {
          throw new RangeError(
            `Element-wise input "${inputs[k][0]}" has ${handle.size() / 4} elements, ` +
              `"${inputs[0][0]}" has ${n}`,
          );
        }
      });
      if (options.out !== undefined && options.out.size() < n * 4) {
        throw new RangeError(`Element-wise output has ${options.out.size()} bytes, needs ${n * 4}`);
      }
      const stream = options.stream;
      const out = options.out ?? client.empty(Math.max(1, n), output, { stream });
      try {
        client.execute(kernel, {
          threads: n,
          buffers: [...handles, out],
          params: { ...options.params, n },
          stream,
        });
      } catch (error) {
        if (options.out === undefined) out.dispose();
        throw error;
      }
      return out;
    },
  };
}
