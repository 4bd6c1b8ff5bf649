/** The median of a non-empty list (mean of the middle two for an even count). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** The smallest value of a non-empty list. */
export function minimum(values: readonly number[]): number {
  return values.reduce((a, b) => Math.min(a, b), Infinity);
}

/** Samples in rounds: `samples[i]` was taken in round `rounds[i]` (rounds ascending). */
export interface RoundSamples {
  readonly samples: readonly number[];
  readonly rounds: readonly number[];
}

/**
 * `a / b` for every round both were sampled in. Candidates sampled in one round ran back to back,
 * so a slow phase of a shared device (other work, a CPU adapter's threads) hits both and cancels
 * out of the ratio, where it does not cancel out of medians taken over different rounds.
 */
export function pairedRatios(a: RoundSamples, b: RoundSamples): number[] {
  const ratios: number[] = [];
  let j = 0;
  for (let i = 0; i < a.rounds.length; i++) {
    while (j < b.rounds.length && b.rounds[j] < a.rounds[i]) j++;
    if (j < b.rounds.length && b.rounds[j] === a.rounds[i]) {
      ratios.push(a.samples[i] / b.samples[j]);
    }
  }
  return ratios;
}
