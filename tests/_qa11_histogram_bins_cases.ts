/**
 * QA wave 11: how many bins `histogram` (and counts `bincount`) takes, the same rule on both
 * backends: as many u32 counts as the device's largest buffer holds. `histogram`'s host edges
 * (one key per bin, the top edge a parameter) fit wherever the counts do: 2^25 bins on a device
 * whose largest buffer is 128 MiB (llvmpipe) were refused on WebGPU, whose edges buffer had
 * bins + 1 keys, and taken on CUDA. Checked at that boundary on a client whose largest buffer is
 * 4 KiB (1024 counts), so the test stays small; one more is a `BufferTooBigError` at once that
 * names the maximum.
 */
import assert from "node:assert/strict";
import { bincount, BufferTooBigError, type ComputeClient, histogram } from "../mod.ts";
import { docHistogram, edgeValues } from "./_qa3_prims_histogram_cases.ts";

/** The largest buffer of the clients `checkBinsLimit` is given: 1024 u32 counts. */
export const SMALL_BUFFERS = { memory: { maxAllocationSize: 4096 } } as const;

/** `client`'s largest buffer must be {@linkcode SMALL_BUFFERS}'s. */
export async function checkBinsLimit(client: ComputeClient): Promise<void> {
  assert.equal(client.server.properties.maxAllocationSize, 4096);
  const bins = 1024;
  // subnormal bins 2^-140 wide (the host's edges), then normal ones (the float kernel)
  for (const range of [[0, 2 ** -130], [-1, 1]] as const) {
    const values = edgeValues(bins, range).slice(0, 1000); // the x buffer fits too
    const tail = edgeValues(bins, range).slice(-6); // the top edge and its neighbours
    const x = Float32Array.from([...values, ...tail, NaN]);
    using input = client.createWithData(x);
    using counts = histogram(client, input, { bins, range: [...range] });
    const got = Array.from(await client.read(counts));
    assert.deepEqual(got, docHistogram(x, bins, range), `${bins} bins over [${range}]`);
    assert.equal(got[bins - 1], docHistogram(tail, bins, range)[bins - 1]);
    assert.ok(got[bins - 1] >= 3, "the top edge is counted in the last bin");
  }
  using x = client.createWithData(new Float32Array([1e-41, 0.5]));
  for (const range of [[0, 1e-40], [0, 1]] as const) {
    assert.throws(
      () => histogram(client, x, { bins: bins + 1, range: [...range] }),
      (e) =>
        e instanceof BufferTooBigError &&
        e.message ===
          "Cannot allocate 4100 bytes as the limit is 4096 bytes: histogram: bins must be at " +
            "most 1024 on this device (u32 counts in its largest buffer), got 1025",
    );
  }
  using ints = client.createWithData(new Uint32Array([0, 1023, 1023, 1024]));
  using byValue = bincount(client, ints, { length: bins });
  const counted = await client.read(byValue);
  assert.deepEqual([counted[0], counted[1023], counted.length], [1, 2, 1024]);
  assert.throws(
    () => bincount(client, ints, { length: bins + 1 }),
    (e) =>
      e instanceof BufferTooBigError &&
      e.message.endsWith(
        ": bincount: length must be at most 1024 on this device (u32 counts " +
          "in its largest buffer), got 1025",
      ),
  );
  // usable after the refusals
  using again = histogram(client, x, { bins: 2, range: [0, 1e-40] });
  assert.deepEqual(Array.from(await client.read(again)), [1, 0]);
}
