/**
 * Compiles the CUDA C kernels of the CUDA backend (`runtime/server/cuda/kernels/*.cu`) to PTX
 * that drivers from r450 (CUDA 11.0) load, and writes them, with each source, its SHA-256, the
 * PTX ISA and the tools' versions, into `runtime/server/cuda/kernels/ptx.ts` (a module, so the
 * published package carries the PTX without needing read permission).
 *
 * nvcc writes the ISA of its own toolkit (`.version 9.0` for nvcc 13), which drivers before r580
 * refuse (`CUDA_ERROR_UNSUPPORTED_PTX_VERSION`). The kernels use nothing newer than ISA 7.0, so
 * the `.version` line is lowered to the lowest ISA from {@linkcode LOWEST_ISA} up to
 * {@linkcode HIGHEST_ISA} at which `ptxas` assembles the module for every architecture of
 * {@linkcode CHECKED_ARCHS}: ptxas refuses any instruction or target the ISA lacks, so the
 * lowered text is valid PTX of that version, not merely relabelled. The result is reproducible:
 * the same nvcc and ptxas give the same file. `tests/cuda_ptx_test.ts` checks that it is current.
 *
 * Run: `deno task ptx` (which formats the result with `deno fmt`).
 *
 * @module
 */

/** Where the kernels live. */
export const KERNELS_DIR: URL = new URL("../runtime/server/cuda/kernels/", import.meta.url);

/** The ISA the modules are lowered to when ptxas accepts it: CUDA 11.0 (r450), `10 * 7.0`. */
export const LOWEST_ISA = 70;
/** The highest ISA accepted for a shipped module: CUDA 12.0 (r525). */
export const HIGHEST_ISA = 80;
/** PTX ISA versions in order (there is no 7.9: 8.0 follows 7.8). */
const ISAS = [70, 71, 72, 73, 74, 75, 76, 77, 78, 80, 81, 82, 83, 84, 85, 86, 87, 88, 90, 91];
/** The architectures every shipped module must assemble for (Turing to Hopper). */
export const CHECKED_ARCHS: readonly string[] = ["sm_75", "sm_80", "sm_86", "sm_89", "sm_90"];

/** One compiled source. */
export interface CompiledModule {
  /** File name without `.cu`. */
  readonly name: string;
  /** SHA-256 of the source, hex. */
  readonly sourceSha256: string;
  /** The CUDA C source. */
  readonly source: string;
  /** The PTX ISA of the module (`.version`), e.g. `7.0`. */
  readonly isa: string;
  /** The PTX text. */
  readonly ptx: string;
}

/** The hex SHA-256 of a text. */
export async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** The `.cu` sources, sorted by name. */
export async function sources(): Promise<{ name: string; text: string }[]> {
  const list: { name: string; text: string }[] = [];
  for await (const entry of Deno.readDir(KERNELS_DIR)) {
    if (!entry.isFile || !entry.name.endsWith(".cu")) continue;
    const text = await Deno.readTextFile(new URL(entry.name, KERNELS_DIR));
    list.push({ name: entry.name.slice(0, -3), text });
  }
  return list.sort((a, b) => a.name < b.name ? -1 : 1);
}

/** The version line of `<tool> --version`, or `undefined` when the tool is not installed. */
export async function toolVersion(tool: "nvcc" | "ptxas"): Promise<string | undefined> {
  try {
    // ptxas needs no environment; without one it also runs where the test runner set
    // LD_LIBRARY_PATH (for NVRTC), with which Deno refuses a narrow --allow-run (NotCapable)
    const out = await new Deno.Command(tool, {
      args: ["--version"],
      stdout: "piped",
      clearEnv: tool === "ptxas",
    }).output();
    if (!out.success) return undefined;
    const lines = new TextDecoder().decode(out.stdout).trim().split("\n");
    return lines.find((line) => line.startsWith("Cuda compilation tools")) ?? lines.at(-1);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
}

/** The version line of `nvcc --version`, or `undefined` when nvcc is not installed. */
export function nvccVersion(): Promise<string | undefined> {
  return toolVersion("nvcc");
}

/** The `.version` of PTX text as `10 * major + minor`, or `undefined`. */
export function ptxIsa(ptx: string): number | undefined {
  const match = /^\s*\.version\s+(\d+)\.(\d+)/m.exec(ptx);
  return match ? Number(match[1]) * 10 + Number(match[2]) : undefined;
}

/** `70` as `7.0`. */
export function isaText(isa: number): string {
  return `${Math.floor(isa / 10)}.${isa % 10}`;
}

/** PTX text with its `.version` line set to `isa` (`10 * major + minor`). */
export function withIsa(ptx: string, isa: number): string {
  return ptx.replace(/^(\s*)\.version\s+\d+\.\d+/m, `$1.version ${isaText(isa)}`);
}

/** Assembles PTX with `ptxas` for `arch` (`sm_75`); `ok` false with ptxas's message if it fails. */
export async function assemble(ptx: string, arch: string): Promise<{ ok: boolean; log: string }> {
  const child = new Deno.Command("ptxas", {
    args: [`-arch=${arch}`, "/dev/stdin", "-o", "/dev/null"],
    clearEnv: true, // as in toolVersion
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(ptx));
  await writer.close();
  const out = await child.output();
  const log = new TextDecoder().decode(out.stderr) + new TextDecoder().decode(out.stdout);
  return { ok: out.success, log: log.trim() };
}

/** Lowers nvcc's PTX to the lowest ISA that ptxas assembles for every checked architecture. */
export async function lower(name: string, ptx: string): Promise<{ isa: number; ptx: string }> {
  const original = ptxIsa(ptx);
  if (original === undefined) throw new Error(`${name}.ptx has no .version`);
  const failures: string[] = [];
  for (const isa of ISAS.filter((v) => v >= LOWEST_ISA && v <= HIGHEST_ISA && v <= original)) {
    const candidate = withIsa(ptx, isa);
    const results = await Promise.all(CHECKED_ARCHS.map((arch) => assemble(candidate, arch)));
    const failed = results.findIndex((r) => !r.ok);
    if (failed < 0) {
      const note = `// .version lowered from ${isaText(original)} (nvcc) by tools/ptx.ts: ptxas ` +
        `assembles it for ${CHECKED_ARCHS.join(", ")}\n`;
      return { isa, ptx: candidate.replace(/^(\s*)\.version/m, `${note}$1.version`) };
    }
    failures.push(`${isaText(isa)} on ${CHECKED_ARCHS[failed]}: ${results[failed].log}`);
  }
  throw new Error(
    `${name}.ptx does not assemble at any PTX ISA from ${LOWEST_ISA / 10} to ` +
      `${HIGHEST_ISA / 10} for ${CHECKED_ARCHS.join(", ")}:\n${failures.join("\n")}`,
  );
}

/** Compiles every source with `nvcc -ptx` (default architecture) and lowers its ISA. */
export async function compileAll(): Promise<CompiledModule[]> {
  const compiled: CompiledModule[] = [];
  for (const { name, text } of await sources()) {
    const source = new URL(`${name}.cu`, KERNELS_DIR).pathname;
    const run = await new Deno.Command("nvcc", {
      args: ["-ptx", source, "-o", "/dev/stdout"],
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (!run.success) {
      throw new Error(`nvcc -ptx ${name}.cu failed: ${new TextDecoder().decode(run.stderr)}`);
    }
    const { isa, ptx } = await lower(name, new TextDecoder().decode(run.stdout));
    compiled.push({ name, sourceSha256: await sha256(text), source: text, isa: isaText(isa), ptx });
  }
  return compiled;
}

/** The text of `ptx.ts` for compiled modules. */
export function render(
  modules: readonly CompiledModule[],
  tools: { readonly nvcc: string; readonly ptxas: string },
): string {
  const entries = modules.map((m) =>
    `  ${m.name}: {\n    sourceSha256: "${m.sourceSha256}",\n    isa: "${m.isa}",\n` +
    `    source: ${JSON.stringify(m.source)},\n    ptx: ${JSON.stringify(m.ptx)},\n  },`
  );
  return `// Generated by \`deno task ptx\` (tools/ptx.ts) from the .cu files of this folder. Do not edit.
/**
 * PTX of the CUDA backend's shipped kernels, one module per \`.cu\` file, compiled by
 * \`nvcc -ptx\` (${tools.nvcc}) with \`.version\` lowered to the lowest PTX ISA that \`ptxas\`
 * (${tools.ptxas}) assembles for ${CHECKED_ARCHS.join(", ")}, so drivers from
 * CUDA 11.0 (r450) load them. Each module keeps its CUDA C for NVRTC.
 *
 * @module
 */

/** One PTX module with the CUDA C it came from. */
export interface PtxModule {
  /** SHA-256 (hex) of the \`.cu\` source. */
  readonly sourceSha256: string;
  /** The PTX ISA of the module (its \`.version\`). */
  readonly isa: string;
  /** The CUDA C source. */
  readonly source: string;
  /** The PTX text, as \`cuModuleLoadData\` takes it. */
  readonly ptx: string;
}

/** The compiler that produced the PTX. */
export const PTX_COMPILER = ${JSON.stringify(tools.nvcc)};

/** The assembler that checked the lowered PTX. */
export const PTX_ASSEMBLER = ${JSON.stringify(tools.ptxas)};

/** The modules by source name. */
export const PTX_MODULES: Readonly<Record<string, PtxModule>> = {
${entries.join("\n")}
};
`;
}

if (import.meta.main) {
  const [nvcc, ptxas] = await Promise.all([toolVersion("nvcc"), toolVersion("ptxas")]);
  if (nvcc === undefined || ptxas === undefined) {
    console.error("nvcc and ptxas are needed to regenerate the PTX");
    Deno.exit(1);
  }
  const target = new URL("ptx.ts", KERNELS_DIR);
  const modules = await compileAll();
  await Deno.writeTextFile(target, render(modules, { nvcc, ptxas }));
  console.log(`wrote ${target.pathname}: ${modules.map((m) => `${m.name} ${m.isa}`).join(", ")}`);
}
