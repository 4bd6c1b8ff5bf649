/**
 * Random programs over one or two clients (two devices, or a WebGPU and a CUDA client) whose
 * streams' `waitFor` waits may fail (a timeout): allocations (uploads, `zeros`, `full`, `empty`
 * written by a kernel), writes, kernels, copies (within a client and across), views, marks of one
 * client's timeline the other waits on, reads and disposals on random streams. What each read
 * gives depends on which calls failed, so the check is the one that matters most: no read returns
 * bytes the program never wrote. The pools are first filled with a sentinel word (memory of
 * disposed handles) that no call writes; a read may reject (with a `ComputeError`), but one that
 * resolves must not contain it. Every promise must settle, and the syncs that end a program report
 * all its failures (none is left for the next program).
 */
import fc from "fast-check";
import { type ComputeClient, ComputeError, CpuTimelineSignal, type Handle } from "../mod.ts";
import type { KernelMetadata } from "../backend.ts";
import { within } from "./_device_programs.ts";

/** What disposed memory holds: no call of a program writes it. */
export const SENTINEL = 0xdeadbeef;

const stream = fc.nat(3);
const slot = fc.nat(5);
const side = fc.nat(1); // the client (modulo the number of clients)
export const failedWaitCommand = fc.oneof(
  fc.record({
    op: fc.constant("alloc" as const),
    c: side,
    s: stream,
    h: slot,
    len: fc.integer({ min: 1, max: 200 }),
    kind: fc.constantFrom("data", "kernel", "zeros", "full"),
  }),
  fc.record({ op: fc.constant("write" as const), s: stream, h: slot }),
  fc.record({ op: fc.constant("add" as const), s: stream, x: slot, y: slot }),
  fc.record({
    op: fc.constant("copy" as const),
    s: stream,
    t: stream,
    h: slot,
    to: slot,
    across: fc.boolean(),
  }),
  fc.record({ op: fc.constant("view" as const), h: slot, to: slot }),
  fc.record({ op: fc.constant("read" as const), s: stream, h: slot }),
  fc.record({ op: fc.constant("dispose" as const), h: slot }),
  // A wait that times out, soon or later than the ones before it on its stream.
  fc.record({
    op: fc.constant("fail" as const),
    c: side,
    s: stream,
    ms: fc.constantFrom(1, 5, 20),
  }),
  fc.record({ op: fc.constant("gate" as const), c: side, s: stream }), // a wait that succeeds
  fc.record({ op: fc.constant("mark" as const), c: side, s: stream, t: stream }),
);
type Command = typeof failedWaitCommand extends fc.Arbitrary<infer C> ? C : never;

/** A client of a program, with its `add` kernel (`y[i] = x[i] + c`, `params: { c, n }`). */
export interface ProgramClient {
  readonly client: ComputeClient;
  readonly add: KernelMetadata;
}

interface Slot {
  readonly c: number;
  readonly handle: Handle<"u32">;
}

/**
 * Runs `program` on `clients` (one or two); rejects when a read returns the sentinel, a call
 * fails with an untyped error, a failure is reported after the program's final syncs, or
 * something stays pending for 10 s.
 */
export async function runFailedWaitProgram(
  clients: readonly ProgramClient[],
  program: readonly Command[],
): Promise<void> {
  for (const { client } of clients) {
    for (const s of [0, 1, 2, 3]) {
      // The previous program synced every stream: nothing of it may be reported now.
      await client.sync({ stream: s }).catch((error) => {
        throw new Error(`an earlier program's failure was reported late: ${error}`);
      });
      for (const n of [64, 200, 1000]) {
        client.createWithData(new Uint32Array(n).fill(SENTINEL), { stream: s }).dispose();
      }
    }
  }
  const slots = new Map<number, Slot>();
  const pending: Promise<unknown>[] = [];
  const typed = (error: unknown) => {
    if (!(error instanceof ComputeError)) throw new Error(`an untyped error: ${error}`);
  };
  const put = (h: number, next: Slot) => {
    slots.get(h)?.handle.dispose();
    slots.set(h, next);
  };
  const read = ({ c, handle }: Slot, s: number) =>
    pending.push(
      clients[c].client.read(handle, { stream: s }).then((data) => {
        if (data.includes(SENTINEL)) {
          throw new Error(`a read on client ${c}, stream ${s} gave [${data.slice(0, 4)}]`);
        }
      }, typed),
    );
  const count = (n: number) => Uint32Array.from({ length: n }, (_, i) => i);
  for (const cmd of program) {
    try {
      const at = "h" in cmd ? slots.get(cmd.h) : undefined;
      const side = "c" in cmd ? cmd.c % clients.length : 0;
      const { client, add } = clients[side];
      switch (cmd.op) {
        case "alloc": {
          const options = { stream: cmd.s };
          if (cmd.kind === "data") {
            put(cmd.h, { c: side, handle: client.createWithData(count(cmd.len), options) });
          } else if (cmd.kind === "zeros") {
            put(cmd.h, { c: side, handle: client.zeros(cmd.len, "u32", options) });
          } else if (cmd.kind === "full") {
            const handle = client.full(cmd.len, 5, { dtype: "u32", ...options });
            put(cmd.h, { c: side, handle });
          } else { // a result made by a kernel, as a helper makes one
            using source = client.createWithData(count(cmd.len), options);
            const out = client.empty(cmd.len, "u32", options);
            put(cmd.h, { c: side, handle: out });
            client.execute(add as never, {
              stream: cmd.s,
              threads: cmd.len,
              buffers: [source, out],
              params: { c: 1, n: cmd.len },
            });
          }
          break;
        }
        case "write":
          if (!at) break;
          clients[at.c].client.write(at.handle, new Uint32Array(at.handle.length).fill(7), {
            stream: cmd.s,
          });
          break;
        case "add": {
          const x = slots.get(cmd.x), y = slots.get(cmd.y);
          // One memory has no one result; handles of two clients do not meet in a kernel.
          if (!x || !y || x.c !== y.c || x.handle.slice.record === y.handle.slice.record) break;
          const n = Math.min(x.handle.length, y.handle.length);
          clients[x.c].client.execute(clients[x.c].add as never, {
            stream: cmd.s,
            threads: n,
            buffers: [x.handle, y.handle],
            params: { c: 1, n },
          });
          break;
        }
        case "copy": {
          if (!at) break;
          const to = cmd.across ? (at.c + 1) % clients.length : at.c;
          const handle = clients[at.c].client.copyTo(at.handle, clients[to].client, {
            stream: cmd.s,
            destinationStream: cmd.t,
          });
          put(cmd.to, { c: to, handle });
          break;
        }
        case "view":
          if (at && at.handle.length > 64) {
            put(cmd.to, { c: at.c, handle: at.handle.withOffsetStart(256) });
          }
          break;
        case "read":
          if (at) read(at, cmd.s);
          break;
        case "dispose":
          at?.handle.dispose();
          slots.delete(cmd.h);
          break;
        case "fail":
          client.waitFor(new CpuTimelineSignal(), 1, { stream: cmd.s, timeoutMs: cmd.ms });
          break;
        case "gate": {
          const gate = new CpuTimelineSignal();
          client.waitFor(gate, 1, { stream: cmd.s });
          setTimeout(() => gate.set(1), 3);
          break;
        }
        case "mark": {
          const other = clients[(side + 1) % clients.length].client;
          other.waitFor(client.timeline, client.signal({ stream: cmd.s }), { stream: cmd.t });
          break;
        }
      }
    } catch (error) {
      typed(error); // refused at the call
    }
  }
  for (const at of slots.values()) read(at, 0);
  try {
    await within(Promise.all(pending), 10_000);
  } finally {
    for (const { handle } of slots.values()) handle.dispose();
    const syncs = clients.flatMap(({ client }) =>
      [0, 1, 2, 3].map((stream) => client.sync({ stream }))
    );
    await within(Promise.allSettled(syncs), 10_000);
  }
}
