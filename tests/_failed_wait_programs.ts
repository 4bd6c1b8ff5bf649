/**
 * Random programs over one client whose streams' `waitFor` waits may fail (a timeout), on either
 * backend: allocations (uploads, `zeros`, `full`, `empty` written by a kernel), writes, kernels,
 * copies, views, reads and disposals on random streams. What each read gives depends on which
 * calls failed, so the check is the one that matters most: no read returns bytes the program
 * never wrote. The pools are first filled with a sentinel word (memory of disposed handles) that
 * no call writes; a read may reject (with a `ComputeError`), but one that resolves must not
 * contain it. Every promise must settle, and the syncs that end a program report all its
 * failures (none is left for the next program).
 */
import fc from "fast-check";
import { type ComputeClient, ComputeError, CpuTimelineSignal, type Handle } from "../mod.ts";
import type { KernelMetadata } from "../backend.ts";
import { within } from "./_device_programs.ts";

/** What disposed memory holds: no call of a program writes it. */
export const SENTINEL = 0xdeadbeef;

const stream = fc.nat(3);
const slot = fc.nat(5);
export const failedWaitCommand = fc.oneof(
  fc.record({
    op: fc.constant("alloc" as const),
    s: stream,
    h: slot,
    len: fc.integer({ min: 1, max: 200 }),
    kind: fc.constantFrom("data", "kernel", "zeros", "full"),
  }),
  fc.record({ op: fc.constant("write" as const), s: stream, h: slot }),
  fc.record({ op: fc.constant("add" as const), s: stream, x: slot, y: slot }),
  fc.record({ op: fc.constant("copy" as const), s: stream, t: stream, h: slot, to: slot }),
  fc.record({ op: fc.constant("view" as const), h: slot, to: slot }),
  fc.record({ op: fc.constant("read" as const), s: stream, h: slot }),
  fc.record({ op: fc.constant("dispose" as const), h: slot }),
  // A wait that times out, soon or later than the ones before it on its stream.
  fc.record({ op: fc.constant("fail" as const), s: stream, ms: fc.constantFrom(1, 5, 20) }),
  fc.record({ op: fc.constant("gate" as const), s: stream }), // a wait that succeeds
);
type Command = typeof failedWaitCommand extends fc.Arbitrary<infer C> ? C : never;

/**
 * Runs `program` on `client` (`add`: `y[i] = x[i] + c`, `buffers: [x, y]`, `params: { c, n }`);
 * rejects when a read returns the sentinel, a call fails with an untyped error, or something
 * stays pending for 10 s.
 */
export async function runFailedWaitProgram<K extends KernelMetadata>(
  client: ComputeClient<K>,
  add: K,
  program: readonly Command[],
): Promise<void> {
  for (const s of [0, 1, 2, 3]) {
    // The previous program synced every stream: nothing of it may be reported now.
    await client.sync({ stream: s }).catch((error) => {
      throw new Error(`an earlier program's failure was reported late: ${error}`);
    });
    for (const n of [64, 200, 1000]) {
      client.createWithData(new Uint32Array(n).fill(SENTINEL), { stream: s }).dispose();
    }
  }
  const slots = new Map<number, Handle<"u32">>();
  const pending: Promise<unknown>[] = [];
  const typed = (error: unknown) => {
    if (!(error instanceof ComputeError)) throw new Error(`an untyped error: ${error}`);
  };
  const put = (h: number, handle: Handle<"u32">) => {
    slots.get(h)?.dispose();
    slots.set(h, handle);
  };
  const read = (handle: Handle<"u32">, s: number) =>
    pending.push(
      client.read(handle, { stream: s }).then((data) => {
        if (data.includes(SENTINEL)) {
          throw new Error(`a read on stream ${s} gave [${data.slice(0, 4)}]`);
        }
      }, typed),
    );
  const count = (n: number) => Uint32Array.from({ length: n }, (_, i) => i);
  for (const c of program) {
    try {
      const x = "h" in c ? slots.get(c.h) : undefined;
      switch (c.op) {
        case "alloc": {
          const options = { stream: c.s };
          if (c.kind === "data") put(c.h, client.createWithData(count(c.len), options));
          else if (c.kind === "zeros") put(c.h, client.zeros(c.len, "u32", options));
          else if (c.kind === "full") put(c.h, client.full(c.len, 5, { dtype: "u32", ...options }));
          else { // a result made by a kernel, as a helper makes one
            using source = client.createWithData(count(c.len), options);
            const out = client.empty(c.len, "u32", options);
            put(c.h, out);
            client.execute(add, {
              stream: c.s,
              threads: c.len,
              buffers: [source, out],
              params: { c: 1, n: c.len },
            });
          }
          break;
        }
        case "write":
          if (x) client.write(x, new Uint32Array(x.length).fill(7), { stream: c.s });
          break;
        case "add": {
          const a = slots.get(c.x), b = slots.get(c.y);
          if (!a || !b || a.slice.record === b.slice.record) break; // one memory: no one result
          const n = Math.min(a.length, b.length);
          client.execute(add, { stream: c.s, threads: n, buffers: [a, b], params: { c: 1, n } });
          break;
        }
        case "copy":
          if (x) put(c.to, client.copyTo(x, client, { stream: c.s, destinationStream: c.t }));
          break;
        case "view":
          if (x && x.length > 64) put(c.to, x.withOffsetStart(256));
          break;
        case "read":
          if (x) read(x, c.s);
          break;
        case "dispose":
          x?.dispose();
          slots.delete(c.h);
          break;
        case "fail":
          client.waitFor(new CpuTimelineSignal(), 1, { stream: c.s, timeoutMs: c.ms });
          break;
        case "gate": {
          const gate = new CpuTimelineSignal();
          client.waitFor(gate, 1, { stream: c.s });
          setTimeout(() => gate.set(1), 3);
          break;
        }
      }
    } catch (error) {
      typed(error); // refused at the call
    }
  }
  for (const handle of slots.values()) read(handle, 0);
  try {
    await within(Promise.all(pending), 10_000);
  } finally {
    for (const handle of slots.values()) handle.dispose();
    await within(Promise.allSettled([0, 1, 2, 3].map((s) => client.sync({ stream: s }))), 10_000);
  }
}
