/**
 * `node:assert/strict` for the page: the browser bundle of the tests maps that specifier here
 * (tests/browser/_bundle.ts), so the server conformance suite and the in-page cases run unchanged.
 * Strict semantics (`Object.is`, prototypes compared; symbol keys, boxed primitives and typed
 * arrays' non-index properties are not compared), the subset the tests use; a matcher of a form
 * it does not know is a `TypeError`, never a silent pass. `tests/browser_test.ts` checks it
 * against Node's own assert on generated values.
 *
 * @module
 */

/** Thrown by a failed assertion, like Node's `AssertionError`. */
export class AssertionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "AssertionError";
  }
}

type Matcher =
  | RegExp
  | (abstract new (...args: never[]) => unknown)
  | ((error: unknown) => boolean)
  | Record<string, unknown>;

function fail(message: string | undefined, fallback: string): never {
  throw new AssertionError(message ?? fallback);
}

function show(value: unknown): string {
  if (typeof value === "bigint") return `${value}n`;
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value !== "object" || value === null) return String(value);
  try {
    const text = JSON.stringify(value, (_, v) => typeof v === "bigint" ? `${v}n` : v);
    return text.length > 200 ? text.slice(0, 200) + "..." : text;
  } catch {
    return Object.prototype.toString.call(value);
  }
}

/** Deep strict equality: same prototypes, own enumerable keys, `Object.is` on primitives. */
export function isDeepStrictEqual(
  a: unknown,
  b: unknown,
  seen = new Map<object, object>(),
): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  if (seen.get(a) === b) return true; // a cycle back to a pair being compared
  seen.set(a, b);
  try {
    return compareObjects(a, b, seen);
  } finally {
    seen.delete(a);
  }
}

function compareObjects(a: object, b: object, seen: Map<object, object>): boolean {
  const tag = Object.prototype.toString.call(a);
  if (tag !== Object.prototype.toString.call(b)) return false;
  if (a instanceof Date) return Object.is(a.getTime(), (b as Date).getTime());
  if (a instanceof RegExp) return String(a) === String(b);
  if (a instanceof Error && (a.message !== (b as Error).message || a.name !== (b as Error).name)) {
    return false;
  }
  if (ArrayBuffer.isView(a)) {
    // Elements only (not other own properties): typed arrays can be long.
    const [x, y] = [elements(a), elements(b as ArrayBufferView)];
    if (x.length !== y.length) return false;
    for (let i = 0; i < x.length; i++) if (!Object.is(x[i], y[i])) return false;
    return true;
  }
  if (a instanceof Map || a instanceof Set) {
    // Entries match one to one: primitives by identity, objects by deep equality (as Node).
    const pairs = (c: Map<unknown, unknown> | Set<unknown>) =>
      c instanceof Map ? [...c] : [...c].map((v) => [v, undefined]);
    const left = pairs(a);
    const right = pairs(b as typeof a);
    if (left.length !== right.length) return false;
    for (const [key, value] of left) {
      const at = right.findIndex(([k, v]) =>
        isDeepStrictEqual(key, k, seen) && isDeepStrictEqual(value, v, seen)
      );
      if (at < 0) return false;
      right.splice(at, 1);
    }
  }
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  if (keysA.length !== keysB.length) return false;
  for (const key of keysA) {
    if (!Object.prototype.hasOwnProperty.call(b, key)) return false;
    const [x, y] = [(a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]];
    if (!isDeepStrictEqual(x, y, seen)) return false;
  }
  return true;
}

function elements(view: ArrayBufferView): ArrayLike<unknown> {
  return view instanceof DataView
    ? new Uint8Array(view.buffer, view.byteOffset, view.byteLength)
    : view as unknown as ArrayLike<unknown>;
}

function matches(error: unknown, expected: Matcher | undefined): boolean {
  if (expected === undefined) return true;
  if (expected instanceof RegExp) return expected.test(String(error));
  if (typeof expected === "function") {
    // A class (Error or a subclass) is an instanceof check; any other function validates.
    if (expected.prototype !== undefined && error instanceof expected) return true;
    if (expected.prototype instanceof Error || (expected as unknown) === Error) return false;
    return (expected as (error: unknown) => boolean)(error) === true;
  }
  if (typeof expected === "object" && expected !== null) {
    return Object.entries(expected).every(([key, value]) => {
      const actual = (error as Record<string, unknown>)?.[key];
      return value instanceof RegExp && typeof actual === "string"
        ? value.test(actual)
        : isDeepStrictEqual(actual, value);
    });
  }
  throw new TypeError(`Unsupported error matcher: ${show(expected)}`);
}

function check(error: unknown, expected: Matcher | undefined, message?: string): void {
  if (!matches(error, expected)) {
    const text = error instanceof Error ? `${error.name}: ${error.message}` : show(error);
    fail(message, `The error does not match the expectation: ${text}`);
  }
}

/** `assert(value)`: `value` is truthy. */
function assert(value: unknown, message?: string): asserts value {
  if (!value) fail(message, `Expected a truthy value, got ${show(value)}`);
}

const api = {
  ok: assert,
  equal(actual: unknown, expected: unknown, message?: string): void {
    if (!Object.is(actual, expected)) {
      fail(message, `Expected ${show(actual)} to equal ${show(expected)}`);
    }
  },
  notEqual(actual: unknown, expected: unknown, message?: string): void {
    if (Object.is(actual, expected)) fail(message, `Expected a value other than ${show(actual)}`);
  },
  deepEqual(actual: unknown, expected: unknown, message?: string): void {
    if (!isDeepStrictEqual(actual, expected)) {
      fail(message, `Expected ${show(actual)} to deep-equal ${show(expected)}`);
    }
  },
  match(actual: string, pattern: RegExp, message?: string): void {
    if (typeof actual !== "string" || !pattern.test(actual)) {
      fail(message, `Expected ${show(actual)} to match ${pattern}`);
    }
  },
  doesNotMatch(actual: string, pattern: RegExp, message?: string): void {
    if (typeof actual !== "string" || pattern.test(actual)) {
      fail(message, `Expected ${show(actual)} not to match ${pattern}`);
    }
  },
  throws(fn: () => unknown, expected?: Matcher, message?: string): void {
    try {
      fn();
    } catch (error) {
      return check(error, expected, message);
    }
    fail(message, "Missing expected exception");
  },
  async rejects(
    promise: Promise<unknown> | (() => Promise<unknown>),
    expected?: Matcher,
    message?: string,
  ): Promise<void> {
    try {
      await (typeof promise === "function" ? promise() : promise);
    } catch (error) {
      return check(error, expected, message);
    }
    fail(message, "Missing expected rejection");
  },
  fail(message?: string): never {
    fail(message, "Failed");
  },
};

const strict = Object.assign(assert, api, { AssertionError });
export default strict;
export const { ok, equal, notEqual, deepEqual, match, doesNotMatch, throws, rejects } = api;
