/**
 * Helpers of the user-kernel tests (tests/cuda_user_kernels_*_test.ts): run a CUDA C kernel
 * through `client.execute` as a user does and read its outputs; compare with a CPU reference.
 *
 * @module
 */
import assert from "node:assert/strict";
import type { ComputeClient } from "../mod.ts";
import type { CudaKernel } from "../runtime/server/cuda/kernel.ts";

/** The typed arrays the tests pass and read. */
export type Data = Float32Array | Int32Array | Uint32Array | Float64Array | Uint8Array;

/**
 * Runs `kernel` with `buffers` for its pointer parameters in order; reads every buffer back (a
 * `BigInt64Array` comes back as one, typed `Data`: cast it).
 */
export async function launch(
  client: ComputeClient,
  kernel: CudaKernel,
  threads: number | [number, number] | [number, number, number],
  buffers: (Data | BigInt64Array | BigUint64Array | Int8Array)[],
  params?: Record<string, number | bigint>,
): Promise<Data[]> {
  const made = buffers.map((d) => client.createWithData(d));
  try {
    client.execute(kernel, { threads, buffers: made, params });
    return (await client.readMany(made)) as Data[];
  } finally {
    for (const b of made) b.dispose();
  }
}

/** The first element where `got` is off `want` by more than `tol` relative (absolute below 1). */
export function mismatch(
  got: ArrayLike<number>,
  want: ArrayLike<number>,
  tol = 0,
): string | undefined {
  assert.equal(got.length, want.length);
  for (let i = 0; i < want.length; i++) {
    const err = Math.abs(got[i] - want[i]) / Math.max(1, Math.abs(want[i]));
    if (!(err <= tol) && !(Object.is(got[i], want[i]))) {
      return `element ${i}: got ${got[i]}, want ${want[i]}`;
    }
  }
  return undefined;
}

/** `n` deterministic values in [-1, 1) (a linear congruential generator from `seed`). */
export function randoms(n: number, seed = 1): Float32Array {
  let s = seed >>> 0;
  return Float32Array.from({ length: n }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return (s >>> 8) / 2 ** 23 - 1;
  });
}

/**
 * What lane 0 holds after a warp's xor-butterfly sum (`v += __shfl_xor_sync(~0, v, mask)` for
 * mask `width / 2` down to 1) of the f32 `lanes` (one per lane, 32), each lane's sum rounded to
 * f32 at every step as the device adds; `lanes[l]` for every `l` of the result's group when
 * `width` < 32 (lane 0's group: lanes 0 to width - 1).
 */
export function xorWarpSum(lanes: ArrayLike<number>, width = 32): number {
  let v = Array.from(lanes);
  for (let mask = width >> 1; mask >= 1; mask >>= 1) {
    v = v.map((x, l) => Math.fround(x + v[l ^ mask]));
  }
  return v[0];
}
