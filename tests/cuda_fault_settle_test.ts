/**
 * No promise stays pending after a fault: random programs over two simulated CUDA devices (writes,
 * kernels, marks, waits on the other device's timeline, reads, syncs on random streams), each
 * with one injected fault (a sticky launch failure, an allocation that fails, an event record
 * that never completes), must settle every promise they made within a bound, and both clients
 * must be destroyable afterwards.
 */
import fc from "fast-check";
import { ComputeClient, CpuTimelineSignal, type Handle } from "../mod.ts";
import { CUDA_KERNELS, CudaServer } from "../runtime/server/cuda/mod.ts";
import { SIM_LIBRARY, withSimEnv } from "./fixtures/cuda_sim.ts";
import { within } from "./_device_programs.ts";

const side = fc.integer({ min: 0, max: 1 });
const stream = fc.integer({ min: 0, max: 2 });
const command = fc.oneof(
  fc.record({ op: fc.constant("write" as const), side, stream, value: fc.nat(100) }),
  fc.record({ op: fc.constant("bump" as const), side, stream }),
  fc.record({ op: fc.constant("mark" as const), side, stream }),
  fc.record({ op: fc.constant("waitOther" as const), side, stream, timeout: fc.boolean() }),
  fc.record({ op: fc.constant("read" as const), side, stream }),
  fc.record({ op: fc.constant("sync" as const), side, stream }),
  fc.record({ op: fc.constant("gate" as const), side, stream }),
);
const fault = fc.oneof(
  fc.record({ CUDA_SIM_LAUNCH_FAIL_AT: fc.integer({ min: 1, max: 4 }).map(String) }),
  fc.record({ CUDA_SIM_OOM_AT: fc.integer({ min: 1, max: 4 }).map(String) }),
  fc.record({ CUDA_SIM_HANG_RECORD_AT: fc.integer({ min: 1, max: 12 }).map(String) }),
);

type Command = typeof command extends fc.Arbitrary<infer C> ? C : never;

async function run(env: Record<string, string>, program: Command[]): Promise<void> {
  const clients = await withSimEnv(
    { CUDA_SIM_DEVICES: "2", ...env },
    () =>
      [0, 1].map((ordinal) =>
        new ComputeClient(CudaServer.create({ library: SIM_LIBRARY, ordinal, timeoutMs: 100 }))
      ),
  );
  const pending: Promise<unknown>[] = [];
  const gates: CpuTimelineSignal[] = [];
  const handles: Handle[] = [];
  const marks = [0n, 0n];
  const attempt = (fn: () => unknown) => {
    try {
      const result = fn();
      if (result instanceof Promise) pending.push(result);
    } catch { /* refused at the call: settled */ }
  };
  try {
    for (const side of [0, 1]) {
      attempt(() => handles[side] = clients[side].createWithData(new Uint32Array(64)));
    }
    for (const c of program) {
      const client = clients[c.side];
      const h = handles[c.side];
      switch (c.op) {
        case "write":
          attempt(() => client.write(h, new Uint32Array(64).fill(c.value), { stream: c.stream }));
          break;
        case "bump":
          attempt(() =>
            client.execute(CUDA_KERNELS.incrementU32, {
              stream: c.stream,
              threads: 64,
              buffers: [h],
            })
          );
          break;
        case "mark":
          attempt(() => marks[c.side] = client.signal({ stream: c.stream }));
          break;
        case "waitOther": {
          const other = clients[1 - c.side];
          const value = marks[1 - c.side];
          if (value === 0n) break;
          const timeoutMs = c.timeout ? 200 : 0;
          attempt(() => client.waitFor(other.timeline, value, { stream: c.stream, timeoutMs }));
          pending.push(other.timeline.wait(value));
          break;
        }
        case "read":
          attempt(() => client.read(h, { stream: c.stream }));
          break;
        case "sync":
          attempt(() => client.sync({ stream: c.stream }));
          break;
        case "gate": { // a host producer that opens the gate a little later
          const gate = new CpuTimelineSignal();
          gates.push(gate);
          attempt(() => client.waitFor(gate, 1, { stream: c.stream }));
          setTimeout(() => gate.set(1), 5);
          break;
        }
      }
    }
    for (const side of [0, 1]) attempt(() => clients[side].sync());
    await within(Promise.allSettled(pending), 10_000);
  } finally {
    for (const h of handles) h?.dispose();
    const servers = clients.map((client) => client.server as CudaServer);
    for (const client of clients) client.destroy();
    // Past destroy's grace (a loaded machine) the drain and the parked host waits end in the
    // background: the test ends once they did, so no driver call outlives it.
    for (const server of servers) await server.drained;
  }
}

Deno.test("random programs with an injected fault settle every promise within 10 s", async () => {
  await fc.assert(
    fc.asyncProperty(fault, fc.array(command, { minLength: 1, maxLength: 20 }), run),
    { numRuns: 60 },
  );
});
