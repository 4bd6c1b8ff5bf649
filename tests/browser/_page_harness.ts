/**
 * The in-page side of the browser tests: a `Deno.TestContext` look-alike whose `step` runs the
 * case and records its outcome, so suites written for `deno test` (the server conformance suite)
 * run in the page unchanged. The page publishes its results on `globalThis.__browserTest`;
 * tests/browser_test.ts replays them as `deno test` steps, the page's error text included.
 *
 * @module
 */

/** One case's outcome, as the Deno side receives it. */
export interface CaseResult {
  /** Group, then nested step names. */
  readonly path: readonly string[];
  readonly ok: boolean;
  /** Why the case was skipped, when it was. */
  readonly skipped?: string;
  /** The error's name, message and stack, when it failed. */
  readonly error?: string;
  readonly ms: number;
}

/** What a page publishes. */
export interface PageReport {
  /** The case running now (for a timeout's message). */
  current: string;
  /** Every result so far. */
  readonly results: CaseResult[];
  /** Resolves once every group ran. */
  readonly done: Promise<CaseResult[]>;
}

type StepFn = (t: PageTestContext) => void | Promise<void>;
type StepDefinition = { name: string; fn: StepFn; ignore?: boolean };

/** The subset of `Deno.TestContext` the suites use: `step(name, fn)` and `step({ ignore })`. */
export class PageTestContext {
  readonly #path: readonly string[];
  readonly #report: PageReport;

  constructor(path: readonly string[], report: PageReport) {
    this.#path = path;
    this.#report = report;
  }

  /** Runs a step (nested steps get their own context); resolves with whether it passed. */
  async step(definition: string | StepDefinition, fn?: StepFn): Promise<boolean> {
    const def = typeof definition === "string" ? { name: definition, fn: fn! } : definition;
    const path = [...this.#path, def.name];
    if (def.ignore) {
      this.#report.results.push({ path, ok: true, skipped: "ignored", ms: 0 });
      return true;
    }
    return await record(path, this.#report, () => def.fn(new PageTestContext(path, this.#report)));
  }
}

async function record(
  path: readonly string[],
  report: PageReport,
  fn: () => void | Promise<void>,
): Promise<boolean> {
  report.current = path.join(" > ");
  const started = performance.now();
  const index = report.results.length; // nested steps land after this one's slot
  report.results.push({ path, ok: true, ms: 0 });
  try {
    await fn();
    report.results[index] = { path, ok: true, ms: performance.now() - started };
    return true;
  } catch (error) {
    const ms = performance.now() - started;
    report.results[index] = error instanceof Skip
      ? { path, ok: true, skipped: error.message, ms }
      : { path, ok: false, error: describe(error), ms };
    return error instanceof Skip;
  }
}

/** Thrown by a case that cannot run here: recorded as skipped, with the reason. */
export class Skip extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = "Skip";
  }
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause === undefined ? "" : `\ncaused by: ${describe(error.cause)}`;
  const stack = error.stack?.includes(error.message) ? error.stack : undefined;
  return `${stack ?? `${error.name}: ${error.message}`}${cause}`;
}

/**
 * Runs the page's groups in order, each a `(t) => ...` with steps, and publishes the results.
 * A group that throws outside any step is recorded as a failed case of its own.
 */
export function runGroups(groups: Record<string, StepFn>): PageReport {
  const { promise, resolve } = Promise.withResolvers<CaseResult[]>();
  const report: PageReport = { current: "", results: [], done: promise };
  (globalThis as { __browserTest?: PageReport }).__browserTest = report;
  (async () => {
    for (const [name, fn] of Object.entries(groups)) {
      const t = new PageTestContext([name], report);
      await record([name], report, () => fn(t)).catch(() => {});
    }
    resolve(report.results);
  })();
  return report;
}
