/**
 * The order of a client's timeline marks. Reaching a value must mean every earlier mark was
 * reached (what `waitFor` on another client or device relies on), and a server completes marks
 * in the order it receives them; so marks reach the server in value order. A mark on a stream
 * held by `waitFor` waits for that stream's earlier calls; a later mark waits for it in turn,
 * though not its stream: calls after a mark never wait for another stream's hold (that would turn
 * one stream's wait into a deadlock of another). A mark that waits marks its stream's point when
 * it is issued, a little later than called: later is safe for every waiter.
 *
 * @module
 */

import type { StreamId } from "../../core/stream_id.ts";
import type { HeldStreams } from "./_held_streams.ts";

/** Issues marks in value order; see the module doc. */
export class MarkOrder {
  /** Settles once the latest mark was issued (or dropped); `undefined` when none is pending. */
  #last: Promise<void> | undefined;

  /**
   * Issues `mark` in `stream`'s held order and after every earlier mark. When it cannot be
   * issued later (the stream's wait failed, `mark` threw), the error is recorded on the stream
   * and passed to `fail`; at once, it is thrown.
   */
  issue(
    held: HeldStreams,
    stream: StreamId,
    fail: (error: unknown) => void,
    mark: () => void,
  ): void {
    const previous = this.#last;
    if (previous === undefined && !held.held(stream)) {
      held.errors.throwFor(stream);
      mark();
      return;
    }
    const { promise, resolve } = Promise.withResolvers<void>();
    this.#last = promise;
    promise.then(() => {
      if (this.#last === promise) this.#last = undefined;
    });
    const run = () => {
      try {
        mark();
      } catch (error) {
        held.errors.record(stream, error);
        fail(error);
      } finally {
        resolve();
      }
    };
    // The stream's later calls wait for this callback only, not for the earlier marks.
    try {
      held.runVoid(stream, [], [], () => {
        if (previous === undefined) run();
        else previous.then(run);
      }, (error) => {
        fail(error); // the stream's wait failed (recorded once): the mark is never reached
        resolve();
      });
    } catch (error) {
      resolve(); // refused at once (the stream's recorded failure, a closed client)
      throw error;
    }
  }
}
