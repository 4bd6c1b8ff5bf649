// Two streams produce a and b; a third adds them with no flush or sync: the runtime orders it.
import { createClient, elementwise } from "../mod.ts";

const fill = elementwise({ inputs: [], params: { k: "f32" }, expression: "k * f32(i)" });
const add = elementwise({ inputs: ["a", "b"], expression: "a + b" });

const n = 100_000;
using client = await createClient();
using a = client.empty(n, "f32", { stream: 1 });
using b = client.empty(n, "f32", { stream: 2 });
fill.run(client, {}, { out: a, params: { k: 2 }, stream: 1 });
fill.run(client, {}, { out: b, params: { k: -1 }, stream: 2 });
using c = add.run(client, { a, b }, { stream: 3 }); // waits for streams 1 and 2 by itself
const sums = await client.read(c, { stream: 3 });
const wrong = sums.findIndex((v, i) => v !== i);
if (wrong !== -1) throw new Error(`two streams: element ${wrong} is ${sums[wrong]}`);
console.log(`two streams that meet: ok`);
