/**
 * What every launch of one kernel object asks the module cache and the device's limits alike: its
 * entry point and signature, its block (checked against `.reqntid`, `__launch_bounds__` and the
 * device), its function (loaded, shared memory allowed) and its PTX parameter sizes. Kept per
 * kernel object, so a launch makes one module-cache lookup instead of five.
 *
 * A plan is used again only while everything it was made from is the same: the module cache's
 * record of the kernel's strings (`ptx`, `source`, `entryPoint`, `compileOptions`; a new record
 * after any change or a `clear()`, found by identity), `blockSize` (by value: an array changed in
 * place is another block) and `sharedMemoryBytes`. Anything else is made again and checked again;
 * a refused kernel has no plan, so its error comes again at every launch.
 *
 * @module
 */

import type { CudaKernel } from "../kernel.ts";
import type { ResolvedKernel } from "../compile/module_cache.ts";

/** What a launch of a kernel needs of its module and block. */
export interface LaunchPlan {
  /** The kernel's entry point and signature (the module cache's, by identity). */
  readonly resolved: ResolvedKernel;
  readonly block: readonly [number, number, number];
  readonly fn: Deno.PointerValue;
  /** The parameter sizes the PTX declares, when it declares them in `nvcc`'s form. */
  readonly expected: readonly number[] | undefined;
  /** The kernel's `blockSize` when the plan was made (a copy), `undefined` for none. */
  readonly blockSize: readonly [number, number, number] | undefined;
  readonly sharedMemoryBytes: number | undefined;
  /** The parameter sizes found equal to `expected` (a signature's own frozen array). */
  readonly checkedSizes: readonly number[] | undefined;
}

/**
 * The launch plans of one server's kernels. A launch asks {@linkcode LaunchPlans.get} for the
 * plan; without one it makes every check in its own order and then {@linkcode LaunchPlans.set}s
 * what they found, so the first launch of a kernel refuses exactly as one without plans would.
 */
export class LaunchPlans {
  readonly #plans = new WeakMap<CudaKernel, LaunchPlan>();

  /**
   * The plan made for `kernel` when nothing it was made from changed since: `resolved` (the
   * module cache's, just asked) is the plan's, and so are `blockSize` and `sharedMemoryBytes`.
   */
  get(kernel: CudaKernel, resolved: ResolvedKernel): LaunchPlan | undefined {
    const plan = this.#plans.get(kernel);
    if (
      plan !== undefined && plan.resolved === resolved &&
      plan.sharedMemoryBytes === kernel.sharedMemoryBytes && sameBlock(plan.blockSize, kernel)
    ) {
      return plan;
    }
    return undefined;
  }

  /** Keeps what a launch of `kernel` found, once every check of it passed. */
  set(
    kernel: CudaKernel,
    resolved: ResolvedKernel,
    block: readonly [number, number, number],
    fn: Deno.PointerValue,
    expected: readonly number[] | undefined,
    sizes: readonly number[],
  ): void {
    const size = kernel.blockSize;
    this.#plans.set(kernel, {
      resolved,
      // copies: the caller's blockSize array (which `block` may be) can change in place
      block: [block[0], block[1], block[2]],
      fn,
      expected,
      blockSize: size === undefined ? undefined : [size[0], size[1], size[2]],
      sharedMemoryBytes: kernel.sharedMemoryBytes,
      // only an array that cannot change vouches for later launches passing the same one
      checkedSizes: Object.isFrozen(sizes) ? sizes : undefined,
    });
  }
}

/** Whether `kernel.blockSize` holds what `planned` does (both absent, or equal values). */
function sameBlock(
  planned: readonly [number, number, number] | undefined,
  kernel: CudaKernel,
): boolean {
  const size = kernel.blockSize;
  if (size === undefined || planned === undefined) return size === planned;
  return size[0] === planned[0] && size[1] === planned[1] && size[2] === planned[2];
}
