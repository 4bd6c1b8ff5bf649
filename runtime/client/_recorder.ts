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
  // A promise on every backend: a server that throws at once (destroyed) rejects it instead.
  const stop = () => stopped ??= tryStop(() => stopTrace.call(server));
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

function tryStop(stop: () => Promise<Trace>): Promise<Trace> {
  try {
    return stop();
  } catch (error) {
    return Promise.reject(error);
  }
}
