/**
 * The default progress display: one line redrawn on stderr, shown only when stderr is a terminal
 * and only once a tuning run has lasted a second (short runs print nothing).
 */

import type { TuneProgress } from "./tuner_types.ts";
import { deno } from "../core/_platform.ts";

const SHOW_AFTER_MS = 1000;
const WIDTH = 24;

/** Draws tuning progress on stderr; `finish` clears the line. */
export class ProgressBar {
  readonly #write: (text: string) => void;
  #shown = false;

  /** Draws through `write` (default: synchronous writes to stderr). */
  constructor(write: (text: string) => void = writeStderr) {
    this.#write = write;
  }

  /** Redraws the bar for a progress report. */
  update(progress: TuneProgress): void {
    if (progress.elapsedMs < SHOW_AFTER_MS) return;
    this.#shown = true;
    const ratio = Math.min(1, progress.done / Math.max(1, progress.total));
    const filled = Math.round(ratio * WIDTH);
    const bar = "#".repeat(filled) + ".".repeat(WIDTH - filled);
    const seconds = (progress.elapsedMs / 1000).toFixed(1);
    this.#write(
      `\r\x1b[2Ktuning ${progress.set} ${progress.key} [${bar}] ${progress.candidate} ${seconds} s`,
    );
  }

  /** Clears the line if anything was drawn. */
  finish(): void {
    if (this.#shown) this.#write("\r\x1b[2K");
    this.#shown = false;
  }
}

const encoder = new TextEncoder();

function writeStderr(text: string): void {
  try {
    deno?.stderr.writeSync(encoder.encode(text));
  } catch {
    // stderr closed: progress is best effort
  }
}

/** Whether stderr is a terminal (the default for showing the bar). */
export function stderrIsTerminal(): boolean {
  try {
    return deno?.stderr.isTerminal() ?? false;
  } catch {
    return false;
  }
}
