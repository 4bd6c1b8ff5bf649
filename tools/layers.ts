/**
 * The layering rule of the package: which folder may import which. Layers import one way,
 * from the vocabulary up to the entry points:
 *
 * ```
 * core ← memory ← stream ← contract (server/server.ts) ← shared server layer (server/shared/)
 *      ← sync ←──────────────── contract                  ← backends (server/<name>/) ← client
 *      ← trace (the JSON and SVG writers of           ← create_client, kernels, tune
 *               runtime/core/trace.ts's vocabulary)
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
  if (path === "runtime/server/server.ts") return "contract";
  if (path.startsWith("runtime/server/shared/")) return "server-shared";
  const backend = /^runtime\/server\/([^/]+)\//.exec(path);
  if (backend) return `backend:${backend[1]}`;
  // The entry points that open backends (by dynamic import): createClient, and discovery.
  if (path === "runtime/client/create_client.ts" || path === "runtime/client/devices.ts") {
    return "create_client";
  }
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
    case "create_client":
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

/** One import edge between two package-relative module paths. */
export interface ImportEdge {
  /** The importing module. */
  readonly from: string;
  /** The imported module. */
  readonly to: string;
  /** Whether the import is a dynamic `import()` (allowed from `create_client` into backends). */
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
    const backendReach = from === "create_client" && to.startsWith("backend:");
    if (backendReach && !edge.dynamic && !edge.typeOnly) {
      violations.push(`${edge.from} imports backend ${edge.to} statically (use import())`);
    } else if (!mayImport(from, to)) {
      violations.push(`${edge.from} (${from}) imports ${edge.to} (${to}), a layer above it`);
    }
  }
  return violations;
}
