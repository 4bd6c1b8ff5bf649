/**
 * What `destroy()` settles that is waiting on the caller's own code: a `profile` or `capture`
 * whose `fn` has not settled yet. {@linkcode Closing.race} gives the result of `fn`, or the
 * client's `DESTROYED` as soon as the client is closed (`fn` runs on; its result is dropped).
 *
 * @module
 */

/** Races promises against the close of a client, holding nothing once each settled. */
export class Closing {
  #closed = false;
  #reason: unknown;
  /** The rejections of the races not settled yet (none is kept after its race settled). */
  readonly #pending = new Set<(reason: unknown) => void>();

  /** `value`, or a rejection with the close reason if the client closes (or closed) first. */
  race<T>(value: T | Promise<T>): Promise<T> {
    if (!(value instanceof Promise)) {
      return this.#closed ? Promise.reject(this.#reason) : Promise.resolve(value);
    }
    if (this.#closed) {
      value.catch(() => {}); // fn's own failure has nobody to reach now
      return Promise.reject(this.#reason);
    }
    const { promise, resolve, reject } = Promise.withResolvers<T>();
    this.#pending.add(reject);
    value.then(
      (result) => {
        this.#pending.delete(reject);
        resolve(result);
      },
      (error) => {
        this.#pending.delete(reject);
        reject(error);
      },
    );
    return promise;
  }

  /** Rejects every race in progress, and every later one, with `reason`. Idempotent. */
  close(reason: unknown): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#reason = reason;
    for (const reject of this.#pending) reject(reason);
    this.#pending.clear();
  }
}
