// Softmax of every row of a matrix from the helpers (row max, exp, row sum, divide), CPU-checked.
import { createClient, elementwise, reduce } from "../mod.ts";

const [rows, cols] = [1000, 300];
const data = Float32Array.from({ length: rows * cols }, (_, i) => Math.sin(i) * 5);
using client = await createClient();
using x = client.createWithData(data);
const byRow = { shape: [rows, cols], axis: 1 } as const; // reduce each row of x
const perRow = (expression: string) =>
  // v: an element, r: its row's value (a raw input)
  elementwise({ inputs: { v: "f32", r: "raw f32" }, params: { cols: "u32" }, expression });
using top = reduce(client, x, { op: "max", ...byRow });
using e = perRow("exp(v - r[i / cols])").run(client, { v: x, r: top }, { params: { cols } });
using sums = reduce(client, e, byRow);
using y = perRow("v / r[i / cols]").run(client, { v: e, r: sums }, { params: { cols } });
const out = await client.read(y);

for (let r = 0; r < rows; r++) { // the CPU reference, row by row
  const row = Array.from(data.subarray(r * cols, (r + 1) * cols)), max = Math.max(...row);
  const sum = row.reduce((acc, v) => acc + Math.exp(v - max), 0);
  const bad = row.findIndex((v, c) => Math.abs(out[r * cols + c] - Math.exp(v - max) / sum) > 1e-6);
  if (bad !== -1) throw new Error(`softmax: row ${r}, column ${bad} is ${out[r * cols + bad]}`);
}
console.log(`softmax of ${rows} rows of ${cols}: ok`);
