/** The package version, part of the persistent cache's namespace (tested against deno.json). */
export const VERSION = "0.1.0";
