/**
 * A checker of the Chrome Trace Event Format (the JSON object form), after the format's
 * specification ("Trace Event Format", Google, docs/trace_event_format): required fields per
 * phase, known phases, integer pid/tid, per-track monotonic timestamps in file order, begin/end
 * pairs that match as a stack per track, flow starts and finishes that pair up, numeric counters.
 * Returns every problem found (empty when the file is valid).
 */

const PHASES = new Set(["X", "B", "E", "i", "I", "C", "s", "t", "f", "M"]);

export function traceFormatProblems(file: unknown): string[] {
  const problems: string[] = [];
  if (typeof file !== "object" || file === null || !Array.isArray((file as never)["traceEvents"])) {
    return ["the file must be an object with a traceEvents array"];
  }
  const events = (file as { traceEvents: Record<string, unknown>[] }).traceEvents;
  const last = new Map<string, number>();
  const stacks = new Map<string, string[]>();
  const flows = new Map<unknown, { starts: number; finishes: number }>();
  events.forEach((e, i) => {
    const at = `event ${i} (${JSON.stringify(e).slice(0, 120)})`;
    if (typeof e !== "object" || e === null) return problems.push(`${at}: not an object`);
    if (typeof e.name !== "string") problems.push(`${at}: name must be a string`);
    if (!PHASES.has(e.ph as string)) problems.push(`${at}: unknown phase ${e.ph}`);
    for (const field of ["pid", "tid"]) {
      if (!Number.isInteger(e[field])) problems.push(`${at}: ${field} must be an integer`);
    }
    if (typeof e.ts !== "number" || !Number.isFinite(e.ts) || e.ts < 0) {
      problems.push(`${at}: ts must be a finite non-negative number of microseconds`);
    }
    if (e.ph === "M") return;
    const track = `${e.pid}/${e.tid}`;
    if ((e.ts as number) < (last.get(track) ?? -Infinity)) {
      problems.push(`${at}: ts goes back on track ${track}`);
    }
    last.set(track, e.ts as number);
    switch (e.ph) {
      case "X":
        if (typeof e.dur !== "number" || !(e.dur >= 0)) problems.push(`${at}: X needs dur >= 0`);
        break;
      case "B":
        stacks.set(track, [...(stacks.get(track) ?? []), e.name as string]);
        break;
      case "E": {
        const open = stacks.get(track)?.pop();
        if (open === undefined) problems.push(`${at}: E without a B on track ${track}`);
        else if (open !== e.name) problems.push(`${at}: E '${e.name}' closes B '${open}'`);
        break;
      }
      case "i":
      case "I":
        if (e.s !== undefined && !["g", "p", "t"].includes(e.s as string)) {
          problems.push(`${at}: instant scope must be g, p or t`);
        }
        break;
      case "C":
        if (
          typeof e.args !== "object" || e.args === null ||
          !Object.values(e.args).every((v) => typeof v === "number")
        ) problems.push(`${at}: counter args must be numbers`);
        break;
      case "s":
      case "t":
      case "f": {
        if (e.id === undefined) problems.push(`${at}: flow events need an id`);
        const flow = flows.get(e.id) ?? { starts: 0, finishes: 0 };
        if (e.ph === "s") flow.starts++;
        if (e.ph === "f") flow.finishes++;
        flows.set(e.id, flow);
        break;
      }
    }
  });
  for (const [track, stack] of stacks) {
    if (stack.length > 0) problems.push(`track ${track}: B without E: ${stack.join(", ")}`);
  }
  for (const [id, flow] of flows) {
    if (flow.starts !== 1 || flow.finishes !== 1) {
      problems.push(`flow ${id}: ${flow.starts} starts and ${flow.finishes} finishes`);
    }
  }
  return problems;
}
