/**
 * Reads the `@group(0) @binding(n) var<...>` declarations of a WGSL source, so the server can
 * build an explicit bind-group layout (an `"auto"` layout drops bindings the entry point does not
 * use, which would make the binding count depend on the kernel body) and check binding counts
 * before anything is enqueued.
 *
 * @module
 */

/** How a binding is declared. */
export type WgslAccess = "read" | "read_write" | "uniform";

/** One declared binding of group 0. */
export interface WgslBinding {
  readonly binding: number;
  readonly access: WgslAccess;
  /** 1-based source line of the declaration. */
  readonly line: number;
}

/** A problem found in the declarations, with its line. */
export class WgslBindingError extends Error {
  /** 1-based source line. */
  readonly line: number;
  constructor(message: string, line: number) {
    super(message);
    this.line = line;
  }
}

const DECLARATION = /((?:@\w+\s*\([^)]*\)\s*)+)var\s*<([^>]*)>/g;

/** Blanks out comments (keeping newlines so line numbers stay right). */
function stripComments(source: string): string {
  return source
    .replace(/\/\*[\s\S]*?\*\//g, (comment) => comment.replace(/[^\n]/g, " "))
    .replace(/\/\/[^\n]*/g, (comment) => " ".repeat(comment.length));
}

function attribute(attributes: string, name: string): number | undefined {
  const match = new RegExp(`@${name}\\s*\\(\\s*(\\d+)\\s*\\)`).exec(attributes);
  return match === null ? undefined : Number(match[1]);
}

/**
 * The group-0 bindings in binding order. Throws {@linkcode WgslBindingError} for another group,
 * a gap in the numbering, or a duplicate.
 */
export function parseWgslBindings(source: string): WgslBinding[] {
  const code = stripComments(source);
  const found: WgslBinding[] = [];
  for (const match of code.matchAll(DECLARATION)) {
    const line = code.slice(0, match.index).split("\n").length +
      (match[1].match(/\n/g)?.length ?? 0);
    const group = attribute(match[1], "group");
    const binding = attribute(match[1], "binding");
    if (group === undefined || binding === undefined) continue;
    if (group !== 0) {
      throw new WgslBindingError(`only @group(0) is supported, found @group(${group})`, line);
    }
    const [space, mode] = match[2].split(",").map((part) => part.trim());
    const access: WgslAccess = space === "uniform"
      ? "uniform"
      : mode === "read_write"
      ? "read_write"
      : "read";
    if (found.some((other) => other.binding === binding)) {
      throw new WgslBindingError(`@binding(${binding}) is declared twice`, line);
    }
    found.push({ binding, access, line });
  }
  found.sort((a, b) => a.binding - b.binding);
  found.forEach((entry, i) => {
    if (entry.binding !== i) {
      throw new WgslBindingError(
        `bindings must be numbered 0..n-1 without gaps, found @binding(${entry.binding})`,
        entry.line,
      );
    }
  });
  return found;
}

/** The 1-based line of a `wgsl:LINE:COL` location in a compiler message. */
export function wgslErrorLine(message: string): number | undefined {
  const match = /wgsl:(\d+):(\d+)/.exec(message);
  return match === null ? undefined : Number(match[1]);
}
