/**
 * The layering rule of the package: which folder may import which. Layers import one way,
 * from the vocabulary up to the entry points:
 *
 * ```
 * core ← memory ← stream ← contract (server/server.ts, server/backend_descriptor.ts)
 *      ← sync ←──────────────── contract ← shared server layer (server/shared/)
 *      ← trace (the JSON and SVG writers  ← backends (server/<name>/) ← client
 *               of core/trace.ts)          ← registry (backends/: createClient, listDevices)
 *                                           ← kernels, tune
 * ```
 *
 * The shared server layer holds what every backend would otherwise write again (allocation with
 * rollback, copy ranges, leases, host copies, the usable/destroyed state); backends never import
 * each other; `createClient` (and `listDevices`, `createClients` next to it) reaches them only
 * through dynamic `import()` (type-only imports of their options are allowed). Checked by
 * `tools/check_layers.ts` over
 * `deno info --json`, and unit-tested in `tests/layers_test.ts`.
 *
 * @module
 */

/** The layer a module of the package belongs to, or `undefined` outside the layered tree. */
export function layerOf(path: string): string | undefined {
  if (path === "mod.ts" || path === "backend.ts") return "entry";
  if (path.startsWith("runtime/core/")) return "core";
  if (path.startsWith("runtime/memory/")) return "memory";
  if (path.startsWith("runtime/stream/")) return "stream";
  // The contract: runtime/server/'s own files (server.ts and the vocabulary beside it).
  if (/^runtime\/server\/[^/]+\.ts$/.test(path)) return "contract";
  if (path.startsWith("runtime/server/shared/")) return "server-shared";
  const backend = /^runtime\/server\/([^/]+)\//.exec(path);
  if (backend) return `backend:${backend[1]}`;
  // The backend registry and the entry points that open backends through it (createClient,
  // listDevices): they reach backend folders by dynamic import only.
  if (path.startsWith("runtime/backends/")) return "backends";
  if (path.startsWith("runtime/client/")) return "client";
  if (path.startsWith("runtime/kernels/")) return "kernels";
  if (path.startsWith("runtime/tune/")) return "tune";
  if (path.startsWith("sync/")) return "sync";
  if (path.startsWith("runtime/trace/")) return "trace";
  return undefined;
}

const BELOW_CONTRACT = ["core", "memory", "stream", "contract"];

/** Whether a module in layer `from` may import a module in layer `to`. */
export function mayImport(from: string, to: string): boolean {
  if (from === to || from === "entry") return true;
  switch (from) {
    case "core":
      return false;
    case "memory":
      return to === "core";
    case "stream":
      return to === "core" || to === "memory";
    case "sync":
    case "trace":
      return to === "core";
    case "contract":
      // The contract names TimelineSignal (sync imports only core, so no cycle).
      return BELOW_CONTRACT.includes(to) || to === "sync";
    case "server-shared":
      return BELOW_CONTRACT.includes(to) || to === "sync";
    case "client":
      return BELOW_CONTRACT.includes(to) || to === "sync";
    case "backends":
      return BELOW_CONTRACT.includes(to) || to === "client" || to.startsWith("backend:");
    case "kernels":
    case "tune":
      // Kernels and tune may import each other: the tuned reduce set reuses the reductions'
      // WGSL, and matmul (#30) runs the tuned matmul set.
      return BELOW_CONTRACT.includes(to) || ["client", "sync", "kernels", "tune"].includes(to);
    default:
      // Backends: everything below the contract, the shared server layer, the timeline signals,
      // their own folder.
      return BELOW_CONTRACT.includes(to) || to === "sync" || to === "server-shared";
  }
}

/**
 * The concern folders of a backend, in import order: a module may import (values from) the
 * folders before its own, never after. Type-only imports are free (a part names the type of a
 * part it receives). A backend's top-level files are its base (`kernel.ts`, `device.ts`, the
 * driver bindings, options, device listing), importable from every folder, except its assembly
 * (`server.ts`, `_parts.ts`, `backend.ts`, `mod.ts`), which may import everything and which
 * nothing inside the backend imports.
 */
export const BACKEND_FOLDERS = ["compile", "queue", "memory", "profile", "launch"] as const;

const ASSEMBLY = ["server.ts", "_parts.ts", "backend.ts", "mod.ts"];

/**
 * The rank of a backend module in its backend's import order: 0 for base files, 1 + the index
 * in {@linkcode BACKEND_FOLDERS} for a concern folder (and anything below it), `Infinity` for the
 * assembly; `undefined` outside backend folders or for an unknown folder.
 */
export function backendRank(path: string): number | undefined {
  const match = /^runtime\/server\/([^/]+)\/(.+)$/.exec(path);
  if (match === null || match[1] === "shared") return undefined;
  const rest = match[2];
  const slash = rest.indexOf("/");
  if (slash === -1) return ASSEMBLY.includes(rest) ? Infinity : 0;
  const folder = rest.slice(0, slash);
  if (folder === "kernels") return 0; // shipped kernel sources: data
  const index = (BACKEND_FOLDERS as readonly string[]).indexOf(folder);
  return index === -1 ? undefined : index + 1;
}

/** One import edge between two package-relative module paths. */
export interface ImportEdge {
  /** The importing module. */
  readonly from: string;
  /** The imported module. */
  readonly to: string;
  /** Whether the import is a dynamic `import()` (allowed from `backends` into backend folders). */
  readonly dynamic?: boolean;
  /** Whether only types are imported. */
  readonly typeOnly?: boolean;
}

/** The edges that break the layering rule, each described in one line. */
export function layerViolations(edges: Iterable<ImportEdge>): string[] {
  const violations: string[] = [];
  for (const edge of edges) {
    const from = layerOf(edge.from);
    const to = layerOf(edge.to);
    if (from === undefined || to === undefined) continue;
    const backendReach = from === "backends" && to.startsWith("backend:");
    if (backendReach && !edge.dynamic && !edge.typeOnly) {
      violations.push(`${edge.from} imports backend ${edge.to} statically (use import())`);
    } else if (!mayImport(from, to)) {
      violations.push(`${edge.from} (${from}) imports ${edge.to} (${to}), a layer above it`);
    } else if (from === to && from.startsWith("backend:")) {
      const rankFrom = backendRank(edge.from);
      const rankTo = backendRank(edge.to);
      if (rankFrom === undefined || rankTo === undefined) {
        const unknown = rankFrom === undefined ? edge.from : edge.to;
        violations.push(
          `${unknown} is in no concern folder of its backend (${BACKEND_FOLDERS.join(", ")})`,
        );
      } else if (!edge.typeOnly && rankTo > rankFrom) {
        violations.push(
          `${edge.from} imports ${edge.to}, a concern folder after its own (order: base, ${
            BACKEND_FOLDERS.join(", ")
          }, assembly)`,
        );
      }
    }
  }
  return violations;
}
