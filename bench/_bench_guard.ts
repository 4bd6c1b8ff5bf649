/**
 * Imported first by every `bench/*_bench.ts` (tools/check_bench.ts checks it): `deno bench` awaits
 * a benchmark's `fn` only when it is an `async function` (it compares the function's constructor
 * with `AsyncFunction`); a plain function or arrow that returns a promise is timed up to its
 * return, so the GPU work it waits for is left out of the figure and piles up behind the next
 * iteration. That made raw baselines (`fn: () => rawOneEncoder(...)`) and some of the client's
 * own figures look several times faster than they are. This guard wraps `Deno.bench` so that such
 * an `fn` throws at its first call, naming the benchmark, instead of measuring something else.
 *
 * @module
 */

type BenchFn = (b: Deno.BenchContext) => void | Promise<void>;
const AsyncFunction = (async () => {}).constructor;
const register = Deno.bench.bind(Deno);

/** `fn`, or for a non-async `fn`, a wrapper that refuses a returned promise. */
export function guarded(name: string, fn: BenchFn): BenchFn {
  if (fn.constructor === AsyncFunction) return fn;
  return (b) => {
    const result = fn(b) as unknown;
    if (typeof (result as { then?: unknown } | undefined)?.then === "function") {
      throw new TypeError(
        `bench "${name}": fn returned a promise but is not an async function, so deno bench ` +
          `would not wait for it: declare it async and await the work`,
      );
    }
  };
}

// Deno.bench(desc) / (name, fn) / (name, options, fn) / (fn) / (options, fn)
Deno.bench = ((...args: unknown[]) => {
  const fnAt = args.findIndex((a) => typeof a === "function");
  if (fnAt >= 0) {
    const named = args.find((a) => typeof a === "string") as string | undefined;
    const options = args.find((a) => typeof a === "object" && a !== null) as
      | { name?: string }
      | undefined;
    const fn = args[fnAt] as BenchFn;
    args[fnAt] = guarded(named ?? options?.name ?? fn.name, fn);
  } else if (typeof args[0] === "object" && args[0] !== null) {
    const desc = args[0] as { name: string; fn: BenchFn };
    args[0] = { ...desc, fn: guarded(desc.name, desc.fn) };
  }
  return (register as (...a: unknown[]) => void)(...args);
}) as typeof Deno.bench;
