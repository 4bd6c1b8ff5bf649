/**
 * Template lists in WGSL text (`array<f32, N>`, `vec2<u32>`), told apart from comparisons and
 * shifts as WGSL's template list discovery does
 * (https://www.w3.org/TR/WGSL/#template-list-discovery): a `<` after an identifier opens a
 * candidate list; a `>` closes the innermost candidate opened at the same parenthesis depth and
 * is otherwise an operator. So `array<f32, (N >> 1u)>` and `select(4u, 8u, N > 4u)` read whole.
 *
 * @module
 */

/**
 * The index of the `>` closing the template list whose `<` is at `open`, or -1 when the text
 * ends it first (a `;`, `{`, `:`, an assignment, `&&` / `||` at its depth, an unbalanced `)`).
 */
export function templateEnd(text: string, open: number): number {
  const pending: number[] = [0]; // the parenthesis depth each open candidate started at
  let depth = 0;
  for (let i = open + 1; i < text.length; i++) {
    const c = text[i];
    const next = text[i + 1];
    if (c === "(" || c === "[") depth++;
    else if (c === ")" || c === "]") {
      while (pending.length > 0 && pending.at(-1)! >= depth) pending.pop();
      if (pending.length === 0) return -1;
      depth--;
    } else if (c === "<") {
      if (next === "<" || next === "=") i++; // a shift or <=
      else if (afterIdentifier(text, i)) pending.push(depth);
    } else if (c === ">") {
      if (pending.at(-1) === depth) {
        pending.pop();
        if (pending.length === 0) return i;
      } else if (next === ">" || next === "=") i++; // a shift or >=
    } else if (c === "=") {
      if (next === "=") i++;
      else if (!"!<>".includes(text[i - 1])) return -1;
    } else if ((c === "&" && next === "&") || (c === "|" && next === "|")) {
      while (pending.length > 0 && pending.at(-1) === depth) pending.pop();
      if (pending.length === 0) return -1;
      i++;
    } else if (c === ";" || c === "{" || c === ":") return -1;
  }
  return -1;
}

/** Splits at the commas outside parentheses, brackets and template lists. */
export function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "(" || c === "[") depth++;
    else if (c === ")" || c === "]") depth--;
    else if (c === "<" && afterIdentifier(text, i)) {
      const end = templateEnd(text, i);
      if (end >= 0) i = end;
    } else if (c === "," && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

/** Whether the word before `at` (blankspace skipped) is an identifier, not a number. */
function afterIdentifier(text: string, at: number): boolean {
  let k = at - 1;
  while (k >= 0 && /\s/.test(text[k])) k--;
  let start = k;
  while (start >= 0 && /[\p{XID_Continue}]/u.test(text[start])) start--;
  return start < k && /[\p{XID_Start}_]/u.test(text[start + 1]);
}
