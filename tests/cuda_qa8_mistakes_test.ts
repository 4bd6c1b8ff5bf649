/**
 * QA wave 8: the same mistake gets the same typed error on both backends, at the same moment,
 * naming the argument, and leaves the client usable. Every call of the mistakes table
 * (tests/_qa8_mistake_cases.ts) runs on a WebGPU client (llvmpipe) and a CUDA client (the
 * simulated driver, NVRTC for CUDA C): their outcomes (result, or error class and `code` and
 * whether it came at the call, from the promise or at the read after) must be equal, an error's
 * message must contain the argument's name on both, and a correct launch must run right after.
 */
import assert from "node:assert/strict";
import { type ComputeClient, createClient, listDevices } from "../mod.ts";
import type { KernelMetadata } from "../backend.ts";
import { ADD_CUDA, ADD_WGSL } from "./_client_programs.ts";
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

async function openBoth(): Promise<[ComputeClient, ComputeClient]> {
  const webgpu = await createClient({ device: adapter! }) as ComputeClient;
  return [webgpu, await simulatedCudaClient()];
}

/** What came of `mistake` on `env`, with what it needs made first. */
async function outcomeOf(mistake: Mistake, env: MistakeEnv): Promise<Outcome> {
  const prepared = await mistake.prepare?.(env);
  try {
    return await outcome(env, (e) => mistake.run(e, prepared));
  } finally {
    prepared?.[Symbol.dispose]();
  }
}

/** The differences between the backends on `table`, one line each (none: the test passes). */
async function differences(
  webgpu: ComputeClient,
  cuda: ComputeClient,
  table: readonly Mistake[],
): Promise<string[]> {
  const found: string[] = [];
  for (const mistake of table) {
    const envs = [makeEnv(webgpu, cuda), makeEnv(cuda, webgpu)] as const;
    try {
      const [w, c] = [await outcomeOf(mistake, envs[0]), await outcomeOf(mistake, envs[1])];
      const documented = mistake.documented;
      if (documented !== undefined) {
        if (w.key !== documented.webgpu || c.key !== documented.cuda) {
          found.push(
            `${mistake.name}: not as documented (${documented.why}):\n  webgpu: ${w.key} ${w.message}\n  cuda:   ${c.key} ${c.message}`,
          );
        }
      } else if (w.key !== c.key) {
        found.push(
          `${mistake.name}:\n  webgpu: ${w.key} ${w.message}\n  cuda:   ${c.key} ${c.message}`,
        );
      }
      for (const [name, o] of [["webgpu", w], ["cuda", c]] as const) {
        if (o.key.startsWith("ok") || mistake.names === undefined) continue;
        const named = typeof mistake.names === "string"
          ? o.message.includes(mistake.names)
          : mistake.names.test(o.message);
        if (!named) {
          found.push(
            `${mistake.name}: ${name}'s message does not name ${mistake.names}: ${o.message}`,
          );
        }
      }
      if (mistake.names !== undefined && w.key.startsWith("ok") && c.key.startsWith("ok")) {
        found.push(`${mistake.name}: accepted on both: ${w.key}`);
      }
    } finally {
      for (const env of envs) disposeEnv(env);
    }
    for (
      const [name, client, add] of [["webgpu", webgpu, envs[0].add], [
        "cuda",
        cuda,
        envs[1].add,
      ]] as const
    ) {
      const state = await usable(client, add);
      if (state !== "usable") found.push(`${mistake.name}: ${name} ${state}`);
    }
  }
  return found;
}

Deno.test({
  name: nvrtcName("execute's mistakes: the same error at the same moment on WebGPU and CUDA"),
  ignore,
  async fn() {
    const [webgpu, cuda] = await openBoth();
    using _w = webgpu, _c = cuda;
    const found = await differences(webgpu, cuda, EXECUTE_MISTAKES);
    assert.deepEqual(found, [], found.join("\n"));
  },
});

Deno.test({
  name: nvrtcName("data calls' mistakes: the same error at the same moment on WebGPU and CUDA"),
  ignore,
  async fn() {
    const [webgpu, cuda] = await openBoth();
    using _w = webgpu, _c = cuda;
    const found = await differences(webgpu, cuda, DATA_MISTAKES);
    assert.deepEqual(found, [], found.join("\n"));
  },
});

Deno.test({
  name: nvrtcName("helpers' mistakes: the same error at the same moment on WebGPU and CUDA"),
  ignore,
  async fn() {
    const [webgpu, cuda] = await openBoth();
    using _w = webgpu, _c = cuda;
    const found = await differences(webgpu, cuda, HELPER_MISTAKES);
    assert.deepEqual(found, [], found.join("\n"));
  },
});

Deno.test({
  name: nvrtcName("calls after destroy(): the same error at the same moment on WebGPU and CUDA"),
  ignore,
  async fn() {
    const [webgpu, cuda] = await openBoth();
    using _w = webgpu, _c = cuda;
    const found: string[] = [];
    for (const mistake of DESTROYED_MISTAKES) {
      const [deadW, deadC] = await openBoth();
      const envs = [makeEnv(deadW, cuda), makeEnv(deadC, webgpu)] as const;
      deadW.destroy();
      deadC.destroy();
      const [w, c] = [await outcome(envs[0], mistake.run), await outcome(envs[1], mistake.run)];
      for (const env of envs) env.foreign.dispose();
      if (w.key !== c.key) {
        found.push(
          `${mistake.name}:\n  webgpu: ${w.key} ${w.message}\n  cuda:   ${c.key} ${c.message}`,
        );
      }
    }
    assert.equal(await usable(webgpu, ADD_WGSL as KernelMetadata), "usable");
    assert.equal(await usable(cuda, ADD_CUDA as KernelMetadata), "usable");
    assert.deepEqual(found, [], found.join("\n"));
  },
});

Deno.test({
  name: nvrtcName(
    "graphs', element types', compiles' and waits' mistakes agree on WebGPU and CUDA",
  ),
  ignore,
  async fn() {
    const [webgpu, cuda] = await openBoth();
    using _w = webgpu, _c = cuda;
    const found = await differences(webgpu, cuda, MORE_MISTAKES);
    assert.deepEqual(found, [], found.join("\n"));
  },
});
