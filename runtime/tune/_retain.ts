/**
 * Keeps a caller's inputs alive for a tuning run that outlives the call (`background` mode): every
 * handle among them (the inputs themselves, or their own properties, or array elements) is cloned,
 * a new owner of the same memory, so the caller may dispose its handles as soon as the call
 * returns; `release` disposes the clones.
 */

import { Handle } from "../core/handles/handle.ts";

/** The inputs with their handles cloned, and how to release the clones. */
export function retainInputs<I>(inputs: I): { inputs: I; release: () => void } {
  const clones: Handle[] = [];
  const keep = (value: unknown): unknown => {
    if (!(value instanceof Handle) || value.disposed) return value;
    const clone = value.clone();
    clones.push(clone);
    return clone;
  };
  let kept: unknown = inputs;
  if (inputs instanceof Handle) kept = keep(inputs);
  else if (Array.isArray(inputs)) kept = inputs.map(keep);
  else if (isPlainObject(inputs)) {
    kept = Object.fromEntries(Object.entries(inputs).map(([name, value]) => [name, keep(value)]));
  }
  return {
    inputs: kept as I,
    release: () => clones.forEach((clone) => clone.dispose()),
  };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
