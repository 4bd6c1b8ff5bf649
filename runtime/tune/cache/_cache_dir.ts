/**
 * Where the persistent tune cache lives. On Deno: `GPUCOMPUTE_CACHE_DIR` when set (and readable
 * under the process's permissions), else the option, else the per-user cache directory +
 * `/gpucompute`; environment variables are only read where `--allow-env` grants them (never a
 * prompt). Within it, and as the IndexedDB key in browsers, {@linkcode cacheNamespace}.
 */

import { readPermittedEnv } from "../../core/config.ts";
import { deno } from "../../core/_platform.ts";
import { VERSION } from "../_version.ts";

/** The environment variable that overrides the cache directory. */
export const CACHE_DIR_ENV = "GPUCOMPUTE_CACHE_DIR";

/** The cache directory, or `undefined` when no directory can be known (or no file system). */
export function resolveCacheDir(option: string | undefined): string | undefined {
  if (deno === undefined) return undefined;
  const env = readPermittedEnv(CACHE_DIR_ENV)?.trim();
  if (env) return env;
  if (option !== undefined) return option;
  const base = userCacheDir(deno.build.os);
  return base === undefined ? undefined : joinPath(base, "gpucompute");
}

/**
 * The segments that namespace a tuner's cache: package version, backend and device, tuner name.
 * A new package version or another device starts an empty cache.
 */
export function cacheNamespace(
  device: { readonly backend: string; readonly deviceName: string },
  name: string,
): string[] {
  return [`v${VERSION}`, slug(`${device.backend}-${device.deviceName}`), slug(name)];
}

/** Joins path segments with the platform's separator (no `node:path`: browsers bundle this). */
export function joinPath(first: string, ...rest: string[]): string {
  const sep = deno?.build.os === "windows" ? "\\" : "/";
  let path = first;
  for (const part of rest) path += /[\\/]$/.test(path) ? part : sep + part;
  return path;
}

/** The directory of a path, with either separator (as on Windows): `"."` for a bare name. */
export function parentDir(path: string): string {
  const cut = Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\"));
  if (cut < 0) return ".";
  return cut === 0 ? path.slice(0, 1) : path.slice(0, cut);
}

function userCacheDir(os: string): string | undefined {
  switch (os) {
    case "windows":
      return readPermittedEnv("LOCALAPPDATA");
    case "darwin": {
      const home = readPermittedEnv("HOME");
      return home === undefined ? undefined : joinPath(home, "Library", "Caches");
    }
    default: {
      const xdg = readPermittedEnv("XDG_CACHE_HOME");
      if (xdg) return xdg;
      const home = readPermittedEnv("HOME");
      return home === undefined ? undefined : joinPath(home, ".cache");
    }
  }
}

/** Turns a device or tuner name into a file-name-safe segment. */
export function slug(text: string): string {
  const safe = text.toLowerCase().replace(/[^a-z0-9._-]+/g, "-").replace(/^-+|-+$/g, "");
  return safe.slice(0, 80) || "unnamed";
}
