/**
 * Random programs over two clients on two devices (two WebGPU devices, two simulated CUDA
 * devices), through the client API only: uploads and writes, kernels, copies across devices (and
 * within one) on random streams, marks of one client's timeline that the other waits on,
 * disposals, and reads checked against a sequential model. The model applies the commands in
 * program order: the runtime must order everything it was not told to leave unordered.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { type ComputeClient, CubeCount, type Handle } from "../mod.ts";
import type { KernelMetadata } from "../backend.ts";
import { CUDA_KERNELS, type CudaKernel } from "../runtime/server/cuda/mod.ts";

/** u32 elements per handle. */
export const N = 64;
const SLOTS = 8;

/** The kernels of a backend: `fill` sets every element to a scalar, `increment` adds one. */
export interface ProgramKernels<K extends KernelMetadata> {
  readonly fill: K;
  readonly increment: K;
  /** Threads per workgroup (block) of both. */
  readonly cube: number;
}

/** The shipped CUDA kernels that play `fill` and `increment`. */
export const CUDA_PROGRAM_KERNELS: ProgramKernels<CudaKernel> = {
  fill: CUDA_KERNELS.fillU32,
  increment: CUDA_KERNELS.incrementU32,
  cube: CUDA_KERNELS.fillU32.blockSize[0],
};

export type DeviceCommand =
  | { op: "create"; c: number; s: number; h: number; fill: number }
  | { op: "write"; s: number; h: number; fill: number }
  | { op: "fill"; s: number; h: number; fill: number }
  | { op: "increment"; s: number; h: number }
  | { op: "copy"; s: number; t: number; from: number; to: number; across: boolean }
  | { op: "mark"; c: number; s: number; t: number }
  | { op: "read"; s: number; h: number }
  | { op: "dispose"; h: number }
  | { op: "yield" };

const stream = fc.integer({ min: 0, max: 3 });
const client = fc.nat(1);
const slot = fc.nat(SLOTS - 1);
const value = fc.nat(1000);
export const deviceCommand: fc.Arbitrary<DeviceCommand> = fc.oneof(
  {
    arbitrary: fc.record({
      op: fc.constant("create" as const),
      c: client,
      s: stream,
      h: slot,
      fill: value,
    }),
    weight: 3,
  },
  fc.record({ op: fc.constant("write" as const), s: stream, h: slot, fill: value }),
  fc.record({ op: fc.constant("fill" as const), s: stream, h: slot, fill: value }),
  {
    arbitrary: fc.record({ op: fc.constant("increment" as const), s: stream, h: slot }),
    weight: 2,
  },
  {
    arbitrary: fc.record({
      op: fc.constant("copy" as const),
      s: stream,
      t: stream,
      from: slot,
      to: slot,
      across: fc.boolean(),
    }),
    weight: 4,
  },
  {
    arbitrary: fc.record({ op: fc.constant("mark" as const), c: client, s: stream, t: stream }),
    weight: 2,
  },
  { arbitrary: fc.record({ op: fc.constant("read" as const), s: stream, h: slot }), weight: 2 },
  fc.record({ op: fc.constant("dispose" as const), h: slot }),
  fc.record({ op: fc.constant("yield" as const) }),
);

interface Slot {
  readonly client: number;
  readonly handle: Handle<"u32">;
  model: Uint32Array;
}

/**
 * Runs `program` on the two clients; rejects when a read differs from the model (or a call fails).
 * Every handle is disposed and both clients synced at the end, whatever failed.
 */
export async function runOnDevices<K extends KernelMetadata>(
  clients: readonly [ComputeClient<K>, ComputeClient<K>],
  kernels: ProgramKernels<K>,
  program: readonly DeviceCommand[],
): Promise<void> {
  const slots = new Map<number, Slot>();
  const reads: Promise<void>[] = [];
  const metadata = { data: new Uint32Array([N]), staticLength: 1 };
  const count = CubeCount.new1d(Math.ceil(N / kernels.cube));
  const put = (h: number, next: Slot) => {
    slots.get(h)?.handle.dispose();
    slots.set(h, next);
  };
  let failure: { error: unknown } | undefined;
  try {
    for (const c of program) {
      const at = "h" in c ? slots.get(c.h) : undefined;
      switch (c.op) {
        case "create": {
          const data = new Uint32Array(N).map((_, i) => c.fill + i);
          put(c.h, {
            client: c.c,
            handle: clients[c.c].createWithData(data, { stream: c.s }),
            model: data,
          });
          break;
        }
        case "write":
          if (!at) break;
          at.model = new Uint32Array(N).fill(c.fill);
          clients[at.client].write(at.handle, at.model, { stream: c.s });
          break;
        case "fill":
          if (!at) break;
          clients[at.client].execute(kernels.fill, {
            stream: c.s,
            count,
            buffers: [at.handle],
            metadata,
            scalars: { u32: [c.fill] },
          });
          at.model = new Uint32Array(N).fill(c.fill);
          break;
        case "increment":
          if (!at) break;
          clients[at.client].execute(kernels.increment, {
            stream: c.s,
            count,
            buffers: [at.handle],
          });
          at.model = at.model.map((v) => v + 1);
          break;
        case "copy": {
          const from = slots.get(c.from);
          if (!from) break;
          const to = c.across ? 1 - from.client : from.client;
          const handle = clients[from.client].copyTo(from.handle, clients[to], {
            stream: c.s,
            destinationStream: c.t,
          });
          assert.equal(handle.dtype, "u32");
          put(c.to, { client: to, handle, model: from.model.slice() });
          break;
        }
        case "mark": {
          const value = clients[c.c].signal({ stream: c.s });
          clients[1 - c.c].waitFor(clients[c.c].timeline, value, { stream: c.t });
          break;
        }
        case "read": {
          if (!at) break;
          const expected = [...at.model];
          reads.push(
            clients[at.client].read(at.handle, { stream: c.s }).then((data) => {
              assert.deepEqual([...data], expected);
            }),
          );
          break;
        }
        case "dispose":
          at?.handle.dispose();
          slots.delete(c.h);
          break;
        case "yield":
          await new Promise((resolve) => setTimeout(resolve, 0));
          break;
      }
    }
  } catch (error) {
    failure = { error };
  }
  for (const { handle } of slots.values()) handle.dispose();
  const settled = await Promise.allSettled([
    ...reads,
    ...clients.flatMap((client) => [0, 1, 2, 3].map((stream) => client.sync({ stream }))),
  ]);
  if (failure !== undefined) throw failure.error;
  const failed = settled.find((result) => result.status === "rejected");
  if (failed !== undefined) throw (failed as PromiseRejectedResult).reason;
}

/** `promise`, or a rejection if it is still pending after `ms` (so a hang fails the test). */
export function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`still pending after ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
