/**
 * What the texture tests share (tests/webgpu_texture_*_test.ts): whether this machine has a
 * WebGPU adapter, a `throws` naming the message's parts, and distinct test bytes.
 *
 * @module
 */
import assert from "node:assert/strict";

const adapter = await navigator.gpu?.requestAdapter();
/** No WebGPU adapter on this machine: the tests are ignored. */
export const ignore: boolean = adapter === null || adapter === undefined;

/** Asserts `fn` throws a `Class` whose message includes every one of `texts`. */
export function throwsWith(
  fn: () => unknown,
  Class: new (...a: never[]) => Error,
  ...texts: string[]
): void {
  assert.throws(
    fn,
    (e) => e instanceof Class && texts.every((t) => e.message.includes(t)),
    `${Class.name}: ${texts.join(" … ")}`,
  );
}

/** `n` distinct bytes (a `salt` makes another sequence). */
export const bytes = (n: number, salt = 0): Uint8Array =>
  Uint8Array.from({ length: n }, (_, i) => (i * 7 + salt * 13) % 251);
