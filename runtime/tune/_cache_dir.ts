/**
 * Where the persistent tune cache lives: `GPUCOMPUTE_CACHE_DIR` when set (and readable under the
 * process's permissions), else the option, else the per-user cache directory + `/gpucompute`.
 * Environment variables are only read where `--allow-env` grants them (never a prompt).
 */

import { join } from "node:path";
import { readPermittedEnv } from "../core/config.ts";

/** The environment variable that overrides the cache directory. */
export const CACHE_DIR_ENV = "GPUCOMPUTE_CACHE_DIR";

/** The cache directory, or `undefined` when no directory can be known without permissions. */
export function resolveCacheDir(option: string | undefined): string | undefined {
  const env = readPermittedEnv(CACHE_DIR_ENV)?.trim();
  if (env) return env;
  if (option !== undefined) return option;
  const base = userCacheDir();
  return base === undefined ? undefined : join(base, "gpucompute");
}

function userCacheDir(): string | undefined {
  switch (Deno.build.os) {
    case "windows":
      return readPermittedEnv("LOCALAPPDATA");
    case "darwin": {
      const home = readPermittedEnv("HOME");
      return home === undefined ? undefined : join(home, "Library", "Caches");
    }
    default: {
      const xdg = readPermittedEnv("XDG_CACHE_HOME");
      if (xdg) return xdg;
      const home = readPermittedEnv("HOME");
      return home === undefined ? undefined : join(home, ".cache");
    }
  }
}

/** Turns a device or tuner name into a file-name-safe segment. */
export function slug(text: string): string {
  const safe = text.toLowerCase().replace(/[^a-z0-9._-]+/g, "-").replace(/^-+|-+$/g, "");
  return safe.slice(0, 80) || "unnamed";
}
