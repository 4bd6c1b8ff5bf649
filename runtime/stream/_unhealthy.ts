/**
 * The `STREAM_UNHEALTHY` error of a stream whose backend reports a fault.
 *
 * @module
 */

import { StreamUnhealthyError } from "../core/errors.ts";
import type { StreamId } from "../core/stream_id.ts";

/** `STREAM_UNHEALTHY` for a stream the backend reports unhealthy, with the fault as `cause`. */
export function unhealthy(stream: StreamId, cause: Error | undefined): StreamUnhealthyError {
  if (cause === undefined) return new StreamUnhealthyError(stream);
  return new StreamUnhealthyError(stream, {
    cause,
    message:
      `Stream ${stream} is unhealthy: an earlier error on it refuses new work (${cause.message})`,
  });
}
