/**
 * The CPU reference of `random` (tests/kernels_random_test.ts checks it against Random123's
 * known-answer vectors): Philox4x32-10 in doubles, the words of a stream, the uniform transform.
 */

/** The high and low words of the 64-bit product of two u32 (exact in doubles: 16-bit halves). */
function mulhilo(a: number, b: number): [number, number] {
  const x = (a >>> 16) * b; // < 2^48
  const y = (a & 0xffff) * b; // < 2^48
  const high = Math.floor(x / 65536) + Math.floor(((x % 65536) * 65536 + y) / 2 ** 32);
  return [high >>> 0, Math.imul(a, b) >>> 0];
}

/** Philox4x32-10 of one block, in doubles (independent of the kernel's 16-bit products). */
export function philox(counter: readonly number[], key: readonly number[]): number[] {
  let [c0, c1, c2, c3] = counter;
  let [k0, k1] = key;
  for (let round = 0; round < 10; round++) {
    const [h0, l0] = mulhilo(0xD2511F53, c0);
    const [h1, l1] = mulhilo(0xCD9E8D57, c2);
    [c0, c1, c2, c3] = [(h1 ^ c1 ^ k0) >>> 0, l1, (h0 ^ c3 ^ k1) >>> 0, l0];
    k0 = (k0 + 0x9E3779B9) >>> 0;
    k1 = (k1 + 0xBB67AE85) >>> 0;
  }
  return [c0, c1, c2, c3];
}

/** The words `offset .. offset + n` of the stream of `seed`, as the issue specifies them. */
export function words(seed: bigint, offset: number, n: number): Uint32Array {
  const key = [Number(seed & 0xffffffffn), Number(seed >> 32n)];
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
