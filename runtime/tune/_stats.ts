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
