/**
 * The params of a replay on a server without graphs (`LaunchGraph.replay({ params })`, launch by
 * launch): named params rewritten in place in every recorded launch that has them, each launch
 * checked again, all or nothing.
 *
 * @module
 */

import { KernelArgumentError } from "../core/errors.ts";
import type { KernelMetadata, KernelParams } from "../core/kernel.ts";
import type { StreamId } from "../core/stream_id.ts";
import { describe } from "../core/_argument_checks.ts";
import type { ComputeServer } from "../server/server.ts";
import type { LaunchRecord } from "./_launch_record.ts";

/**
 * Sets the named `params` in each of `launches` that has them and checks each launch on `server`;
 * a `KernelArgumentError` (a name no launch has, a value of another layout) changes nothing.
 * `commit: false` only checks (a native graph's replay held behind a `waitFor` sets them later).
 */
export function rewriteParams<K extends KernelMetadata>(
  launches: readonly LaunchRecord<K>[],
  label: string,
  params: KernelParams,
  server: ComputeServer<K>,
  stream: StreamId,
  commit = true,
): void {
  if (typeof params !== "object" || params === null) {
    throw new KernelArgumentError(
      label,
      "params",
      `must be an object, got ${describe(params)}`,
    );
  }
  const next = launches.map((launch) => launch.params);
  for (const name of Object.keys(params)) {
    let found = false;
    launches.forEach((launch, i) => {
      if (launch.params === undefined || !Object.hasOwn(launch.params, name)) return;
      next[i] = { ...next[i], [name]: params[name] };
      found = true;
    });
    if (!found) {
      throw new KernelArgumentError(
        label,
        `params.${name}`,
        "is not a param of any launch in the graph",
      );
    }
  }
  const old = launches.map((launch) => launch.params);
  try {
    launches.forEach((launch, i) => {
      launch.params = next[i];
      server.checkLaunch?.(launch, stream);
    });
  } catch (error) {
    launches.forEach((launch, i) => launch.params = old[i]);
    throw error;
  }
  if (!commit) launches.forEach((launch, i) => launch.params = old[i]);
}
