/**
 * Random lifecycle programs over one client, through the client API only, on either backend:
 * allocations, kernels, writes and reads on random streams, handle disposals (and uses of the
 * disposed handles), streams held by `waitFor` on host gates, marks waited on, `profile`, graph
 * captures, replays and disposals, traces started and stopped, timeline waits aborted by an
 * `AbortSignal`, handles of a client of another backend, and `destroy()` of the client at a random
 * point (after which every call is repeated against the destroyed client).
 *
 * Every promise the program made must settle within a bound; a read that resolves must equal a
 * CPU model of the program up to the read; every error must be the one the call deserves: a typed
 * `ComputeError` (`DESTROYED` once destroyed, `INVALID_HANDLE` for a disposed or foreign handle),
 * or the abort reason for an aborted wait. The client of the other backend must compute exactly
 * afterwards.
 */
import assert from "node:assert/strict";
import { type ComputeClient, CpuTimelineSignal, type Handle, type LaunchGraph } from "../mod.ts";
import type { TraceRecorder } from "../runtime/core/trace.ts";
import type { KernelMetadata } from "../backend.ts";
import { LEN, type LifeCommand } from "./_qa3_life_commands.ts";
import { checkError, type Expect, settleOf } from "./_qa3_life_checks.ts";

export { LEN, type LifeCommand, lifeCommand, lifeProgram } from "./_qa3_life_commands.ts";

/** A buffer's model, shared by the handle of a slot and the graphs that captured it. */
type Model = { data: Uint32Array };

interface Slot {
  readonly handle: Handle<"u32">;
  readonly model: Model;
}

interface Graph {
  readonly graph: LaunchGraph;
  readonly x: Model;
  readonly y: Model;
  readonly c: number;
  disposed: boolean;
}

const pattern = (seed: number) =>
  Uint32Array.from({ length: LEN }, (_, i) => (seed * 7919 + i * 31) >>> 0);

/**
 * Runs `program` on `client`; `foreign` is a live handle (all 9s) of `other`, a client of the
 * other backend, that copies go to and come from. Throws
 * the first violation. Leaves `client` destroyed.
 */
export async function runLifeProgram<K extends KernelMetadata>(
  client: ComputeClient<K>,
  add: K,
  other: ComputeClient,
  foreign: Handle<"u32">,
  program: readonly LifeCommand[],
): Promise<void> {
  const slots = new Map<number, Slot>();
  const disposed = new Map<number, Handle<"u32">>();
  const graphs: Graph[] = [];
  const gates: CpuTimelineSignal[] = [];
  let trace: TraceRecorder | undefined;
  let destroyed = false;
  const checks: Promise<unknown>[] = [];
  // Calls made before the destroy that may still be pending when it comes.
  const early: { name: string; promise: Promise<unknown>; expect: Expect }[] = [];

  /** Checks one call: its synchronous outcome now, its promise (if any) within the bound. */
  const call = (name: string, expect: Expect, fn: () => unknown) => {
    let result: unknown;
    try {
      result = fn();
    } catch (error) {
      checkError(name, expect, error);
      return;
    }
    if (result instanceof Promise) {
      const entry = { name, promise: result, expect };
      if (!destroyed) early.push(entry);
      // Caught now (checked at the end): a failure must not be an unhandled rejection meanwhile.
      checks.push(settleOf(entry).then(() => undefined, (error) => error ?? new Error("?")));
    } else {
      assert.ok(
        expect.kind !== "error" && expect.kind !== "abort",
        `${name}: returned, expected ${JSON.stringify(expect)}`,
      );
    }
  };
  const live = (): Expect => destroyed ? { kind: "error", code: "DESTROYED" } : { kind: "value" };
  const liveRead = (model: Uint32Array): Expect =>
    destroyed ? { kind: "error", code: "DESTROYED" } : { kind: "value", model };
  const launch = (x: Slot, y: Slot, c: number, s: number) =>
    client.execute(
      add,
      { stream: s, threads: LEN, buffers: [x.handle, y.handle], params: { c, n: LEN } } as never,
    );
  const apply = (x: Model, y: Model, c: number) => {
    y.data = x.data.map((v) => (v + c) >>> 0);
  };
  const pick = (h: number): { slot?: Slot; gone?: Handle<"u32"> } => ({
    slot: slots.get(h),
    gone: disposed.get(h),
  });

  for (const c of program) {
    switch (c.op) {
      case "alloc": {
        const data = pattern(c.seed);
        let handle: Handle<"u32"> | undefined;
        call("alloc", live(), () => void (handle = client.createWithData(data, { stream: c.s })));
        if (handle !== undefined) {
          slots.get(c.h)?.handle.dispose();
          slots.set(c.h, { handle, model: { data: data.slice() } });
          disposed.delete(c.h);
        }
        break;
      }
      case "add": {
        const x = slots.get(c.x), y = slots.get(c.y);
        if (x === undefined || y === undefined || x === y) {
          const gone = disposed.get(c.x) ?? disposed.get(c.y);
          if (gone !== undefined && y !== undefined && (x !== undefined || disposed.has(c.x))) {
            // A disposed handle in a launch: INVALID_HANDLE (DESTROYED once destroyed).
            const xh = x?.handle ?? disposed.get(c.x)!;
            const yh = y.handle;
            call(
              "add with a disposed handle",
              destroyed
                ? { kind: "error", code: "DESTROYED" }
                : { kind: "error", code: "INVALID_HANDLE" },
              () =>
                client.execute(
                  add,
                  {
                    stream: c.s,
                    threads: LEN,
                    buffers: [xh, yh],
                    params: { c: c.c, n: LEN },
                  } as never,
                ),
            );
          }
          break;
        }
        call("add", live(), () => launch(x, y, c.c, c.s));
        if (!destroyed) apply(x.model, y.model, c.c);
        break;
      }
      case "write": {
        const at = slots.get(c.h);
        if (at === undefined) break;
        const data = pattern(c.seed);
        call("write", live(), () => client.write(at.handle, data, { stream: c.s }));
        if (!destroyed) at.model.data = data.slice();
        break;
      }
      case "read": {
        const { slot: at, gone } = pick(c.h);
        if (at !== undefined) {
          call(
            `read of slot ${c.h}`,
            liveRead(at.model.data.slice()),
            () => client.read(at.handle, { stream: c.s }),
          );
        } else if (gone !== undefined) {
          call(
            "read of a disposed handle",
            destroyed
              ? { kind: "error", code: "DESTROYED" }
              : { kind: "error", code: "INVALID_HANDLE" },
            () => client.read(gone, { stream: c.s }),
          );
        }
        break;
      }
      case "dispose": {
        const at = slots.get(c.h);
        if (at === undefined) {
          disposed.get(c.h)?.dispose(); // a second dispose is a no-op
          break;
        }
        at.handle.dispose();
        slots.delete(c.h);
        disposed.set(c.h, at.handle);
        break;
      }
      case "sync":
        call("sync", live(), () => client.sync({ stream: c.s }));
        break;
      case "mark": {
        let value: bigint | undefined;
        call("signal", live(), () => void (value = client.signal({ stream: c.s })));
        if (value !== undefined) call("timeline wait", live(), () => client.timeline.wait(value!));
        break;
      }
      case "gate": {
        const gate = new CpuTimelineSignal();
        call("waitFor", live(), () => client.waitFor(gate, 1, { stream: c.s }));
        gates.push(gate);
        break;
      }
      case "open":
        gates.shift()?.set(1);
        break;
      case "profile": {
        const x = slots.get(c.x), y = slots.get(c.y);
        const both = x !== undefined && y !== undefined && x !== y;
        // With `wait`, fn awaits a gate opened by a later `open` (or at the end): a destroy
        // meanwhile settles the profile at once, before the gate opens.
        const gate = c.wait ? new CpuTimelineSignal() : undefined;
        if (gate !== undefined) gates.push(gate);
        call("profile", live(), () =>
          client.profile(async () => {
            if (both) launch(x, y, c.c, c.s);
            await gate?.wait(1);
          }, { stream: c.s }));
        if (both && !destroyed) apply(x.model, y.model, c.c);
        break;
      }
      case "capture": {
        const x = slots.get(c.x), y = slots.get(c.y);
        if (x === undefined || y === undefined || x === y) break;
        let captured: Promise<LaunchGraph> | undefined;
        call("capture", live(), () => captured = client.capture(() => launch(x, y, c.c, 0)));
        if (captured === undefined || destroyed) break;
        // Awaited (a graph replays once made): a capture of a live client makes one.
        let graph: LaunchGraph;
        try {
          graph = await captured;
        } catch (error) {
          assert.fail(`capture of a live client failed: ${error}`);
        }
        graphs.push({ graph, x: x.model, y: y.model, c: c.c, disposed: false });
        break;
      }
      case "replay": {
        const g = graphs[c.g];
        if (g === undefined) break;
        const refused = destroyed || g.disposed;
        call(
          "replay",
          refused ? { kind: "error", code: "DESTROYED" } : { kind: "value" },
          () => g.graph.replay(),
        );
        if (!refused) apply(g.x, g.y, g.c);
        break;
      }
      case "dropGraph": {
        const g = graphs[c.g];
        if (g === undefined) break;
        call("graph dispose", { kind: "value" }, () => g.graph.dispose()); // idempotent, also once destroyed
        g.disposed = true;
        break;
      }
      case "trace":
        if (trace === undefined) {
          call("trace", live(), () => void (trace = client.trace()));
        } else {
          const recorder = trace;
          trace = undefined;
          call("trace stop", live(), () => recorder.stop());
        }
        break;
      case "abortWait": {
        const abort = new AbortController();
        const reason = new Error("aborted by the program");
        const expect: Expect = destroyed
          ? { kind: "error", code: "DESTROYED" }
          : { kind: "abort", reason };
        call("aborted wait", expect, () => {
          const waiting = client.timeline.wait(2n ** 40n, { signal: abort.signal });
          abort.abort(reason);
          return waiting;
        });
        break;
      }
      case "copyOut": {
        // To the other backend's client; read there: the model now, or DESTROYED once destroyed.
        const at = slots.get(c.h);
        if (at === undefined) break;
        let moved: Handle<"u32"> | undefined;
        call(
          "copyTo the other backend",
          live(),
          () => void (moved = client.copyTo(at.handle, other, { stream: c.s })),
        );
        if (moved !== undefined) {
          const done = moved;
          call("read of the copy on the other backend", {
            kind: "value",
            model: at.model.data.slice(),
          }, () => other.read(done).finally(() => done.dispose()));
        }
        break;
      }
      case "copyIn": {
        let moved: Handle<"u32"> | undefined;
        call(
          "copyTo from the other backend",
          live(),
          () => void (moved = other.copyTo(foreign, client, { destinationStream: c.s })),
        );
        if (moved !== undefined) {
          slots.get(c.h)?.handle.dispose();
          slots.set(c.h, { handle: moved, model: { data: new Uint32Array(LEN).fill(9) } });
          disposed.delete(c.h);
        }
        break;
      }
      case "waitOther": {
        // Held until the other backend's client completed its work so far (always reached).
        let mark: bigint | undefined;
        call("other's signal", { kind: "value" }, () => void (mark = other.signal()));
        if (mark !== undefined) {
          call(
            "waitFor the other's timeline",
            live(),
            () => client.waitFor(other.timeline, mark!, { stream: c.s }),
          );
        }
        break;
      }
      case "readMany": {
        const a = slots.get(c.h), b = slots.get(c.k);
        if (a === undefined || b === undefined) break;
        const both = [a.model.data.slice(), b.model.data.slice()];
        call(
          "readMany",
          destroyed ? { kind: "error", code: "DESTROYED" } : { kind: "value" },
          () =>
            client.readMany([a.handle, b.handle], { stream: c.s }).then((got) => {
              assert.deepEqual(
                got.map((d) => [...d]),
                both.map((d) => [...d]),
                "readMany: wrong data",
              );
            }),
        );
        break;
      }
      case "cleanup":
        call("memoryCleanup", live(), () => client.memoryCleanup({ stream: c.s }));
        break;
      case "foreign":
        call(
          "read of another backend's handle",
          destroyed
            ? { kind: "error", code: "DESTROYED" }
            : { kind: "error", code: "INVALID_HANDLE" },
          () => client.read(foreign, { stream: c.s }),
        );
        call(
          "write of another backend's handle",
          destroyed
            ? { kind: "error", code: "DESTROYED" }
            : { kind: "error", code: "INVALID_HANDLE" },
          () => client.write(foreign, new Uint32Array(LEN), { stream: c.s }),
        );
        break;
      case "destroy":
        if (!destroyed) {
          // Whatever was pending may now fail with DESTROYED instead of its value.
          for (const e of early) {
            if (e.expect.kind === "value") {
              e.expect = { kind: "valueOr", code: "DESTROYED", model: e.expect.model };
            }
          }
          destroyed = true;
        }
        client.destroy(); // idempotent
        for (const g of graphs) g.disposed = true;
        break;
      case "yield":
        await new Promise((resolve) => setTimeout(resolve, 1));
        break;
    }
  }
  // A trace left open is stopped; gates left closed are opened half the time.
  if (trace !== undefined) {
    const recorder = trace;
    call("trace stop", live(), () => recorder.stop());
  }
  // A destroyed client settles everything without the gates: they open only afterwards.
  if (!destroyed) { for (const gate of gates) gate.set(1); }
  const failure = (await Promise.all(checks)).find((error) => error !== undefined);
  for (const gate of gates) gate.set(1);
  if (failure !== undefined) throw failure;
  if (!destroyed) {
    // Still usable: exact once more, then destroyed (a second destroy is a no-op).
    const x = client.createWithData(pattern(3));
    const y = client.zeros(LEN, "u32");
    launch(
      { handle: x, model: { data: pattern(3) } },
      { handle: y, model: { data: pattern(3) } },
      5,
      0,
    );
    assert.deepEqual([...await client.read(y)], [...pattern(3).map((v) => (v + 5) >>> 0)]);
    await client.sync();
  }
  client.destroy();
  client.destroy();
}
