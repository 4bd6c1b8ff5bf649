// k-means on 2-D points, one call per step: distances (elementwise), labels (argmin per row),
// per-cluster sums (segmentReduce) and counts (bincount). Every step is checked against the CPU.
import { argmin, bincount, createClient, elementwise, random, segmentReduce } from "../mod.ts";

/** Runs `steps` k-means steps on `n` random points with `k` clusters; throws on a CPU mismatch. */
export async function kmeans(n: number, k: number, steps: number): Promise<Float32Array> {
  using client = await createClient();
  using xs = random(client, n, { seed: 1 }); // uniform in [0, 1)
  using ys = random(client, n, { seed: 2 });
  const [px, py] = [await client.read(xs), await client.read(ys)];
  const centroids = Float32Array.from({ length: 2 * k }, (_, i) => (i % 2 ? py : px)[i >> 1]);
  // distance of point i / k to centroid i % k, squared
  const distances = elementwise({
    inputs: { x: "raw f32", y: "raw f32", c: "raw f32" },
    params: { k: "u32" },
    expression: "pow(x[i / k] - c[2u * (i % k)], 2.0) + pow(y[i / k] - c[2u * (i % k) + 1u], 2.0)",
  });
  for (let step = 0; step < steps; step++) {
    using c = client.createWithData(centroids);
    using d = distances.run(client, { x: xs, y: ys, c }, { params: { k }, length: n * k });
    using labels = argmin(client, d, { shape: [n, k], axis: 1 });
    using sx = segmentReduce(client, xs, labels, { segments: k });
    using sy = segmentReduce(client, ys, labels, { segments: k });
    using counts = bincount(client, labels, { length: k });
    const [l, gx, gy, gc] = await Promise.all([labels, sx, sy, counts].map((h) => client.read(h)));
    checkStep(
      px,
      py,
      centroids,
      l as Uint32Array,
      [gx, gy, gc] as [Float32Array, Float32Array, Uint32Array],
    );
    for (let j = 0; j < k; j++) {
      if (gc[j] > 0) [centroids[2 * j], centroids[2 * j + 1]] = [gx[j] / gc[j], gy[j] / gc[j]];
    }
  }
  return centroids;
}

/** The CPU reference of one step: the labels (ties aside), the sums and the counts. */
function checkStep(
  px: Float32Array,
  py: Float32Array,
  centroids: Float32Array,
  labels: Uint32Array,
  [sx, sy, counts]: [Float32Array, Float32Array, Uint32Array],
): void {
  const k = centroids.length / 2;
  const [ex, ey, ec] = [new Float64Array(k), new Float64Array(k), new Uint32Array(k)];
  for (let i = 0; i < px.length; i++) {
    const dist = (j: number) =>
      (px[i] - centroids[2 * j]) ** 2 + (py[i] - centroids[2 * j + 1]) ** 2;
    const label = labels[i];
    for (let j = 0; j < k; j++) {
      // f32 rounding may pick either of two near-equal centroids; anything farther is wrong.
      if (dist(j) < dist(label) - 1e-5) throw new Error(`kmeans: point ${i} labelled ${label}`);
    }
    ex[label] += px[i];
    ey[label] += py[i];
    ec[label]++;
  }
  for (let j = 0; j < k; j++) {
    const near = (a: number, b: number) => Math.abs(a - b) <= 1e-3 * Math.max(1, Math.abs(b));
    if (counts[j] !== ec[j] || !near(sx[j], ex[j]) || !near(sy[j], ey[j])) {
      throw new Error(`kmeans: cluster ${j} has ${counts[j]} points summing to ${sx[j]}, ${sy[j]}`);
    }
  }
}

if (import.meta.main) {
  const centroids = await kmeans(200_000, 8, 5);
  console.log(`k-means of 200,000 points, 8 clusters, 5 steps: ok`, centroids);
}
