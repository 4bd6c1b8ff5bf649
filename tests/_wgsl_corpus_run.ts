/**
 * Runs one WGSL corpus case (`_wgsl_corpus_qa_base.ts`) through the client and through plain
 * WebGPU and compares the bytes; shared by the corpus tests.
 */
import assert from "node:assert/strict";
import {
  CompilationError,
  createClient,
  CubeCount,
  type ExecuteOptions,
  type Handle,
  KernelArgumentError,
  UnsupportedError,
  type WebGpuClient,
} from "../mod.ts";
import { bytesOf, runPlain } from "./_plain_webgpu.ts";
import type { CorpusCase } from "./_wgsl_corpus_qa_base.ts";

/** The case's storage buffers and textures in (group, binding) order, as indices into `plain`. */
function bound(c: CorpusCase): number[] {
  return c.plain.map((b, i) => ({ b, i }))
    .filter(({ b }) => !("sampler" in b) && !("buffer" in b && b.uniform))
    .sort((x, y) => x.b.group - y.b.group || x.b.binding - y.b.binding)
    .map(({ i }) => i);
}

/** Where two byte arrays first differ, for a failure message ("" when equal). */
function firstDifference(got: Uint8Array, expected: Uint8Array): string {
  const n = Math.min(got.length, expected.length);
  for (let k = 0; k < n; k++) {
    if (got[k] !== expected[k]) {
      const word = k & ~3;
      const hex = (b: Uint8Array) =>
        [...b.subarray(word, word + 4)].map((x) => x.toString(16).padStart(2, "0")).join("");
      return `byte ${k} of ${n} differs (bytes ${word}-${word + 3}: ${hex(got)}, plain WebGPU ${
        hex(expected)
      })`;
    }
  }
  return got.length === expected.length
    ? ""
    : `${got.length} bytes, plain WebGPU ${expected.length}`;
}

/**
 * Runs `c` with plain WebGPU and through `client` (buffers in (group, binding) order, params,
 * overrides, samplers as the user writes them) and asserts every binding's bytes are equal (those
 * of `c.orderFree` in its canonical form) and that the launch wrote something. A failure's
 * message starts with the case's name.
 */
export async function runCorpusCase(client: WebGpuClient, c: CorpusCase): Promise<void> {
  const expected = await runPlain(c.source, c.plain, c.workgroups, c).catch((e: Error) => {
    throw new Error(`${c.name}: ${e.message}`, { cause: e });
  });
  const order = bound(c);
  const handles = order.map((i) => {
    const b = c.plain[i];
    return "buffer" in b ? client.createWithData(b.buffer as Float32Array) : client.createTexture(
      (b as { texture: Parameters<typeof client.createTexture>[0] }).texture,
    );
  });
  try {
    client.execute({ source: c.source, entryPoint: c.entryPoint }, {
      ...(c.threads === undefined
        ? { count: CubeCount.new3d(...c.workgroups) }
        : { threads: c.threads }),
      buffers: handles as Handle[],
      params: c.params as ExecuteOptions["params"],
      overrides: c.overrides ?? c.constants,
      samplers: c.samplers,
    });
    const gotAll = [...expected], expectedAll = [...expected];
    for (const [k, i] of order.entries()) {
      const got = bytesOf(await client.read(handles[k] as Handle));
      gotAll[i] = got;
      expectedAll[i] = expected[i].subarray(0, got.byteLength);
      if (c.orderFree?.bindings.includes(i)) continue;
      const { group, binding } = c.plain[i];
      const differs = firstDifference(got, expectedAll[i]);
      assert.ok(differs === "", `${c.name}: @group(${group}) @binding(${binding}): ${differs}`);
    }
    if (c.orderFree !== undefined) {
      const canonical = (bytes: readonly Uint8Array[], who: string) => {
        try {
          return c.orderFree!.canonical(bytes);
        } catch (e) {
          throw new Error(`${c.name}: ${who}'s bytes break what the WGSL determines: ${e}`);
        }
      };
      const got = canonical(gotAll, "the client"), want = canonical(expectedAll, "plain WebGPU");
      try {
        assert.deepEqual(got, want);
      } catch (e) {
        const which = `plain[${c.orderFree.bindings}] compared as ${c.orderFree.why}`;
        throw new Error(`${c.name}: ${which}: ${(e as Error).message}`);
      }
    }
    // The launch wrote something (a kernel that did nothing would compare equal).
    const before = (i: number) => {
      const b = c.plain[i];
      return "buffer" in b ? bytesOf(b.buffer) : new Uint8Array(expected[i].length);
    };
    assert.ok(
      order.some((i) => bytesOf(expected[i]).join() !== before(i).join()),
      `${c.name}: the launch wrote nothing`,
    );
  } finally {
    for (const handle of handles) handle.dispose();
  }
}

/**
 * How long one case may take (plain WebGPU and the client): a kernel that never ends on the GPU
 * (lavapipe's LLVM deletes an empty endless loop, a real GPU runs it) fails its own step, named,
 * instead of hanging the file. Far above the slowest case on lavapipe (a few seconds).
 */
const CASE_DEADLINE_MS = 60_000;

/** `work`, or a rejection naming `name` once `ms` passed without it settling. */
async function withDeadline(work: Promise<void>, ms: number, name: string): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(new Error(`${name}: did not finish in ${ms / 1000} s (a kernel that never ends?)`)),
      ms,
    );
  });
  try {
    await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Runs every case of `corpus` as a step of `t` on one client; a failing step (a failed step does
 * not stop the others) gets the next cases a new client, so a broken client fails one case only,
 * and a case that does not finish in {@link CASE_DEADLINE_MS} fails alone.
 */
export async function corpusSteps(
  t: Deno.TestContext,
  corpus: readonly CorpusCase[],
  adapter: GPUAdapter,
): Promise<void> {
  let client = await createClient();
  try {
    for (const c of corpus) {
      const ignore = c.features?.some((f) => !adapter.features.has(f)) ?? false;
      const passed = await t.step({
        name: c.name,
        ignore,
        fn: () => withDeadline(runCorpusCase(client, c), CASE_DEADLINE_MS, c.name),
      });
      if (!passed && !ignore) {
        client.destroy();
        client = await createClient();
      }
    }
  } finally {
    client.destroy();
  }
}

/** What a wave's tests may meet beyond the corpus. */
export interface CorpusTestOptions {
  /** A refused case the adapter's plain WebGPU runs is compared as a corpus case (not a failure). */
  readonly plainMayRun?: boolean;
}

/**
 * Registers a wave's two tests: every `corpus` case runs through the client bit-identical to
 * plain WebGPU, and every `refused` case plain WebGPU refuses is refused by the client with a
 * typed error, the client usable after.
 */
export async function corpusTests(
  wave: string,
  corpus: readonly CorpusCase[],
  refused: readonly CorpusCase[],
  options: CorpusTestOptions = {},
): Promise<void> {
  const adapter = await navigator.gpu?.requestAdapter();
  const ignore = adapter === null || adapter === undefined; // no WebGPU adapter on this machine
  Deno.test({
    name: `real-world WGSL compute shaders (${wave} wave) run through the client like plain WebGPU`,
    ignore,
    fn: (t) => corpusSteps(t, corpus, adapter!),
  });
  Deno.test({
    name: `WGSL plain WebGPU refuses is refused by the client with a typed error (${wave} wave)`,
    ignore,
    async fn(t) {
      using client = await createClient();
      for (const c of refused) {
        await t.step(c.name, async () => {
          const plain = await runPlain(c.source, c.plain, c.workgroups, c).then(
            () => undefined,
            (e: Error) => e.message,
          );
          if (plain === undefined && options.plainMayRun) return await runCorpusCase(client, c);
          assert.ok(plain !== undefined, "plain WebGPU runs it: move it to the corpus");
          const error = await client.compile({ source: c.source, entryPoint: c.entryPoint }).then(
            () => undefined,
            (e: unknown) => e,
          );
          assert.ok(
            error instanceof CompilationError || error instanceof UnsupportedError ||
              error instanceof KernelArgumentError,
            `plain WebGPU refused (${plain.split("\n")[1] ?? plain}), the client: ${error}`,
          );
        });
      }
      // Still usable after the refusals.
      using ok = client.createWithData(Uint32Array.from({ length: 32 }, (_, i) => i));
      client.execute({
        source: `@group(0) @binding(0) var<storage, read_write> d: array<u32>;
@compute @workgroup_size(32) fn main(@builtin(local_invocation_index) i: u32) { d[i] += 1u; }`,
      }, { threads: 32, buffers: [ok] });
      assert.equal((await client.read(ok))[31], 32);
    },
  });
}
