/**
 * The map kernels of sort, argsort and topk on the client's backend: one specification (id,
 * bindings, body, and the element type whose order-key functions the body calls) gives the WGSL
 * of `_map_wgsl.ts` or the CUDA C of `_map_cuda.ts`, each generated once per backend and id.
 *
 * @module
 */

import type { ComputeClient } from "../../client/client.ts";
import { backendOf, type BackendText, type KernelBackend } from "../_backend_kernels.ts";
import type { ElementType } from "../elementwise.ts";
import {
  fromOrderKeyCuda,
  fromOrderKeyFunction,
  orderKeyCuda,
  orderKeyFunction,
} from "../_order_keys.ts";
import { mapCuda } from "./_map_cuda.ts";
import { type MapBinding, mapKernel } from "./_map_wgsl.ts";

/** A map kernel's specification; `id` names it (one id, one specification). */
export interface MapSpec {
  readonly id: string;
  readonly bindings: readonly MapBinding[];
  /** The body for element `i < params.n`, in the syntax both backends read (`_map_cuda.ts`). */
  readonly body: string;
  /** The element type whose `order_key` and `from_order_key` the body may call. */
  readonly keys?: ElementType;
  /**
   * Consecutive elements per invocation (launch `ceil(n / run)` invocations).
   * @default {1}
   */
  readonly run?: number;
}

const caches: Record<KernelBackend, Map<string, BackendText>> = {
  webgpu: new Map(),
  cuda: new Map(),
};

/** The text of `spec` for `client`'s backend (`UnsupportedError` naming `what` on others). */
export function mapText(client: ComputeClient, what: string, spec: MapSpec): BackendText {
  const backend = backendOf(client, what);
  const cache = caches[backend];
  let found = cache.get(spec.id);
  if (found === undefined) {
    const { id, bindings, body, keys, run = 1 } = spec;
    found = backend === "webgpu"
      ? mapKernel(
        id,
        bindings,
        body,
        keys === undefined ? "" : `${orderKeyFunction(keys)}\n${fromOrderKeyFunction(keys)}`,
        run,
      )
      : mapCuda(
        id,
        bindings,
        body,
        keys === undefined ? "" : `${orderKeyCuda(keys)}\n${fromOrderKeyCuda(keys)}`,
        run,
      );
    cache.set(spec.id, found);
  }
  return found;
}
