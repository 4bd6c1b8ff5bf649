/**
 * Naming the kernels behind a sticky CUDA fault. A kernel that faults on the device (an illegal
 * address, an assertion, ...) is reported asynchronously: the next driver call of the context
 * returns the fault, whatever it is (`cuStreamCreate`, a read's `cuEventQuery`, a later launch).
 * So the driver's error for a sticky result carries the launches that were in flight on the
 * context when the fault was first observed ({@linkcode InFlightLaunch}, newest first), and its
 * message names them with a hint on how to pinpoint the faulting one.
 *
 * Each context that launches registers a {@linkcode FaultWitness} here (`queue/_in_flight.ts`):
 * the driver asks the witness of the current context when it makes the error of a sticky result,
 * and nothing else (a launch only stores references in the witness's ring).
 *
 * @module
 */

/** The sticky `CUresult`s: a kernel fault that leaves the context unusable. */
const STICKY = new Set([
  700, // CUDA_ERROR_ILLEGAL_ADDRESS
  702, // CUDA_ERROR_LAUNCH_TIMEOUT
  710, // CUDA_ERROR_ASSERT
  714, // CUDA_ERROR_HARDWARE_STACK_ERROR
  715, // CUDA_ERROR_ILLEGAL_INSTRUCTION
  716, // CUDA_ERROR_MISALIGNED_ADDRESS
  717, // CUDA_ERROR_INVALID_ADDRESS_SPACE
  718, // CUDA_ERROR_INVALID_PC
  719, // CUDA_ERROR_LAUNCH_FAILED
]);

/** The most launches an error lists (newest first); the rest are counted. */
export const MAX_LISTED_LAUNCHES = 8;

/**
 * A launch that was in flight (enqueued, not known complete) when a sticky fault was first
 * observed: a candidate for the kernel that faulted.
 *
 * @example
 * ```ts
 * import type { InFlightLaunch } from "@gpucompute/runtime/cuda";
 * const launch: InFlightLaunch = { kernel: "saxpy", stream: 1, grid: [4, 1, 1], block: [256, 1, 1] };
 * console.log(`'${launch.kernel}' on stream ${launch.stream}`);
 * ```
 */
export interface InFlightLaunch {
  /** The kernel's name (a graph replay's `label/kernel`). */
  readonly kernel: string;
  /** The stream it was launched on (the `StreamId` given to the runtime). */
  readonly stream: number;
  /** Its grid, in blocks. */
  readonly grid: readonly number[];
  /** Its block, in threads. */
  readonly block: readonly number[];
}

/** What a context's launch log tells the driver about a fault. */
export interface FaultWitness {
  /**
   * The launches in flight when the fault was first observed, newest first, at most
   * {@linkcode MAX_LISTED_LAUNCHES}, and how many more were in flight (or unknown). The first
   * call takes the snapshot; later calls return it.
   */
  observe(): FaultSnapshot;
}

/** A fault's candidate launches. */
export interface FaultSnapshot {
  /** Newest first. */
  readonly launches: readonly InFlightLaunch[];
  /** In flight but not listed (older than the listed ones). */
  readonly more: number;
}

const byDriver = new WeakMap<object, FaultWitnesses>();

/** The witnesses of the contexts of `driver` (a `CudaDriver`: one per library path). */
export function faultWitnesses(driver: object): FaultWitnesses {
  let witnesses = byDriver.get(driver);
  if (witnesses === undefined) byDriver.set(driver, witnesses = new FaultWitnesses());
  return witnesses;
}

/** True for a `CUresult` that reports a kernel fault (sticky: the context stays faulted). */
export function isStickyFault(result: number): boolean {
  return STICKY.has(result);
}

/** The witnesses of one driver library's contexts, by context address (shared, counted). */
export class FaultWitnesses {
  readonly #byContext = new Map<bigint, { witness: FaultWitness; users: number }>();
  readonly #current = new BigUint64Array(1);

  /**
   * The witness of `context`, made by `make` for its first user; `release` (once per user) drops
   * it after its last user, so that a context retained again starts with an empty log.
   */
  register<W extends FaultWitness>(
    context: Deno.PointerValue,
    make: () => W,
  ): { readonly witness: W; release(): void } {
    const key = BigInt(Deno.UnsafePointer.value(context));
    let entry = this.#byContext.get(key);
    if (entry === undefined) this.#byContext.set(key, entry = { witness: make(), users: 0 });
    entry.users++;
    const held = entry;
    let released = false;
    return {
      witness: held.witness as W,
      release: () => {
        if (released) return;
        released = true;
        if (--held.users === 0 && this.#byContext.get(key) === held) this.#byContext.delete(key);
      },
    };
  }

  /**
   * The snapshot of the current context's witness (`cuCtxGetCurrent`, on the error path only);
   * undefined without one.
   */
  observe(getCurrent: (out: BigUint64Array) => number): FaultSnapshot | undefined {
    if (this.#byContext.size === 0) return undefined;
    if (getCurrent(this.#current) !== 0) return undefined;
    return this.#byContext.get(this.#current[0])?.witness.observe();
  }
}

/** The sentence a sticky fault's error adds to the driver's message. */
export function describeFault(call: string, snapshot: FaultSnapshot | undefined): string {
  const head = `a kernel faulted on the device earlier; CUDA reports a fault asynchronously, at ` +
    `a later driver call (here ${call.split("(")[0]}), which is not its cause. `;
  const hint = ". To pinpoint the faulting kernel, wait for each launch (sync its stream, or " +
    "read a result) before enqueueing the next one (CUDA_LAUNCH_BLOCKING has no effect on " +
    "this runtime: it launches on its own non-blocking streams)";
  if (call.startsWith("cuDevicePrimaryCtxRetain")) {
    // Seen on an H200: a client made after another one's kernel faulted, in the same process.
    return head + "The device's primary context still holds it: no client of this device can " +
      "be made in this process until every client of the device is destroyed and drained (CUDA " +
      "keeps such an error until the context is destroyed; in practice, restart the process)";
  }
  if (snapshot === undefined) {
    return head + "The launches in flight are not known here (no server of this runtime " +
      "launches in the current context)" + hint;
  }
  if (snapshot.launches.length === 0) {
    return head + "No launch of this runtime was in flight when it was seen (the fault may " +
      "come from another user of the context)" + hint;
  }
  const listed = snapshot.launches.map((launch) =>
    `'${launch.kernel}' on stream ${launch.stream} (grid [${launch.grid}], block [${launch.block}])`
  ).join(", ");
  const more = snapshot.more > 0 ? `, and ${snapshot.more} more not listed` : "";
  return head + `Launches in flight when it was first seen, newest first, each stream's oldest ` +
    `among them (the likeliest cause): ${listed}${more}` + hint;
}
