/**
 * The CPU reference of `random` (tests/kernels_random_test.ts checks it against Random123's
 * known-answer vectors): Philox4x32-10 on BigInts, the words of a stream, the uniform transform.
 */

const MASK = 0xffffffffn;

/** Philox4x32-10 of one block, on BigInts (independent of the kernel's 16-bit products). */
export function philox(counter: readonly number[], key: readonly number[]): number[] {
  let [c0, c1, c2, c3] = counter.map(BigInt);
  let [k0, k1] = key.map(BigInt);
  for (let round = 0; round < 10; round++) {
    const p0 = 0xD2511F53n * c0;
    const p1 = 0xCD9E8D57n * c2;
    [c0, c1, c2, c3] = [(p1 >> 32n) ^ c1 ^ k0, p1 & MASK, (p0 >> 32n) ^ c3 ^ k1, p0 & MASK];
    k0 = (k0 + 0x9E3779B9n) & MASK;
    k1 = (k1 + 0xBB67AE85n) & MASK;
  }
  return [c0, c1, c2, c3].map(Number);
}

/** The words `offset .. offset + n` of the stream of `seed`, as the issue specifies them. */
export function words(seed: bigint, offset: number, n: number): Uint32Array {
  const key = [Number(seed & MASK), Number(seed >> 32n)];
  const out = new Uint32Array(n);
  let cached = -1;
  let block: number[] = [];
  for (let j = 0; j < n; j++) {
    const i = offset + j;
    const b = Math.floor(i / 4);
    if (b !== cached) block = philox([b % 2 ** 32, Math.floor(b / 2 ** 32), 0, 0], key), cached = b;
    out[j] = block[i % 4];
  }
  return out;
}

/** The uniform float in [0, 1) of a word: its top 24 bits. */
export const unit = (word: number): number => (word >>> 8) * 2 ** -24;
