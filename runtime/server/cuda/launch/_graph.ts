/**
 * Captured launch graphs of the CUDA server. At capture every launch is checked (the launcher's
 * `prepare`) and launched on a private stream under stream capture (`cuStreamBeginCapture_v2`),
 * which records it as a graph node and runs nothing; the graph is instantiated once
 * (`cuGraphInstantiateWithFlags`). A replay orders its stream after other streams' uses of the
 * graph's refs (one launch set for the multi-stream) and issues one `cuGraphLaunch`; its params
 * rewrite the recorded nodes first (`_graph_params.ts`). The captured graph lives as long as its
 * executable copy (the nodes `cuGraphExecKernelNodeSetParams` names are the captured graph's). A
 * driver without the graph symbols (or, for a graph with named params, without the node ones)
 * replays launch by launch (said once in the log).
 *
 * Traces and per-kernel profiles show a replay as its kernels, `label/kernel`, each timed on the
 * device: the driver times a graph launch only as a whole (events around it), so while a trace or
 * a per-kernel window is open a replay launches its kernels one by one (the same kernels, params
 * and order, each between its own timing events), as the WebGPU server encodes each dispatch of a
 * replay in a timed pass of its own then. Outside them a replay is one `cuGraphLaunch`.
 *
 * @module
 */

import { DestroyedError, UnsupportedError } from "../../../core/errors.ts";
import type { HandleRef } from "../../../core/handles/handle.ts";
import type { KernelParams } from "../../../core/kernel.ts";
import type { StreamId } from "../../../core/stream_id.ts";
import { runtimeLogger, warnVisibly } from "../../../core/logging.ts";
import type { KernelLaunch } from "../../server.ts";
import type { CudaDriver } from "../_ffi.ts";
import type { CudaKernel } from "../kernel.ts";
import { kernelName } from "../kernel.ts";
import type { CudaLauncher, PreparedLaunch } from "./launcher.ts";
import { capturedNode, GraphNodeParams } from "./_graph_params.ts";

const CAPTURE_MODE_THREAD_LOCAL = 1;

/** A graph captured by a CUDA server (or its launches, on a driver without graphs). */
export class CudaGraph implements Disposable {
  readonly label: string;
  readonly #launcher: CudaLauncher;
  readonly #usable: (stream: StreamId) => void;
  readonly #refs: readonly HandleRef[];
  readonly #launches: KernelLaunch<CudaKernel>[];
  readonly #params: GraphNodeParams;
  /** The graph's kernels as its replay's launch log records them (`queue/_in_flight.ts`). */
  readonly #nodes: readonly GraphNode[];
  #exec: Deno.PointerValue;
  #graph: Deno.PointerValue;
  #released = false;

  constructor(
    launcher: CudaLauncher,
    label: string,
    launches: readonly KernelLaunch<CudaKernel>[],
    params: GraphNodeParams,
    exec: Deno.PointerValue,
    graph: Deno.PointerValue,
    usable: (stream: StreamId) => void,
    nodes: readonly GraphNode[] = [],
  ) {
    this.#launcher = launcher;
    this.#nodes = nodes;
    this.#usable = usable;
    this.label = label;
    this.#launches = [...launches];
    this.#params = params;
    this.#exec = exec;
    this.#graph = graph;
    // One ref per memory (the launches hold clones: distinct refs of one record).
    const refs = new Map<unknown, HandleRef>();
    for (const launch of launches) {
      for (const ref of launch.args.refs()) {
        if (!refs.has(ref.slice.record)) refs.set(ref.slice.record, ref);
      }
    }
    this.#refs = [...refs.values()];
  }

  /**
   * Runs the graph on `streamId`: one `cuGraphLaunch` after the waits its refs need. The client
   * calls it directly: it checks what the server's methods check first (`DESTROYED`).
   */
  replay(streamId: StreamId, params?: KernelParams): void {
    this.#usable(streamId);
    if (this.#released) throw new DestroyedError(`Launch graph '${this.label}' was released`);
    const launcher = this.#launcher;
    if (params !== undefined) {
      this.#params.update(launcher.parts, this.#launches, this.#exec, params);
    }
    const { driver, streams, profiler, inFlight } = launcher.parts;
    if (this.#exec === null || profiler.timesKernels) {
      // Launch by launch (module doc): each kernel its own launch, named under the graph's label.
      for (const launch of this.#launches) {
        const name = `${this.label}/${kernelName(launch.kernel)}`;
        launcher.enqueue(launcher.prepare(launch), streamId, name);
      }
      return;
    }
    using ordered = streams.order(streamId, this.#refs, { enforceHealthy: true });
    const stream = ordered.stream;
    driver.check(
      driver.symbols.cuGraphLaunch!(this.#exec, stream.handle),
      `cuGraphLaunch(${this.label}, stream ${stream.index})`,
    );
    for (const node of this.#nodes) {
      inFlight.record(node.name, streamId, stream, node.grid, node.block);
    }
  }

  [Symbol.dispose](): void {
    if (this.#released) return;
    this.#released = true;
    const [exec, graph] = [this.#exec, this.#graph];
    this.#exec = this.#graph = null;
    const symbols = this.#launcher.parts.driver.symbols;
    if (exec !== null) symbols.cuGraphExecDestroy!(exec);
    if (graph !== null) symbols.cuGraphDestroy!(graph);
  }
}

/** A kernel of a captured graph, for the launch log. */
interface GraphNode {
  readonly name: string;
  readonly grid: readonly number[];
  readonly block: readonly number[];
}

let warned = false;

/** Captures `launches` (see the module doc); a launch's check error is thrown here. */
export function captureCudaGraph(
  launcher: CudaLauncher,
  launches: readonly KernelLaunch<CudaKernel>[],
  label: string,
  usable: (stream: StreamId) => void,
): CudaGraph {
  const driver = launcher.parts.driver;
  const symbols = driver.symbols;
  for (const launch of launches) {
    if (launch.count?.kind === "dynamic") {
      throw new UnsupportedError(
        `Kernel '${kernelName(launch.kernel)}': a dynamic count is read on the host at launch, ` +
          "which a capture cannot record",
        "CAPTURE_UNSUPPORTED",
      );
    }
  }
  const params = new GraphNodeParams(label);
  const named = (launch: KernelLaunch<CudaKernel>) => GraphNodeParams.named(launcher.parts, launch);
  const nodes = symbols.cuStreamGetCaptureInfo_v2 !== null &&
    symbols.cuGraphExecKernelNodeSetParams !== null;
  if (
    symbols.cuStreamBeginCapture_v2 === null || symbols.cuStreamEndCapture === null ||
    symbols.cuGraphInstantiateWithFlags === null || symbols.cuGraphLaunch === null ||
    (!nodes && launches.some((launch) => launch.params !== undefined))
  ) {
    launches.forEach((launch, i) => {
      const prepared = launcher.prepare(launch); // every check, now
      if (named(launch)) params.add(i, prepared, null);
    });
    if (!warned) {
      warned = true;
      warnVisibly(
        runtimeLogger("server"),
        "The CUDA driver has no graph API (or no cuGraphExecKernelNodeSetParams for named " +
          "params): captured graphs replay launch by launch",
      );
    }
    return new CudaGraph(launcher, label, launches, params, null, null, usable);
  }
  driver.check(symbols.cuStreamCreate(driver.out64, 1), "cuStreamCreate(capture)");
  const stream = driver.pointerAt();
  let graph: Deno.PointerValue = null;
  try {
    driver.check(
      symbols.cuStreamBeginCapture_v2(stream, CAPTURE_MODE_THREAD_LOCAL),
      `cuStreamBeginCapture_v2(${label})`,
    );
    let failure: unknown;
    const nodes: GraphNode[] = [];
    try {
      launches.forEach((launch, i) => {
        const prepared = launcher.prepare(launch);
        const recorded = record(driver, prepared, launch, stream);
        if (recorded) {
          const name = `${label}/${prepared.name}`;
          nodes.push({ name, grid: prepared.fixed!, block: prepared.block });
        }
        if (named(launch)) params.add(i, prepared, recorded ? capturedNode(driver, stream) : null);
      });
    } catch (error) {
      failure = error;
    }
    const ended = symbols.cuStreamEndCapture(stream, driver.out64);
    graph = ended === 0 ? driver.pointerAt() : null;
    if (failure !== undefined) throw failure;
    driver.check(ended, `cuStreamEndCapture(${label})`);
    const exec = new BigUint64Array(1);
    driver.check(
      symbols.cuGraphInstantiateWithFlags(exec, graph, 0n),
      `cuGraphInstantiateWithFlags(${label})`,
    );
    const made = new CudaGraph(
      launcher,
      label,
      launches,
      params,
      Deno.UnsafePointer.create(exec[0]),
      graph,
      usable,
      nodes,
    );
    graph = null; // the graph's now
    return made;
  } finally {
    if (graph !== null) symbols.cuGraphDestroy!(graph);
    symbols.cuStreamDestroy_v2(stream);
  }
}

/** Launches one prepared launch on the capturing stream (recorded, not run); false: empty. */
function record(
  driver: CudaDriver,
  prepared: PreparedLaunch,
  launch: KernelLaunch<CudaKernel>,
  stream: Deno.PointerValue,
): boolean {
  // The parameter bytes live in scratch shared by launches: recorded right after the launch's
  // own `prepare` (the driver copies them into the node).
  const { fixed, fn, params, block } = prepared;
  const grid = fixed!;
  if (grid.some((n) => n === 0)) return false;
  const [bx, by, bz] = block;
  driver.check(
    driver.symbols.cuLaunchKernel(
      fn,
      grid[0],
      grid[1],
      grid[2],
      bx,
      by,
      bz,
      launch.kernel.sharedMemoryBytes ?? 0,
      stream,
      params.pointers,
      null,
    ),
    `cuLaunchKernel(${kernelName(launch.kernel)}, captured)`,
  );
  return true;
}
