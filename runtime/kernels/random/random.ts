/**
 * Random numbers on the device from a counter-based generator, Philox4x32-10: the same `seed` and
 * `offset` give the same numbers on every device, backend and launch size.
 *
 * @module
 */

import type { ComputeClient } from "../../client/client.ts";
import type { Handle } from "../../core/handles/handle.ts";
import type { StreamId } from "../../core/stream_id.ts";
import { count, finite, withOutput } from "../_shape.ts";
import { backendTexts, launch } from "../_backend_kernels.ts";
import { type RandomKind, randomWgsl } from "./_random_wgsl.ts";
import { randomCuda } from "./_random_cuda.ts";
import { checkCall } from "../_inputs.ts";

/**
 * Options of {@linkcode random}.
 *
 * @example A stream of uniform floats continued across two calls
 * ```ts
 * import type { RandomOptions } from "@gpucompute/runtime";
 * const first: RandomOptions = { seed: 42 };
 * const next: RandomOptions = { seed: 42, offset: 1000 }; // after 1000 numbers
 * ```
 */
export interface RandomOptions<T extends "f32" | "u32" = "f32" | "u32"> {
  /**
   * The generator's key: an integer in [0, 2^64) (a number up to 2^53 - 1, or a bigint); key
   * words `[seed mod 2^32, floor(seed / 2^32)]`.
   */
  seed: number | bigint;
  /**
   * The index of the call's first number in the stream of `seed` (in elements), so that a
   * stream continues across calls.
   * @default {0}
   */
  offset?: number;
  /**
   * `u32`: the generator's words; `f32`: floats of `distribution`.
   * @default {"f32"}
   */
  dtype?: T;
  /**
   * The distribution of f32 numbers (u32 numbers are uniform words).
   * @default {"uniform"}
   */
  distribution?: "uniform" | "normal";
  /**
   * Uniform: the lowest value (inclusive).
   * @default {0}
   */
  low?: number;
  /**
   * Uniform: the upper bound (exclusive: where f32 rounding of `low + (high - low) u` reaches
   * it, as it may even for `[1, 2)`, the number is the f32 below `high` in f32).
   * @default {1}
   */
  high?: number;
  /**
   * Normal: the mean.
   * @default {0}
   */
  mean?: number;
  /**
   * Normal: the standard deviation.
   * @default {1}
   */
  std?: number;
  /**
   * The stream to run on.
   * @default {currentStreamId()}
   */
  stream?: StreamId;
}

const text = backendTexts({
  webgpu: (kind) => randomWgsl(kind as RandomKind),
  cuda: (kind) => randomCuda(kind as RandomKind),
});
const TWO_32 = 2 ** 32;

/**
 * `n` random numbers on the device, from Philox4x32-10 (as cuRAND, JAX and PyTorch use). Number
 * `i` (counted from `offset`) is word `i mod 4` of the generator's block with counter
 * `[floor(i/4) mod 2^32, floor(i/4 / 2^32), 0, 0]` and key `[seed mod 2^32, floor(seed / 2^32)]`.
 * `u32` numbers are those words; uniform f32 numbers are `(word >> 8) * 2^-24` (24 random bits,
 * in [0, 1)) scaled to `[low, high)` (`low + (high - low) u` in f32, capped at the f32 below
 * `high` in f32, which rounding would otherwise reach); normal f32 numbers come in pairs (numbers
 * 2p and 2p + 1) from Box-Muller on the pair's two uniforms (`sqrt(-2 ln(1 - u0))` times the
 * cosine or sine of `2 pi u1`), times `std` plus `mean`. So u32 and uniform numbers are bit-identical on every
 * device and launch size (and to a CPU implementation); normal ones agree to the device's `log`,
 * `cos` and `sin`, which WGSL lets be `2^-11` off (Chromium's SwiftShader: by about `2e-4`, so
 * `z` by `r` times that). The numbers do not depend on `n`: a call with `offset: k` continues a
 * call of `k` numbers.
 *
 * `RangeError` naming the option for a seed that is not an integer in [0, 2^64), a negative or
 * non-integer `n` or `offset`, a non-finite bound, `high - low` beyond f32 or a negative `std`;
 * `TypeError` for an unknown `dtype` or `distribution`, or an option the numbers do not use
 * (`mean` or `std` without `distribution: "normal"`, `low` or `high` of normal or u32 numbers).
 *
 * @example
 * ```ts
 * import { createClient, random } from "@gpucompute/runtime";
 * using client = await createClient();
 * using u = random(client, 1000, { seed: 7 }); // f32 in [0, 1)
 * using z = random(client, 1000, { seed: 7, distribution: "normal", mean: 10, std: 2 });
 * using words = random(client, 4, { seed: 0, dtype: "u32" });
 * console.log(await client.read(words)); // Uint32Array [0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8]
 * ```
 */
export function random<T extends "f32" | "u32" = "f32">(
  client: ComputeClient,
  n: number,
  options: RandomOptions<T>,
): Handle<T> {
  checkCall("random", client, options, [
    "seed",
    "offset",
    "dtype",
    "distribution",
    "low",
    "high",
    "mean",
    "std",
    "stream",
  ]);
  const what = "random";
  count(n, "n", what);
  if (options === null || typeof options !== "object") {
    throw new TypeError("random: options with a seed are required");
  }
  const [key0, key1] = keyOf(options.seed);
  const offset = count(options.offset ?? 0, "offset", what);
  if (!Number.isSafeInteger(offset + n)) {
    throw new RangeError(`random: offset + n must be below 2^53, got ${offset} + ${n}`);
  }
  const dtype = options.dtype ?? "f32";
  if (dtype !== "f32" && dtype !== "u32") {
    throw new TypeError(`random: dtype must be "f32" or "u32", got ${JSON.stringify(dtype)}`);
  }
  const distribution = options.distribution ?? "uniform";
  if (distribution !== "uniform" && distribution !== "normal") {
    throw new TypeError(
      `random: distribution must be "uniform" or "normal", got ${JSON.stringify(distribution)}`,
    );
  }
  if (dtype === "u32" && distribution !== "uniform") {
    throw new TypeError("random: u32 numbers are uniform words; a normal distribution needs f32");
  }
  const kind: RandomKind = dtype === "u32" ? "u32" : distribution;
  // An option of another kind would be ignored: `{ mean: 5, std: 2 }` without `distribution:
  // "normal"` gave uniform numbers in [0, 1), `{ dtype: "u32", low, high }` raw words.
  const applies = kind === "normal" ? ["mean", "std"] : kind === "uniform" ? ["low", "high"] : [];
  for (const option of ["low", "high", "mean", "std"] as const) {
    if (options[option] !== undefined && !applies.includes(option)) {
      throw new TypeError(
        `random: ${option} does not apply to ${
          kind === "u32" ? "u32 numbers (the generator's words)" : `the ${kind} distribution`
        }` + (option === "mean" || option === "std" ? ': give distribution: "normal"' : ""),
      );
    }
  }
  const [a, b] = kind === "normal"
    ? [finite(options.mean ?? 0, "mean", what), finite(options.std ?? 1, "std", what)]
    : [finite(options.low ?? 0, "low", what), finite(options.high ?? 1, "high", what)];
  if (kind === "uniform" && !(b > a)) {
    throw new RangeError(`random: high must be above low, got low ${a}, high ${b}`);
  }
  if (kind === "uniform" && !Number.isFinite(Math.fround(b - a))) {
    throw new RangeError(`random: high - low must be a finite f32, got ${b} - ${a}`);
  }
  if (kind === "normal" && b < 0) throw new RangeError(`random: std must be >= 0, got ${b}`);
  const kernel = text(client, what, kind);
  const { stream } = options;
  const block = Math.floor(offset / 4);
  const skip = offset % 4;
  return withOutput(client, n, dtype as T, { stream }, (out) => {
    if (n === 0) return;
    launch(client, kernel, {
      threads: Math.ceil((n + skip) / 4),
      buffers: [out],
      params: {
        n,
        base_lo: block % TWO_32,
        base_hi: Math.floor(block / TWO_32),
        skip,
        key0,
        key1,
        a,
        b: kind === "uniform" ? b - a : b,
        zero: 0, // keeps the WGSL's product from fusing into an FMA (_random_wgsl.ts)
        // Rounding of low + (high - low) u reached high (u = 1 - 2^-24 over [1, 2) gave 2).
        top: kind === "uniform" ? f32Below(b) : 0,
      },
      stream,
    });
  });
}

/** The key words of a seed: an integer in [0, 2^64). */
function keyOf(seed: unknown): [number, number] {
  if (typeof seed === "bigint") {
    if (seed < 0n || seed >= 1n << 64n) {
      throw new RangeError(`random: seed must be an integer in [0, 2^64), got ${seed}`);
    }
    return [Number(seed & 0xffffffffn), Number(seed >> 32n)];
  }
  if (typeof seed !== "number" || !Number.isSafeInteger(seed) || seed < 0) {
    throw new RangeError(
      `random: seed must be an integer in [0, 2^53) or a bigint in [0, 2^64), got ${String(seed)}`,
    );
  }
  return [seed % TWO_32, Math.floor(seed / TWO_32)];
}

/**
 * The f32 below `value` rounded to f32 (`value` finite): below `value` both as given and as the
 * f32 a kernel would compare with (0.7 rounds down to 0.69999999: the cap is the f32 below that).
 */
function f32Below(value: number): number {
  const rounded = Math.fround(value);
  if (rounded === 0) return -(2 ** -149);
  const bits = new Uint32Array(Float32Array.of(rounded).buffer);
  bits[0] += rounded > 0 ? -1 : 1; // one step toward -Infinity (Infinity steps to the largest f32)
  return new Float32Array(bits.buffer)[0];
}
