/**
 * The PTX `.entry` of a C++-linkage `__global__` function (one not declared `extern "C"`), whose
 * name NVRTC and nvcc mangle (Itanium ABI): `__global__ void scale(float*, int)` is
 * `_Z5scalePfi`, in a namespace `_ZN2ns5scaleEPfi`. The entry is found by the function's name
 * (the last part of the mangled nested name) among the module's entries; overloads of one name
 * are ambiguous and refused, naming them. And the byte sizes of an entry's parameters.
 *
 * @module
 */

import { KernelArgumentError } from "../../../core/errors.ts";
import { PTX_ENTRY, PTX_POINTER_ATTRIBUTE } from "./_ptx_signature.ts";

/**
 * The names an Itanium-mangled function name `_Z...` declares: unqualified (`k`) and qualified by
 * its namespaces (`ops::k`), or `undefined`.
 */
function mangledNames(mangled: string): [string, string] | undefined {
  if (!mangled.startsWith("_Z")) return undefined;
  let at = 2;
  const nested = mangled[at] === "N";
  if (nested) at++;
  const parts: string[] = [];
  for (;;) {
    const digits = /^\d+/.exec(mangled.slice(at))?.[0];
    if (digits === undefined) break;
    at += digits.length;
    parts.push(mangled.slice(at, at + Number(digits)));
    at += Number(digits);
    if (!nested) break;
  }
  return (nested && mangled[at] !== "E") || parts.length === 0
    ? undefined
    : [parts[parts.length - 1], parts.join("::")];
}

/**
 * The `.entry` name in `ptx` of the kernel `entry`: `entry` itself when the PTX declares it
 * (`extern "C"`), else, for a C++-linkage kernel (`cxx`), the one mangled entry whose name is
 * `entry`; `entry` unchanged when there is none (the load then says the module lacks it). A
 * `KernelArgumentError` naming `entryPoint` when several overloads match.
 */
export function ptxEntryName(ptx: string, entry: string, cxx: boolean, kernel: string): string {
  const entries = [...ptx.matchAll(PTX_ENTRY)].map((m) => m[1]);
  if (!cxx || entries.includes(entry)) return entry;
  const found = entries.filter((name) => mangledNames(name)?.includes(entry));
  if (found.length > 1) {
    throw new KernelArgumentError(
      kernel,
      "entryPoint",
      `is '${entry}', a C++ __global__ function with ${found.length} overloads in the module ` +
        `(${found.join(", ")}): give each its own name, or declare the one to launch extern "C"`,
    );
  }
  return found[0] ?? entry;
}

/**
 * Parameter sizes in bytes of `.entry name(...)` in PTX (`.param .u64 x`, `.param .align 4 .b8
 * x[12]`): none for an entry declared without a parameter list (`.entry name { ... }`).
 */
export function ptxParamSizes(ptx: string, entry: string): number[] | undefined {
  const declared = [...ptx.matchAll(PTX_ENTRY)].find((m) => m[1] === entry);
  if (declared === undefined) return undefined;
  const params = new RegExp(
    String.raw`\.param\s+(?:\.align\s+\d+\s+)?\.[busf](\d+)\s+(?:${PTX_POINTER_ATTRIBUTE})?` +
      String.raw`[\w$]+(?:\[(\d+)\])?`,
    "g",
  );
  return [...(declared[2] ?? "").matchAll(params)].map((m) =>
    Number(m[1]) / 8 * (m[2] === undefined ? 1 : Number(m[2]))
  );
}
