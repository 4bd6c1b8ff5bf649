/**
 * Runs one WGSL corpus case (`_wgsl_corpus_qa_base.ts`) through the client and through plain
 * WebGPU and compares the bytes; shared by the corpus tests.
 */
import assert from "node:assert/strict";
import { CubeCount, type ExecuteOptions, type Handle, type WebGpuClient } from "../mod.ts";
import { bytesOf, runPlain } from "./_plain_webgpu.ts";
import type { CorpusCase } from "./_wgsl_corpus_qa_base.ts";

/** The case's storage buffers and textures in (group, binding) order, as indices into `plain`. */
function bound(c: CorpusCase): number[] {
  return c.plain.map((b, i) => ({ b, i }))
    .filter(({ b }) => !("sampler" in b) && !("buffer" in b && b.uniform))
    .sort((x, y) => x.b.group - y.b.group || x.b.binding - y.b.binding)
    .map(({ i }) => i);
}

/**
 * Runs `c` with plain WebGPU and through `client` (buffers in (group, binding) order, params,
 * overrides, samplers as the user writes them) and asserts every binding's bytes are equal and
 * that the launch wrote something.
 */
export async function runCorpusCase(client: WebGpuClient, c: CorpusCase): Promise<void> {
  const expected = await runPlain(c.source, c.plain, c.workgroups, c);
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
    for (const [k, i] of order.entries()) {
      const got = bytesOf(await client.read(handles[k] as Handle));
      assert.deepEqual(got, expected[i].subarray(0, got.byteLength), `binding ${i}`);
    }
    // The launch wrote something (a kernel that did nothing would compare equal).
    const before = (i: number) => {
      const b = c.plain[i];
      return "buffer" in b ? bytesOf(b.buffer) : new Uint8Array(expected[i].length);
    };
    assert.ok(order.some((i) => bytesOf(expected[i]).join() !== before(i).join()));
  } finally {
    for (const handle of handles) handle.dispose();
  }
}
