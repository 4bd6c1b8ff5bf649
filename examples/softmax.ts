// Softmax of each row of a matrix from the helpers (row max, exp, row sum, divide), CPU-checked.
import { createClient, elementwise, reduce } from "../mod.ts";

const [rows, cols] = [1000, 300];
const data = Float32Array.from({ length: rows * cols }, (_, i) => Math.sin(i) * 5);
using client = await createClient();
using x = client.createWithData(data);
const byRow = { shape: [rows, cols], axis: 1 } as const; // reduce each row of x
const perRow = (expression: string) =>
  // v: an element, r: its row's value
  elementwise({ inputs: { v: "f32", r: "raw f32" }, params: { cols: "u32" }, expression });
using top = reduce(client, x, { op: "max", ...byRow });
using e = perRow("exp(v - r[i / cols])").run(client, { v: x, r: top }, { params: { cols } });
using sums = reduce(client, e, byRow);
using y = perRow("v / r[i / cols]").run(client, { v: e, r: sums }, { params: { cols } });
const [out, max, sum] = await client.readMany([y, top, sums]);
const error = out.reduce((worst, v, i) => {
  const row = Math.floor(i / cols);
  return Math.max(worst, Math.abs(v - Math.exp(data[i] - max[row]) / sum[row]));
}, 0);
if (!(error < 1e-6) || max[7] !== Math.max(...data.subarray(7 * cols, 8 * cols))) {
  throw new Error(`softmax: largest error ${error}`);
}
console.log(`softmax of ${rows} rows of ${cols}: ok (largest error ${error.toExponential(1)})`);
