/**
 * The device's word where the runtime's reflection is unsure. Some refusals of the reflection do
 * not mean the WGSL is invalid: `wgsl_reflect` cannot parse a construct, a `@workgroup_size`
 * uses a function the runtime does not evaluate, an override's type cannot be told. Such an
 * error is marked {@linkcode unsure}; `PipelineCache.compile` then compiles the module on the
 * device (`getCompilationInfo`) and answers with one of:
 *
 * - `CompilationError` with the device compiler's message and line: the WGSL is invalid;
 * - `UnsupportedError` naming the construct (the reflection's own message, kept as `cause`):
 *   valid WGSL that the runtime cannot reflect, so it cannot run it.
 *
 * A synchronous `execute` cannot wait for the device: it throws the reflection's error (which
 * says that the device may compile the construct), and once the device has answered, the
 * verdict.
 *
 * @module
 */

import { CompilationError, type ComputeError, UnsupportedError } from "../../../core/errors.ts";

const UNSURE = new WeakSet<Error>();

/** Marks a reflection error as one where the WGSL may still be valid; returns it. */
export function unsure<E extends Error>(error: E): E {
  UNSURE.add(error);
  return error;
}

/** Whether the error was marked {@linkcode unsure}. */
export function isUnsure(error: unknown): error is CompilationError {
  return error instanceof CompilationError && UNSURE.has(error);
}

/**
 * Compiles `source` on `device` and decides (see the module doc). A device that cannot answer
 * leaves the reflection's error as it is.
 */
export async function deviceVerdict(
  device: GPUDevice,
  source: string,
  error: CompilationError,
): Promise<ComputeError> {
  let messages: readonly GPUCompilationMessage[];
  device.pushErrorScope("validation");
  try {
    const module = device.createShaderModule({ code: source, label: error.kernel });
    messages = (await module.getCompilationInfo()).messages;
  } catch {
    return error;
  } finally {
    // The module's own validation error is the verdict's, not an uncaptured one.
    device.popErrorScope().catch(() => {});
  }
  const first = messages.find((m) => m.type === "error");
  if (first !== undefined) {
    const text = compilerMessage(first.message);
    return new CompilationError(
      error.kernel,
      text,
      first.lineNum > 0 ? first.lineNum : wgslErrorLine(text),
      { cause: error },
    );
  }
  return new UnsupportedError(
    `Kernel '${error.kernel}' is valid WGSL (the device compiles it) that the runtime cannot ` +
      `reflect, so it cannot bind and launch it${
        error.line === undefined ? "" : ` (line ${error.line})`
      }: ${error.compilerMessage}`,
    "UNSUPPORTED",
    { cause: error },
  );
}

/**
 * The 1-based line of the first `┌─ NAME:LINE:COL` location in a compiler message (naga writes
 * `wgsl:` for parse errors, the module's label, or nothing, for validation errors).
 */
export function wgslErrorLine(message: string): number | undefined {
  const match = /┌─\s*[^\s:]*:(\d+):(\d+)/.exec(message) ?? /wgsl:(\d+):(\d+)/.exec(message);
  return match === null ? undefined : Number(match[1]);
}

/**
 * A compiler message as the user reads it: trimmed, without the last line when it only repeats
 * the note above it (naga's validation errors end with `: <the note's text>` again).
 */
export function compilerMessage(message: string): string {
  const text = message.trim();
  const lines = text.split("\n");
  const last = lines.at(-1)!;
  if (lines.length > 1 && last.startsWith(": ")) {
    const repeated = last.slice(2).trim();
    if (repeated !== "" && lines.slice(0, -1).some((line) => line.includes(repeated))) {
      return lines.slice(0, -1).join("\n").trimEnd();
    }
  }
  return text;
}
