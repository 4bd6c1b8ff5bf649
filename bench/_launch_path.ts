/**
 * Which runtime code one warm `execute` runs (issue #22: "count the files one execute crosses
 * and the checks of one binding"): the script runs `N` and `2N` tiny launches (one buffer, a
 * static count, `maxTasks` above `2N` so nothing submits until the final sync) under coverage,
 * and prints every function whose call count grew by about `N`, with its calls per launch, by
 * file. Pass a checkout's root to count its code instead (e.g. main unpacked in /tmp/main).
 *
 * Run: `deno run -A bench/_launch_path.ts [root] [N]` (WebGPU permissions, `deno` on PATH).
 *
 * @module
 */

const root = new URL(
  Deno.args[0] ? `file://${Deno.args[0].replace(/\/?$/, "/")}` : "../",
  import.meta.url,
);
const n = Number(Deno.args[1] ?? 1000);
const program = `
import { ComputeClient, CubeCount } from "${new URL("mod.ts", root).href}";
import { WebGpuServer } from "${new URL("runtime/server/webgpu/mod.ts", root).href}";
const n = Number(Deno.args[0]);
const client = new ComputeClient(await WebGpuServer.create({ maxTasks: 1_000_000 }));
const inc = { id: "inc", source: \`@group(0) @binding(0) var<storage, read_write> d: array<u32>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3u) {
  if (g.x < arrayLength(&d)) { d[g.x] += 1u; } }\` };
const one = CubeCount.new1d(1);
const c = client as unknown as Record<string, (n: number) => unknown>;
const h = (c.createBytes ?? c.create).call(client, 256);
for (let i = 0; i < 10; i++) client.execute(inc, { count: one, buffers: [h as never] });
await client.sync();
for (let i = 0; i < n; i++) client.execute(inc, { count: one, buffers: [h as never] });
await client.sync();
Deno.exit(0);
`;
const dir = await Deno.makeTempDir({ prefix: "launch_path_" });
await Deno.writeTextFile(`${dir}/program.ts`, program);
const config =
  new URL("deno.json", import.meta.url.replace(/bench\/_launch_path\.ts$/, "")).pathname;

/** Function call counts by `file\0function` after `launches` launches. */
async function counts(launches: number): Promise<Map<string, number>> {
  const coverage = `${dir}/cov${launches}`;
  const run = new Deno.Command("deno", {
    args: [
      "run",
      "-A",
      "--config",
      config,
      `--coverage=${coverage}`,
      `${dir}/program.ts`,
      `${launches}`,
    ],
    stdout: "null",
    stderr: "inherit",
  });
  if (!(await run.output()).success) throw new Error("the launch program failed");
  const lcov = await new Deno.Command("deno", {
    args: ["coverage", "--lcov", coverage],
    stdout: "piped",
    stderr: "null",
  }).output();
  const result = new Map<string, number>();
  let file = "";
  for (const line of new TextDecoder().decode(lcov.stdout).split("\n")) {
    if (line.startsWith("SF:")) file = line.slice(3);
    if (!line.startsWith("FNDA:")) continue;
    const [count, name] = line.slice(5).split(/,(.*)/s);
    const key = `${file}\0${name}`;
    result.set(key, (result.get(key) ?? 0) + Number(count));
  }
  return result;
}

const [once, twice] = [await counts(n), await counts(2 * n)];
const byFile = new Map<string, string[]>();
for (const [key, count] of twice) {
  const calls = Math.round((count - (once.get(key) ?? 0)) / n);
  if (calls < 1) continue;
  const [file, name] = key.split("\0");
  const relative = file.slice(root.pathname.length);
  if (!/^(runtime|sync)\//.test(relative)) continue;
  (byFile.get(relative) ?? byFile.set(relative, []).get(relative)!).push(`${name} x${calls}`);
}
for (const [file, functions] of [...byFile].sort()) console.log(`${file}: ${functions.join(", ")}`);
console.log(`${byFile.size} runtime files run per launch`);
await Deno.remove(dir, { recursive: true });
