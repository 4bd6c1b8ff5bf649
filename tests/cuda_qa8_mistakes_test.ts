/**
 * QA wave 8: the same mistake gets the same typed error on both backends, at the same moment,
 * naming the argument, and leaves the client usable. Every call of the mistakes tables
 * (tests/_qa8_mistake_*cases.ts) runs on a WebGPU client (llvmpipe) and a CUDA client (the
 * simulated driver, NVRTC for CUDA C): their outcomes (result, or error class and `code` and
 * whether it came at the call, from the promise or at the read after) must be equal, unless the
 * case documents why they differ; an error's message must name the argument on both; a case that
 * names an argument must not be accepted; and a correct launch must run right after.
 */
import assert from "node:assert/strict";
import { type ComputeClient, CpuTimelineSignal, createClient, listDevices } from "../mod.ts";
import { nvrtcName, nvrtcSkip, simulatedCudaClient } from "./_cuda_nvrtc.ts";
import { EXECUTE_MISTAKES, type Mistake } from "./_qa8_mistake_cases.ts";
import { DATA_MISTAKES, DESTROYED_MISTAKES } from "./_qa8_mistake_data_cases.ts";
import { HELPER_MISTAKES } from "./_qa8_mistake_helper_cases.ts";
import { MORE_MISTAKES } from "./_qa8_mistake_more_cases.ts";
import {
  disposeEnv,
  makeEnv,
  type MistakeEnv,
  type Outcome,
  outcome,
  usable,
} from "./_qa8_mistake_run.ts";

const [adapter] = await listDevices({ backend: "webgpu" });
const ignore = adapter === undefined || nvrtcSkip !== undefined;

/** A client of each backend, and a second one of each (whose handles the first refuses). */
interface Clients extends Disposable {
  readonly webgpu: ComputeClient;
  readonly cuda: ComputeClient;
  readonly webgpu2: ComputeClient;
  readonly cuda2: ComputeClient;
}

const openWebgpu = async () => await createClient({ device: adapter! }) as ComputeClient;

async function openAll(): Promise<Clients> {
  const [webgpu, webgpu2] = [await openWebgpu(), await openWebgpu()];
  const [cuda, cuda2] = [await simulatedCudaClient(), await simulatedCudaClient()];
  return {
    webgpu,
    cuda,
    webgpu2,
    cuda2,
    [Symbol.dispose]: () => [webgpu, webgpu2, cuda, cuda2].forEach((c) => c.destroy()),
  };
}

/** What came of `mistake` on `env`, with what it needs made first; `held`: see differences. */
async function outcomeOf(mistake: Mistake, env: MistakeEnv, held = false): Promise<Outcome> {
  const prepared = await mistake.prepare?.(env);
  const gate = new CpuTimelineSignal();
  if (held) env.client.waitFor(gate, 1);
  try {
    return await outcome(env, (e) => {
      try {
        return mistake.run(e, prepared);
      } finally {
        gate.set(1n);
      }
    });
  } finally {
    gate.set(1n);
    prepared?.[Symbol.dispose]();
  }
}

/** How `w` and `c` (WebGPU's and CUDA's outcomes of `mistake`) break the promise, if they do. */
function compare(mistake: Mistake, w: Outcome, c: Outcome): string[] {
  const found: string[] = [];
  const both = `\n  webgpu: ${w.key} ${w.message}\n  cuda:   ${c.key} ${c.message}`;
  const { documented, names } = mistake;
  if (documented !== undefined) {
    if (w.key !== documented.webgpu || c.key !== documented.cuda) {
      found.push(`${mistake.name}: not as documented (${documented.why}):${both}`);
    }
  } else if (w.key !== c.key) found.push(`${mistake.name}:${both}`);
  if (names === undefined) return found;
  for (const [name, o] of [["webgpu", w], ["cuda", c]] as const) {
    if (o.key.startsWith("ok")) continue;
    const named = typeof names === "string" ? o.message.includes(names) : names.test(o.message);
    if (!named) {
      found.push(`${mistake.name}: ${name}'s message does not name ${names}: ${o.message}`);
    }
  }
  if (w.key.startsWith("ok") && c.key.startsWith("ok")) {
    found.push(`${mistake.name}: accepted on both: ${w.key}`);
  }
  return found;
}

/**
 * The broken promises of `table`, one entry each (none: the test passes); with `held`, each call
 * is also made while its stream waits (`waitFor` a signal set right after the call), where it
 * must come out as it did on the free stream.
 */
async function differences(
  clients: Clients,
  table: readonly Mistake[],
  held = false,
): Promise<string[]> {
  const { webgpu, cuda, webgpu2, cuda2 } = clients;
  const found: string[] = [];
  for (const mistake of table) {
    const envs = [makeEnv(webgpu, cuda, webgpu2), makeEnv(cuda, webgpu, cuda2)] as const;
    let failed = true;
    try {
      const w = await outcomeOf(mistake, envs[0]), c = await outcomeOf(mistake, envs[1]);
      found.push(...compare(mistake, w, c));
      // A result was read: the client ran the call and a read after it.
      failed = !w.key.startsWith("ok") || !c.key.startsWith("ok");
      for (const [env, free] of held ? [[envs[0], w], [envs[1], c]] as const : []) {
        const again = makeEnv(env.client, env.other, env.sibling);
        const after = await outcomeOf(mistake, again, true).finally(() => disposeEnv(again));
        if (after.key !== free.key) {
          found.push(
            `${mistake.name}: on a held stream of ${env.client.server.properties.backend}: ` +
              `${after.key} ${after.message}; free: ${free.key}`,
          );
        }
      }
    } finally {
      for (const env of envs) disposeEnv(env);
    }
    if (!failed) continue;
    for (const env of envs) {
      const state = await usable(env.client, env.add);
      if (state !== "usable") {
        found.push(`${mistake.name}: ${env.client.server.properties.backend} ${state}`);
      }
    }
  }
  return found;
}

const TABLES: [string, readonly Mistake[], boolean][] = [
  ["execute's (also on a held stream)", EXECUTE_MISTAKES, true],
  ["data calls'", DATA_MISTAKES, false],
  ["helpers' and primitives'", HELPER_MISTAKES, false],
  ["graphs', element types', compiles' and waits'", MORE_MISTAKES, false],
];

for (const [what, table, held] of TABLES) {
  Deno.test({
    name: nvrtcName(`${what} mistakes: the same error at the same moment on WebGPU and CUDA`),
    ignore,
    async fn() {
      using clients = await openAll();
      const found = await differences(clients, table, held);
      assert.deepEqual(found, [], found.join("\n"));
    },
  });
}

Deno.test({
  name: nvrtcName("calls after destroy(): the same error at the same moment on WebGPU and CUDA"),
  ignore,
  async fn() {
    using clients = await openAll();
    const { webgpu, cuda, webgpu2, cuda2 } = clients;
    const found: string[] = [];
    for (const mistake of DESTROYED_MISTAKES) {
      const [deadW, deadC] = [await openWebgpu(), await simulatedCudaClient()];
      const envs = [makeEnv(deadW, cuda, webgpu2), makeEnv(deadC, webgpu, cuda2)] as const;
      deadW.destroy();
      deadC.destroy();
      const w = await outcomeOf(mistake, envs[0]), c = await outcomeOf(mistake, envs[1]);
      for (const env of envs) [env.foreign, env.kin].forEach((h) => h.dispose());
      found.push(...compare(mistake, w, c));
    }
    for (
      const [client, env] of [[webgpu, makeEnv(webgpu, cuda, webgpu2)], [
        cuda,
        makeEnv(cuda, webgpu, cuda2),
      ]] as const
    ) {
      assert.equal(await usable(client, env.add), "usable");
      disposeEnv(env);
    }
    assert.deepEqual(found, [], found.join("\n"));
  },
});
