/**
 * Named params of a captured CUDA graph (`replay({ params })`). At capture each launch that was
 * packed by the kernel's signature keeps its values and the graph node it recorded (read with
 * `cuStreamGetCaptureInfo_v2` right after its `cuLaunchKernel`). A replay's new values are
 * merged with the last ones and packed with the checks of a launch (`packBySignature`: an
 * unknown name or a value of another type is a `KernelArgumentError`); only when every changed
 * launch packed are the nodes of the instantiated graph rewritten
 * (`cuGraphExecKernelNodeSetParams`, which affects later graph launches only).
 *
 * @module
 */

import { KernelArgumentError } from "../../../core/errors.ts";
import { describe } from "../../../core/_argument_checks.ts";
import type { KernelParams } from "../../../core/kernel.ts";
import type { KernelLaunch } from "../../server.ts";
import type { CudaDriver } from "../_ffi.ts";
import type { CudaKernel } from "../kernel.ts";
import { kernelName } from "../kernel.ts";
import type { LaunchParts, PreparedLaunch } from "./launcher.ts";
import { buffersByName, packBySignature, usesLayout } from "./_params.ts";

/** A captured launch with named params. */
interface NamedLaunch {
  /** Index of the launch in the graph. */
  readonly index: number;
  /** Its node in the captured graph (`null`: an empty grid, nothing recorded). */
  readonly node: Deno.PointerValue;
  readonly fn: Deno.PointerValue;
  readonly grid: readonly number[];
  readonly block: readonly [number, number, number];
  readonly shared: number;
}

/** The named params of a graph's launches and the nodes that hold them. */
export class GraphNodeParams {
  readonly #label: string;
  readonly #named = new Map<string, NamedLaunch[]>();

  constructor(label: string) {
    this.#label = label;
  }

  /** Whether `launch` is one whose params a replay may update (CUDA C, packed by signature). */
  static named(parts: LaunchParts, launch: KernelLaunch<CudaKernel>): boolean {
    return launch.params !== undefined && !Array.isArray(launch.params) &&
      !usesLayout(launch.args, launch.kernel.bufferLengths) &&
      parts.modules.resolve(launch.kernel).signature !== undefined;
  }

  /** Records launch `index` (prepared, then launched on the capturing `stream`). */
  add(
    index: number,
    prepared: PreparedLaunch,
    node: Deno.PointerValue,
  ): void {
    const entry: NamedLaunch = {
      index,
      node,
      fn: prepared.fn,
      grid: prepared.fixed!,
      block: prepared.block,
      shared: prepared.launch.kernel.sharedMemoryBytes ?? 0,
    };
    for (const name of Object.keys(prepared.launch.params!)) {
      const list = this.#named.get(name) ?? [];
      list.push(entry);
      this.#named.set(name, list);
    }
  }

  /**
   * Merges `params` into the launches (replaced in `launches`), checked and packed like a launch;
   * with `exec`, rewrites their nodes. Nothing changes when any value is refused.
   */
  update(
    parts: LaunchParts,
    launches: KernelLaunch<CudaKernel>[],
    exec: Deno.PointerValue,
    params: KernelParams,
  ): void {
    if (typeof params !== "object" || params === null || Array.isArray(params)) {
      throw new KernelArgumentError(
        this.#label,
        "params",
        `must be an object of named params, got ${describe(params)}`,
      );
    }
    const changed = new Map<NamedLaunch, KernelParams>();
    for (const name of Object.keys(params)) {
      const list = this.#named.get(name);
      if (list === undefined) {
        const known = [...this.#named.keys()].join(", ") || "none";
        throw new KernelArgumentError(
          this.#label,
          `params.${name}`,
          `is not a param of any launch in the graph (its params: ${known})`,
        );
      }
      for (const entry of list) {
        const merged = changed.get(entry) ?? { ...launches[entry.index].params };
        changed.set(entry, Object.assign(merged, { [name]: params[name] }));
      }
    }
    // Pack every changed launch first (the packing scratch is shared: copy each out).
    const packed = [...changed].map(([entry, merged]) => {
      const launch = launches[entry.index];
      const { signature } = parts.modules.resolve(launch.kernel);
      const name = kernelName(launch.kernel);
      const names = launch.bufferNames;
      const given = launch.args.refs();
      const refs = names === undefined ? given : buffersByName(name, signature, names, given);
      const located = refs.map((ref) => parts.memory.locate(ref));
      const { values, sizes, offsets } = packBySignature(
        name,
        signature!,
        refs,
        located,
        merged,
        names !== undefined,
      );
      // Each value at its slot (8 bytes), or at its offset (a struct by value: all of them).
      const at = offsets ?? sizes.map((_, i) => i * 8);
      const end = offsets === undefined ? Math.max(8, sizes.length * 8) : values.byteLength;
      return { entry, merged, values: values.slice(0, end), at };
    });
    if (exec !== null) {
      for (const { entry, values, at } of packed) {
        if (entry.node !== null) setNode(parts.driver, exec, entry, values, at);
      }
    }
    for (const { entry, merged } of packed) {
      launches[entry.index] = { ...launches[entry.index], params: merged };
    }
  }
}

/** Rewrites one node of `exec` (`CUDA_KERNEL_NODE_PARAMS_v1`: 56 bytes). */
function setNode(
  driver: CudaDriver,
  exec: Deno.PointerValue,
  entry: NamedLaunch,
  values: ArrayBuffer,
  at: readonly number[],
): void {
  const base = BigInt(Deno.UnsafePointer.value(Deno.UnsafePointer.of(values)));
  const pointers = new BigUint64Array(Math.max(1, at.length));
  for (let i = 0; i < at.length; i++) pointers[i] = base + BigInt(at[i]);
  const struct = new ArrayBuffer(56);
  const view = new DataView(struct);
  view.setBigUint64(0, BigInt(Deno.UnsafePointer.value(entry.fn)), true);
  entry.grid.forEach((n, i) => view.setUint32(8 + 4 * i, n, true));
  entry.block.forEach((n, i) => view.setUint32(20 + 4 * i, n, true));
  view.setUint32(32, entry.shared, true);
  view.setBigUint64(40, BigInt(Deno.UnsafePointer.value(Deno.UnsafePointer.of(pointers))), true);
  driver.check(
    driver.symbols.cuGraphExecKernelNodeSetParams!(exec, entry.node, new Uint8Array(struct)),
    `cuGraphExecKernelNodeSetParams(launch ${entry.index})`,
  );
  void values; // kept alive through the call
}

/** The node the last launch on the capturing `stream` recorded. */
export function capturedNode(driver: CudaDriver, stream: Deno.PointerValue): Deno.PointerValue {
  const status = new Int32Array(1);
  const out = new BigUint64Array(4); // id, graph, dependencies, their count
  driver.check(
    driver.symbols.cuStreamGetCaptureInfo_v2!(
      stream,
      status,
      out.subarray(0, 1),
      out.subarray(1, 2),
      out.subarray(2, 3),
      out.subarray(3, 4),
    ),
    "cuStreamGetCaptureInfo_v2",
  );
  if (status[0] !== 1 || out[3] !== 1n || out[2] === 0n) {
    throw new Error(`A capture in progress should end in one node (status ${status[0]})`);
  }
  const deps = Deno.UnsafePointer.create(out[2]);
  return Deno.UnsafePointer.create(new Deno.UnsafePointerView(deps!).getBigUint64(0));
}
