/**
 * Which params of a generated kernel a captured graph's `replay({ params })` must not rewrite
 * (the kernels layer registers them, the graphs of every backend consult them).
 *
 * @module
 */
/**
 * The params of a launch that a captured graph's `replay({ params })` must not rewrite, by the
 * kernel object launched: the helpers' and primitives' own (an element count, a shape), which a
 * replay meant for another kernel of the graph with a param of the same name (`n`) rewrote.
 * `true`: every param of the kernel. The kernels layer registers its generated kernels here.
 */
export const fixedParams: WeakMap<object, ReadonlySet<string> | true> = new WeakMap();

/** Whether a replay may rewrite param `name` of a launch of `kernel`. */
export function replayable(kernel: object, name: string): boolean {
  const fixed = fixedParams.get(kernel);
  return fixed === undefined || (fixed !== true && !fixed.has(name));
}
