/**
 * The client's trace recorder: a recording started on the server, stopped once.
 *
 * @module
 */

import { UnsupportedError } from "../core/errors.ts";
import type { Trace, TraceRecorder } from "../core/trace.ts";
import type { ComputeServer } from "../server/server.ts";

/** Starts a trace on `server` (`UNSUPPORTED` where it records none) and returns its recorder. */
export function traceRecorder(server: ComputeServer): TraceRecorder {
  const { startTrace, stopTrace } = server;
  if (startTrace === undefined || stopTrace === undefined) {
    throw new UnsupportedError(`The ${server.properties.backend} backend cannot record traces`);
  }
  startTrace.call(server);
  let stopped: Promise<Trace> | undefined;
  const stop = () => stopped ??= stopTrace.call(server);
  return {
    get recording() {
      return stopped === undefined;
    },
    stop,
    async [Symbol.asyncDispose]() {
      await stop();
    },
  };
}
