/**
 * How the tuner samples the candidates of one plan group: warm-up, then rounds of one timed
 * sample per live candidate, with adaptive stopping and elimination (CubeCL's current tuner does
 * the same), or plain fixed sampling.
 *
 * @module
 */

import { median, minimum, pairedRatios, type RoundSamples } from "./_stats.ts";
import { checkSampling } from "./_checks.ts";

/**
 * Options of the sampling of each candidate.
 *
 * @example Plain warm-up + 10 samples, as a baseline
 * ```ts
 * import type { SamplingOptions } from "@gpucompute/runtime/tune";
 * const fixed: SamplingOptions = { adaptive: false, maxSamples: 10 };
 * ```
 */
export interface SamplingOptions {
  /**
   * Adaptive: stop a candidate once one more sample moves its median by at most `tolerance`, and
   * eliminate clearly slower candidates. Fixed: exactly `maxSamples` samples per candidate.
   * @default {true}
   */
  adaptive?: boolean;
  /**
   * Most samples per candidate after the warm-up (fixed sampling takes exactly this many).
   * @default {10}
   */
  maxSamples?: number;
  /**
   * How the winner is scored: the median of its samples (CubeCL's choice), or its best sample
   * (robust where other work preempts the device, as on a shared CPU adapter).
   * @default {"median"}
   */
  score?: "median" | "min";
  /**
   * Shortest timed sample in milliseconds: a candidate faster than this is run several times per
   * profiling window (as many as reach it, at most 64) and its time divided, so that short work
   * is not measured in the noise of one submission and one wait. The count is calibrated per
   * candidate by a second, timed warm-up run. 0 times single runs. (On the 2-core CPU fallback
   * adapter, 5 ms picked within 5% of the fastest on more keys than 2 ms: `bench/tune_quality.ts`.)
   * @default {5}
   */
  minSampleMs?: number;
  /**
   * Fewest samples before a candidate may stop or lead.
   * @default {3, or maxSamples when that is fewer}
   */
  minSamples?: number;
  /**
   * Relative change of the median under which more samples gain nothing.
   * @default {0.02}
   */
  tolerance?: number;
  /**
   * Eliminate a candidate slower than this factor times the leader (lowest median) in every
   * round both were sampled in, i.e. its best ratio to the leader (`Infinity` never eliminates).
   * @default {1.5}
   */
  eliminate?: number;
  /**
   * Candidates within this fraction of each other keep sampling (up to `maxSamples`) even once
   * stable: samples go where the decision is close. Close on the rounds both ran or by medians
   * over all their rounds, or ranked differently by the two, counts. 0 turns it off.
   * @default {0.05}
   */
  margin?: number;
  /**
   * Never eliminate below this many live candidates.
   * @default {2}
   */
  minSurvivors?: number;
  /**
   * Spare candidates with fewer samples than this from elimination.
   * @default {2}
   */
  minSamplesToEliminate?: number;
}

/**
 * A candidate as the sampler sees it.
 *
 * @example
 * ```ts
 * import type { Contender } from "@gpucompute/runtime/tune";
 * const steady: Contender = {
 *   name: "steady",
 *   warmup: () => Promise.resolve(),
 *   sample: () => Promise.resolve(1.5),
 * };
 * ```
 */
export interface Contender {
  /** Its name. */
  readonly name: string;
  /** Runs it once, untimed (compilation, caches, output checks); throws if it fails. */
  warmup(): Promise<void>;
  /**
   * Runs it once and returns the measured time in milliseconds; throws if it fails. A time that
   * is not a finite number >= 0 fails the contender (`RangeError`).
   */
  sample(): Promise<number>;
}

/**
 * What became of one candidate.
 *
 * @example
 * ```ts
 * import type { SampleResult } from "@gpucompute/runtime/tune";
 * const result: SampleResult = {
 *   name: "a",
 *   status: "ok",
 *   samples: [1, 1.1, 1],
 *   rounds: [0, 1, 2],
 *   median: 1,
 * };
 * ```
 */
export interface SampleResult {
  /** Its name. */
  readonly name: string;
  /**
   * `ok`: measured; `eliminated`: dropped as clearly slower; `failed`: threw or failed a check;
   * `skipped`: never sampled (the short-circuit accepted another candidate first).
   */
  readonly status: "ok" | "eliminated" | "failed" | "skipped";
  /** Its timed samples in milliseconds (the warm-up is not among them). */
  readonly samples: readonly number[];
  /**
   * The round of each sample: in a round every live candidate is sampled once, back to back, so
   * candidates are compared on the rounds they share (see {@linkcode fastestOf}).
   */
  readonly rounds: readonly number[];
  /** The median of the samples, when there are any. */
  readonly median?: number;
  /** Why it failed. */
  readonly error?: unknown;
}

/**
 * Options of {@linkcode sampleGroup} beyond the sampling itself.
 *
 * @example Accept anything within 2 ms
 * ```ts
 * import type { SampleGroupOptions } from "@gpucompute/runtime/tune";
 * const options: SampleGroupOptions = { accept: (ms) => ms <= 2 };
 * ```
 */
export interface SampleGroupOptions extends SamplingOptions {
  /** Accepts a candidate at once when its median (after `minSamples`) passes this test. */
  accept?: (medianMs: number) => boolean;
}

interface State {
  readonly contender: Contender;
  status: "running" | "done" | "eliminated" | "failed";
  readonly samples: number[];
  readonly rounds: number[];
  error?: unknown;
}

/**
 * Samples one group. Returns every candidate's result and the accepted candidate when the
 * `accept` short-circuit fired. Candidates are sampled round-robin, so elimination can act after
 * a few samples of each, and an eliminated candidate is never sampled again.
 *
 * @example
 * ```ts
 * import { sampleGroup } from "@gpucompute/runtime/tune";
 * const fixed = (name: string, ms: number) => ({
 *   name,
 *   warmup: () => Promise.resolve(),
 *   sample: () => Promise.resolve(ms),
 * });
 * const { results } = await sampleGroup([fixed("fast", 1), fixed("slow", 9), fixed("slower", 20)]);
 * console.log(results.map((r) => `${r.name}: ${r.status}`)); // fast: ok, slow: ok, slower: eliminated
 * ```
 */
export async function sampleGroup(
  contenders: readonly Contender[],
  options: SampleGroupOptions = {},
): Promise<{ results: SampleResult[]; accepted?: string }> {
  const {
    adaptive = true,
    maxSamples = 10,
    minSamples = Math.min(3, maxSamples),
    tolerance = 0.02,
    eliminate = 1.5,
    minSurvivors = 2,
    minSamplesToEliminate = 2,
    margin = 0.05,
  } = options;
  checkSampling(options);
  const states: State[] = contenders.map((contender) => ({
    contender,
    status: "running",
    samples: [],
    rounds: [],
  }));
  for (const state of states) {
    // The first run is biased (compilation, cold caches): run it, check it, drop its time.
    try {
      await state.contender.warmup();
    } catch (error) {
      Object.assign(state, { status: "failed", error });
    }
  }
  let accepted: string | undefined;
  for (
    let round = 0;
    accepted === undefined && states.some((s) => s.status === "running");
    round++
  ) {
    for (const state of states) {
      if (state.status !== "running") continue;
      try {
        const ms = await state.contender.sample();
        if (!(Number.isFinite(ms) && ms >= 0)) { // it would win or lose at random
          throw new RangeError(`${state.contender.name} sampled ${ms} ms: not a duration`);
        }
        state.samples.push(ms);
        state.rounds.push(round);
      } catch (error) {
        Object.assign(state, { status: "failed", error });
        continue;
      }
      const n = state.samples.length;
      if (n >= maxSamples || (adaptive && n >= minSamples && stable(state.samples, tolerance))) {
        state.status = "done";
      }
      if (
        options.accept !== undefined && n >= minSamples && options.accept(median(state.samples))
      ) {
        accepted = state.contender.name;
        break;
      }
    }
    if (adaptive && accepted === undefined && Number.isFinite(eliminate)) {
      eliminateSlow(states, { eliminate, minSurvivors, minSamplesToEliminate });
    }
    if (adaptive && accepted === undefined && margin > 0) {
      // Spend samples where the decision is close: a stable candidate whose median is within
      // `margin` of another live one's keeps sampling (until maxSamples).
      reopenContested(states, { margin, maxSamples });
    }
  }
  const results = states.map(({ contender, status, samples, rounds, error }): SampleResult => ({
    name: contender.name,
    status: status === "running" || status === "done"
      ? (samples.length === 0 ? "skipped" : "ok")
      : status,
    samples,
    rounds,
    ...(samples.length > 0 ? { median: median(samples) } : {}),
    ...(status === "failed" ? { error } : {}),
  }));
  return accepted === undefined ? { results } : { results, accepted };
}

/** Whether the last sample moved the median by at most `tolerance` (relative). */
function stable(samples: readonly number[], tolerance: number): boolean {
  const now = median(samples);
  const before = median(samples.slice(0, -1));
  return Math.abs(now - before) <= tolerance * Math.max(now, Number.EPSILON);
}

function reopenContested(states: State[], options: { margin: number; maxSamples: number }) {
  const live = states.filter((s) => s.status === "done" || s.status === "running");
  for (const state of live) {
    if (state.status !== "done" || state.samples.length >= options.maxSamples) continue;
    const contested = live.some((other) => {
      if (other === state || other.samples.length === 0) return false;
      // How much slower this one is than the other: on the rounds both ran, and by medians over
      // all their rounds. Close by either, or the two disagree on which is faster: contested
      // (a candidate that stopped early is otherwise judged on its first rounds alone).
      const paired = relative(state, other);
      const medians = median(state.samples) / median(other.samples);
      const close = (ratio: number) => Math.abs(ratio - 1) <= options.margin * Math.min(1, ratio);
      return close(paired) || close(medians) || (paired < 1) !== (medians < 1);
    });
    if (contested) state.status = "running";
  }
}

function eliminateSlow(
  states: State[],
  options: { eliminate: number; minSurvivors: number; minSamplesToEliminate: number },
): void {
  const live = states.filter((s) => s.status === "running" || s.status === "done");
  const measured = live.filter((s) => s.samples.length >= options.minSamplesToEliminate);
  if (measured.length === 0) return;
  const leader = measured.reduce((a, b) => (median(b.samples) < median(a.samples) ? b : a));
  // Slower than `eliminate` times the leader in every round both ran (a slow phase of the device
  // hits both, so it cannot eliminate a candidate); the best paired ratio, per candidate.
  const best = new Map<State, number>();
  for (const s of measured) {
    if (s === leader) continue;
    const ratios = pairedRatios(s, leader);
    best.set(
      s,
      ratios.length > 0 ? minimum(ratios) : minimum(s.samples) / median(leader.samples),
    );
  }
  // Worst first, so the survivors kept by minSurvivors are the fastest ones.
  const slow = [...best]
    .filter(([, ratio]) => ratio > options.eliminate)
    .sort((a, b) => b[1] - a[1])
    .map(([s]) => s);
  let alive = live.length;
  for (const state of slow) {
    if (alive <= options.minSurvivors) break;
    state.status = "eliminated";
    alive--;
  }
}

/** How many times slower `a` is than `b`: the median ratio on shared rounds, else of medians. */
function relative(a: RoundSamples, b: RoundSamples): number {
  const ratios = pairedRatios(a, b);
  return ratios.length > 0 ? median(ratios) : median(a.samples) / median(b.samples);
}

/**
 * The fastest measured candidate: by `"median"`, the one with the lowest median, then each other
 * candidate that beats it on the rounds both ran (median ratio below 1, over at least
 * `minShared` rounds) takes its place, until none does; by `"min"`, the lowest best sample.
 * Undefined when none was measured.
 *
 * @example
 * ```ts
 * import { fastestOf } from "@gpucompute/runtime/tune";
 * // "b" ran in a slow phase of the device (rounds 2-3) that "a" was not sampled in.
 * const picked = fastestOf([
 *   { name: "a", status: "ok", samples: [1.0, 1.0], rounds: [0, 1], median: 1.0 },
 *   { name: "b", status: "ok", samples: [0.9, 0.9, 1.8, 1.8], rounds: [0, 1, 2, 3], median: 1.35 },
 * ]);
 * console.log(picked); // "b": 10% faster than "a" in the rounds both ran
 * ```
 */
export function fastestOf(
  results: readonly SampleResult[],
  score: "median" | "min" = "median",
  minShared = 2,
): string | undefined {
  const measured = results.filter((r) => r.status === "ok" && r.samples.length > 0);
  if (measured.length === 0) return undefined;
  const value = (r: SampleResult) => score === "min" ? minimum(r.samples) : median(r.samples);
  let winner = measured.reduce((a, b) => (value(b) < value(a) ? b : a));
  if (score === "min") return winner.name;
  // A few passes at most: each switch is to a candidate faster on shared rounds.
  for (let pass = 0; pass < measured.length; pass++) {
    const challenger = measured.find((r) =>
      r !== winner && pairedRatios(r, winner).length >= minShared && relative(r, winner) < 1
    );
    if (challenger === undefined) break;
    winner = challenger;
  }
  return winner.name;
}
