/**
 * A `for` loop's initializer that increments or decrements (`for (i++; i < 10u;) {`), which WGSL
 * allows and `wgsl_reflect` 1.6 cannot read ("Expected assignment operator"): the text the parser
 * is given (`_wgsl_source.ts`) writes it `i += 1` / `i -= 1`, which it reads, with the same
 * names and calls in it (what the reflection looks for). The device compiles the user's text.
 *
 * @module
 */

/** One replacement in the parser's text. */
export interface TextEdit {
  readonly from: number;
  readonly to: number;
  readonly text: string;
}

/** The edits that write each `for (x++;` / `for (x--;` of `masked` (comments blanked) as `x += 1`. */
export function forInitSteps(masked: string): TextEdit[] {
  const edits: TextEdit[] = [];
  for (const m of masked.matchAll(/(?<![\p{XID_Continue}])for\s*\(/gu)) {
    const end = initializerEnd(masked, m.index! + m[0].length);
    if (end < 0) continue;
    const step = /(\+\+|--)\s*$/.exec(masked.slice(m.index! + m[0].length, end));
    if (step === null) continue;
    const from = m.index! + m[0].length + step.index;
    edits.push({ from, to: from + 2, text: step[1] === "++" ? " += 1" : " -= 1" });
  }
  return edits;
}

/** The index of the `;` that ends the initializer starting at `start` (outside brackets), or -1. */
function initializerEnd(text: string, start: number): number {
  let depth = 0;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (c === "(" || c === "[") depth++;
    else if (c === ")" || c === "]") {
      if (--depth < 0) return -1;
    } else if (c === ";") return depth === 0 ? i : -1;
    else if (c === "{" || c === "}") return -1;
  }
  return -1;
}
