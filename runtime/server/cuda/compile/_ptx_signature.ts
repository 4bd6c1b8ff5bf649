/**
 * The signatures of PTX `.entry` functions (see `signature.ts`, which re-exports
 * {@linkcode ptxSignatures}): PTX keeps no C types, so a `.u64` parameter is a pointer when the
 * kernel uses it as an address.
 *
 * @module
 */

import type { StorageType } from "../../../core/kernel_arguments.ts";
import type { KernelParam, KernelSignature } from "./signature.ts";

/** A storage type's byte size: its bit width over 8. */
const sizeOf = (type: StorageType): number => Number(/\d+/.exec(type)![0]) / 8;

const PTX_TYPES: Record<string, { type: StorageType; signless?: boolean }> = {
  u8: { type: "u8" },
  s8: { type: "i8" },
  b8: { type: "u8", signless: true },
  u16: { type: "u16" },
  s16: { type: "i16" },
  b16: { type: "u16", signless: true },
  u32: { type: "u32", signless: true },
  b32: { type: "u32", signless: true },
  s32: { type: "i32" },
  u64: { type: "u64", signless: true },
  b64: { type: "u64", signless: true },
  s64: { type: "i64" },
  f32: { type: "f32" },
  f64: { type: "f64" },
};

/**
 * An `.entry` declaration: its name and, when it has one, its parameter list (PTX allows none:
 * `.entry k { ... }` as well as `.entry k () { ... }`).
 */
export const PTX_ENTRY = /\.entry\s+([\w$]+)(?:\s*\(([^)]*)\))?/g;

/** The `.entry` functions of PTX. */
export function ptxSignatures(ptx: string): KernelSignature[] {
  const found: KernelSignature[] = [];
  const entries = [...ptx.matchAll(PTX_ENTRY)];
  entries.forEach((entry, n) => {
    const bodyEnd = n + 1 < entries.length ? entries[n + 1].index! : ptx.length;
    const body = ptx.slice(entry.index! + entry[0].length, bodyEnd);
    const header = body.slice(0, body.indexOf("{") + 1 || undefined);
    const maxntid = /\.maxntid\s+(\d+)(?:\s*,\s*(\d+))?(?:\s*,\s*(\d+))?/.exec(header);
    // x, y, z: the threads of a block at most are their product
    const reqntid = /\.reqntid\s+(\d+)(?:\s*,\s*(\d+))?(?:\s*,\s*(\d+))?/.exec(header);
    const params = (entry[2] ?? "").split(",").map((s) => s.trim()).filter((s) => s !== "")
      .map((declared) => ptxParam(declared, body));
    found.push({
      name: entry[1],
      params,
      language: "ptx",
      ...(maxntid ? { maxThreads: maxntid.slice(1).reduce((p, n) => p * Number(n ?? 1), 1) } : {}),
      ...(reqntid
        ? {
          requiredBlock: [1, 2, 3].map((i) => Number(reqntid[i] ?? 1)) as [number, number, number],
        }
        : {}),
    });
  });
  return found;
}

/**
 * The pointer attribute of a `.u64` parameter, `.ptr .global .align 16` or `.ptr.global.align 16`
 * (LLVM's NVPTX, and so NVRTC, writes the spaced form for some targets): the pointee's state
 * space and alignment, not the parameter's (which stays 8).
 */
export const PTX_POINTER_ATTRIBUTE = String
  .raw`\.ptr(?:\s*\.(?:global|const|local|shared))?(?:\s*\.align\s+\d+)?\s+`;
const PTX_PARAM = new RegExp(
  String.raw`^\.param\s+(?:\.align\s+\d+\s+)?\.([a-z]\d+)\s+((?:${PTX_POINTER_ATTRIBUTE})?)` +
    String.raw`([\w$]+)(?:\[(\d+)\])?$`,
);

function ptxParam(declared: string, body: string): KernelParam {
  const m = PTX_PARAM.exec(declared);
  if (m === null) return { kind: "scalar", name: declared, type: undefined, declared, size: 0 };
  const [, kind, ptr, name, count] = m;
  const known = PTX_TYPES[kind];
  if (count !== undefined || known === undefined) {
    const size = Number(kind.slice(1)) / 8 * Number(count ?? 1);
    return { kind: "scalar", name, type: undefined, declared, size };
  }
  if ((kind === "u64" || kind === "b64") && (ptr !== "" || isPointer(name, body))) {
    return { kind: "pointer", name, element: undefined, readOnly: false, declared };
  }
  return {
    kind: "scalar",
    name,
    type: known.type,
    ...(known.signless ? { signless: true } : {}),
    declared,
    size: sizeOf(known.type),
  };
}

/**
 * Whether a `.u64` parameter is a pointer: never loaded, or its register (or one moved or added
 * from it) is converted with `cvta.to.global` or used as an address (`[%rd1]`). A loaded one
 * whose register only does integer work (compared, shifted, multiplied, stored as a value, added
 * to a global address as its offset) is a 64-bit integer; one with neither use is a pointer.
 */
function isPointer(name: string, body: string): boolean {
  const escaped = name.replace(/[$]/g, "\\$&");
  const load = new RegExp(`ld\\.param\\.[ub]64\\s+(%\\w+),\\s*\\[${escaped}\\]`, "g");
  const registers = [...body.matchAll(load)].map((m) => m[1]);
  if (registers.length === 0) return true;
  const statements = instructions(body);
  // The registers that hold global addresses: what `cvta.to.global` makes.
  const global = new Set(
    statements.filter((s) => s.op.startsWith("cvta.to.global")).map((s) => s.operands[0]),
  );
  const seen = new Set(registers);
  const queue = [...registers];
  let address = false, integer = false;
  while (queue.length > 0) {
    const reg = new RegExp(`${queue.pop()!.replace(/[$]/g, "\\$&")}(?![\\w$])`);
    for (const { op, operands } of statements) {
      // Stores and reductions have no destination: every operand is read.
      const sources = /^(?:st|red)\./.test(op) ? operands : operands.slice(1);
      const used = sources.filter((o) => reg.test(o));
      if (used.length === 0) continue;
      if (used.some((o) => o.startsWith("[")) || op.startsWith("cvta.to.global")) {
        address = true;
      } else if (
        /^(?:mov|add)\./.test(op) && !sources.some((o) => global.has(o)) &&
        !seen.has(operands[0])
      ) {
        seen.add(operands[0]);
        queue.push(operands[0]);
      } else if (!/^(?:mov|add)\./.test(op) || sources.some((o) => global.has(o))) {
        integer = true;
      }
    }
  }
  return address || !integer;
}

/** The instructions of a PTX body: opcode and operands, labels and guards removed. */
function instructions(body: string): { op: string; operands: string[] }[] {
  const found: { op: string; operands: string[] }[] = [];
  for (let text of body.split(";")) {
    text = text.replace(/\/\/[^\n]*/g, "").replace(/^(?:\s*[{}])+/, "")
      .replace(/^\s*(?:[\w$]+:\s*)+/, "").replace(/^\s*@!?%\w+\s+/, "").trim();
    if (text === "" || text.startsWith(".")) continue;
    const space = text.search(/\s/);
    if (space < 0) continue;
    found.push({
      op: text.slice(0, space),
      operands: text.slice(space).split(",").map((o) => o.trim()),
    });
  }
  return found;
}
