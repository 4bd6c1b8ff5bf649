/**
 * Random programs over three CUDA clients on the simulated driver: a producer whose launches may
 * reach the sim's faulting one (CUDA_SIM_LAUNCH_FAIL_AT), two consumers fed by device copies from
 * it and from each other, with kernels, host writes, device waits on the producer's marks and on
 * each other's, reads (of views too) and destroys of the producer or a consumer. Every slot holds one value in all its elements, and a model
 * knows the value each call meant it to hold: a read may reject (a typed `ComputeError`), but
 * one that resolves must give that value (never bytes of work that did not run, or ran behind a
 * fault). Every promise must settle, and the consumers' syncs report each failure once.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { ComputeError, type CudaClient, type Handle } from "../mod.ts";
import { CUDA_KERNELS } from "../runtime/server/cuda/mod.ts";
import { within } from "./_device_programs.ts";
import { keepBusy } from "./fixtures/cuda_sim.ts";

/** The launch of each context the sim faults: the producer reaches it on `fault`. */
export const VERDICT_FAIL_AT = 40;

const slot = fc.nat(2);
const stream = fc.nat(2);
const consumer = fc.nat(1);
const weighted = <T>(weight: number, arbitrary: fc.Arbitrary<T>) => ({ weight, arbitrary });
export const verdictCommand = fc.oneof(
  weighted(1, fc.record({ op: fc.constant("pInc" as const), h: fc.nat(1) })),
  weighted(
    3,
    fc.record({
      op: fc.constant("pCopy" as const),
      h: fc.nat(1),
      c: consumer,
      q: slot,
      s: stream,
    }),
  ),
  weighted(2, fc.record({ op: fc.constant("alloc" as const), c: consumer, q: slot, s: stream })),
  weighted(2, fc.record({ op: fc.constant("relay" as const), q: slot, to: slot, s: stream })),
  weighted(2, fc.record({ op: fc.constant("inc" as const), q: slot, s: stream })),
  weighted(3, fc.record({ op: fc.constant("derive" as const), q: slot, to: slot, s: stream })),
  weighted(1, fc.record({ op: fc.constant("wait" as const), c: consumer, s: stream })),
  weighted(
    4,
    fc.record({ op: fc.constant("read" as const), q: slot, s: stream, view: fc.boolean() }),
  ),
  weighted(1, fc.record({ op: fc.constant("destroy" as const) })),
  weighted(2, fc.record({ op: fc.constant("write" as const), q: slot, s: stream })),
  // A consumer waits on the device for the other's mark (gated by the other's verdicts).
  weighted(
    1,
    fc.record({ op: fc.constant("relayMark" as const), c: consumer, s: stream, t: stream }),
  ),
  weighted(1, fc.record({ op: fc.constant("destroyConsumer" as const), c: consumer })),
);
type Command =
  | (typeof verdictCommand extends fc.Arbitrary<infer C> ? C : never)
  | { readonly op: "fault" };

/** A program: its commands, with the producer's faulting launch before the `faultAt`-th. */
export const verdictProgram = fc.tuple(
  fc.array(verdictCommand, { minLength: 5, maxLength: 25, size: "max" }),
  fc.nat(8), // past the end (a short program): no fault
).map(([commands, faultAt]) => {
  const program: Command[] = [...commands];
  if (faultAt < program.length) program.splice(faultAt, 0, { op: "fault" });
  return program;
});

interface Slot {
  readonly c: number;
  readonly handle: Handle<"u32">;
  /** The value the calls so far meant every element to hold. */
  value: number;
}

const LENGTH = 4;

/** Runs `program`: `producer` first runs a slow kernel, so its fault shows after the copies. */
export async function runVerdictProgram(
  producer: CudaClient,
  consumers: readonly CudaClient[],
  program: readonly Command[],
): Promise<void> {
  let launches = 0;
  const launch = (client: CudaClient, s: number, handles: Handle[], kernel = "inc") => {
    if (kernel === "inc") {
      client.execute(CUDA_KERNELS.incrementU32, { stream: s, threads: LENGTH, buffers: handles });
    } else {
      const metadata = { data: new Uint32Array([LENGTH]), staticLength: 1 };
      client.execute(CUDA_KERNELS.copyU32, {
        stream: s,
        threads: LENGTH,
        buffers: handles,
        metadata,
      });
    }
  };
  const owned: Handle[] = [];
  const source = [0, 1].map((i) => {
    const handle = producer.createWithData(new Uint32Array(LENGTH).fill(10 * (i + 1)));
    owned.push(handle);
    return { handle, value: 10 * (i + 1) };
  });
  keepBusy(producer, 20_000);
  launches = 1;
  const slots = new Map<number, Slot>();
  const destroyed = new Set<number>();
  let written = 0;
  const reads: Promise<void>[] = [];
  // A call that throws did nothing: the model keeps its value (the producer's after its fault
  // or destroy, a consumer's on lost memory or a stream's recorded error).
  const attempt = (fn: () => void) => {
    try {
      fn();
    } catch (error) {
      if (!(error instanceof ComputeError)) throw error;
    }
  };
  const put = (q: number, c: number, handle: Handle<"u32">, value: number) => {
    slots.get(q)?.handle.dispose();
    slots.set(q, { c, handle, value });
  };
  const increment = (h: number) => {
    if (launches + 1 === VERDICT_FAIL_AT) return; // only "fault" launches it
    attempt(() => {
      launch(producer, 0, [source[h].handle]);
      source[h].value++;
    });
    launches++;
  };
  for (const command of program) {
    switch (command.op) {
      case "pInc":
        increment(command.h);
        break;
      case "fault":
        attempt(() => {
          using pad = producer.createWithData(new Uint32Array(1));
          while (launches < VERDICT_FAIL_AT) launch(producer, 0, [pad]), launches++;
        });
        break;
      case "pCopy":
        increment(command.h); // after the fault, the source's bytes are no longer the model's
        attempt(() => {
          const from = source[command.h];
          const copied = producer.copyTo(from.handle, consumers[command.c], {
            destinationStream: command.s,
          });
          put(command.q, command.c, copied, from.value);
        });
        break;
      case "alloc":
        attempt(() => {
          const value = 100 + command.q;
          const data = new Uint32Array(LENGTH).fill(value);
          const handle = consumers[command.c].createWithData(data, { stream: command.s });
          put(command.q, command.c, handle, value);
        });
        break;
      case "relay": {
        const from = slots.get(command.q);
        if (from === undefined) break;
        const c = 1 - from.c;
        attempt(() => {
          const copied = consumers[from.c].copyTo(from.handle, consumers[c], { stream: command.s });
          put(command.to, c, copied, from.value);
        });
        break;
      }
      case "inc": {
        const at = slots.get(command.q);
        if (at === undefined) break;
        attempt(() => {
          launch(consumers[at.c], command.s, [at.handle]);
          at.value++;
        });
        break;
      }
      case "derive": { // a kernel copies the slot into new memory
        const from = slots.get(command.q);
        if (from === undefined) break;
        attempt(() => {
          const client = consumers[from.c];
          const to = client.empty(LENGTH, "u32", { stream: command.s });
          try {
            launch(client, command.s, [from.handle, to], "copy");
          } catch (error) {
            to.dispose();
            throw error;
          }
          put(command.to, from.c, to, from.value);
        });
        break;
      }
      case "wait":
        attempt(() => {
          const mark = producer.signal();
          consumers[command.c].waitFor(producer.timeline, mark, { stream: command.s });
        });
        break;
      case "read": {
        const at = slots.get(command.q);
        if (at === undefined) break;
        const expected = new Array(command.view ? LENGTH - 1 : LENGTH).fill(at.value);
        attempt(() => {
          using view = command.view ? at.handle.withOffsetStart(4) : at.handle.clone();
          const read = consumers[at.c].read(view, { stream: command.s });
          reads.push(
            within(read, 10_000).then(
              (bytes) => assert.deepEqual([...bytes], expected, "a read gave other bytes"),
              (error) => assert.ok(error instanceof ComputeError, `an untyped failure: ${error}`),
            ),
          );
        });
        break;
      }
      case "destroy":
        producer.destroy();
        break;
      case "write": { // all of the slot: defined by the host
        const at = slots.get(command.q);
        if (at === undefined) break;
        const value = 1000 + written++;
        attempt(() => {
          consumers[at.c].write(at.handle, new Uint32Array(LENGTH).fill(value), {
            stream: command.s,
          });
          at.value = value;
        });
        break;
      }
      case "relayMark":
        attempt(() => {
          const mark = consumers[command.c].signal({ stream: command.s });
          consumers[1 - command.c].waitFor(consumers[command.c].timeline, mark, {
            stream: command.t,
          });
        });
        break;
      case "destroyConsumer":
        consumers[command.c].destroy();
        destroyed.add(command.c);
        break;
    }
  }
  await Promise.all(reads);
  for (const [c, client] of consumers.entries()) {
    if (destroyed.has(c)) continue;
    for (const s of [0, 1, 2]) await within(client.sync({ stream: s }), 10_000).catch(() => {});
    for (const s of [0, 1, 2]) await within(client.sync({ stream: s }), 10_000); // reported once
  }
  for (const at of slots.values()) at.handle.dispose();
  for (const handle of owned) handle.dispose();
  await producer.sync().catch(() => {});
}
