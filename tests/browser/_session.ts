/**
 * A headless Chromium session for the browser tests: the bundled pages served over http on
 * 127.0.0.1 (module scripts do not load from `file://`), Debian's `chromium-headless-shell`
 * driven by `npm:puppeteer-core` (which downloads no browser), WebGPU on the SwiftShader the
 * browser bundles. One browser profile per session, so IndexedDB outlives a page.
 *
 * @module
 */

import type { Browser, Page } from "puppeteer-core";
import type { CaseResult, PageReport } from "./_page_harness.ts";
import { bundlePages, PAGES, WORKERS } from "./_bundle.ts";

/** Where Debian installs the browser (tools/install_browser.sh). */
export const CHROMIUM = "/usr/bin/chromium-headless-shell";

/** WebGPU on SwiftShader without a GPU, and nothing that would reach the network. */
export const CHROMIUM_FLAGS = [
  "--no-sandbox",
  "--enable-unsafe-webgpu",
  "--enable-features=Vulkan",
  "--use-vulkan=swiftshader",
  "--use-webgpu-adapter=swiftshader",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

/** Why the browser tests cannot run here, or `undefined` when they can. */
export function chromiumMissing(): string | undefined {
  try {
    Deno.statSync(CHROMIUM);
    return undefined;
  } catch (error) {
    return error instanceof Deno.errors.NotFound
      ? `${CHROMIUM} is not installed (tools/install_browser.sh installs it)`
      : `${CHROMIUM} cannot be checked: ${(error as Error).message}`;
  }
}

const TYPES: Record<string, string> = {
  js: "text/javascript",
  map: "application/json",
  html: "text/html; charset=utf-8",
};

/** The bundles, a server for them, and the browser. */
export class BrowserSession implements AsyncDisposable {
  readonly #dir: string;
  readonly #server: Deno.HttpServer<Deno.NetAddr>;
  readonly #browser: Browser;

  private constructor(dir: string, server: Deno.HttpServer<Deno.NetAddr>, browser: Browser) {
    this.#dir = dir;
    this.#server = server;
    this.#browser = browser;
  }

  /** Bundles the pages into a fresh folder of `.tmp`, serves them and starts the browser. */
  static async start(): Promise<BrowserSession> {
    await Deno.mkdir(".tmp", { recursive: true });
    const dir = await Deno.makeTempDir({ dir: ".tmp", prefix: "browser_" });
    await bundlePages(dir);
    const server = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: () => {} },
      (request) => serve(dir, new URL(request.url)),
    );
    // Loaded here: puppeteer-core reads environment variables as it loads.
    const { default: puppeteer } = await import("puppeteer-core");
    const browser = await puppeteer.launch({
      executablePath: CHROMIUM,
      headless: "shell",
      args: CHROMIUM_FLAGS,
      userDataDir: `${dir}/profile`,
      env: {}, // the browser needs none of ours (and copying them all needs --allow-env)
    }).catch(async (error) => {
      await server.shutdown();
      throw error;
    });
    return new BrowserSession(dir, server, browser);
  }

  /** The page's URL: `name` of {@linkcode PAGES}; `isolated: false` serves it without COOP/COEP. */
  url(name: keyof typeof PAGES, query = "", isolated = true): string {
    const path = isolated ? name : `plain/${name}`;
    return `http://127.0.0.1:${this.#server.addr.port}/${path}.html${query ? `?${query}` : ""}`;
  }

  /**
   * The URL of a page of the source tree, served next to its bundle; `isolated: false` serves it
   * without COOP/COEP, as `deno task web` does.
   */
  sourcePage(path: string, isolated = true): string {
    return `http://127.0.0.1:${this.#server.addr.port}/${isolated ? "" : "plain/"}pages/${path}`;
  }

  /** Opens a page, waits for its results (or `timeoutMs`), closes it. */
  async run(
    url: string,
    timeoutMs = 60_000,
  ): Promise<{ results: CaseResult[]; console: string[] }> {
    const page = await this.#browser.newPage();
    const console: string[] = [];
    page.on("console", (message) => console.push(`${message.type()}: ${message.text()}`));
    page.on("pageerror", (error) => console.push(`pageerror: ${error}`));
    try {
      await page.goto(url);
      const results = await waitForResults(page, timeoutMs, console);
      return { results, console };
    } finally {
      await page.close();
    }
  }

  /** Opens a page and hands it to `fn` (for screenshots), closing it after. */
  async withPage<T>(url: string, fn: (page: Page) => Promise<T>): Promise<T> {
    const page = await this.#browser.newPage();
    try {
      await page.goto(url);
      return await fn(page);
    } finally {
      await page.close();
    }
  }

  async [Symbol.asyncDispose](): Promise<void> {
    try {
      await this.#browser.close();
    } finally {
      await this.#server.shutdown();
      await Deno.remove(this.#dir, { recursive: true }).catch(() => {});
    }
  }
}

async function waitForResults(page: Page, timeoutMs: number, log: string[]): Promise<CaseResult[]> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(async () => {
      const current = await page.evaluate(() =>
        (globalThis as { __browserTest?: PageReport }).__browserTest?.current
      ).catch(() => undefined);
      reject(
        new Error(`The page timed out after ${timeoutMs} ms in "${current}"\n${log.join("\n")}`),
      );
    }, timeoutMs);
  });
  const results = page.waitForFunction("globalThis.__browserTest !== undefined", { timeout: 0 })
    .then(() =>
      page.evaluate(() => (globalThis as { __browserTest?: PageReport }).__browserTest!.done)
    );
  results.catch(() => {}); // when the timeout wins, this settles as the page closes
  try {
    return await Promise.race([results, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The test pages as HTML, the bundles and Workers as JavaScript, and the HTML files of the
 * source tree next to their bundles (`/pages/examples/web/index.html`); COOP/COEP headers
 * (cross-origin isolation) unless the path starts with `/plain/`.
 */
async function serve(dir: string, url: URL): Promise<Response> {
  const isolated = !url.pathname.startsWith("/plain/");
  const path = isolated ? url.pathname : url.pathname.slice("/plain".length);
  const headers = new Headers(
    isolated
      ? {
        "cross-origin-opener-policy": "same-origin",
        "cross-origin-embedder-policy": "require-corp",
      }
      : {},
  );
  const page = /^\/(\w+)\.html$/.exec(path)?.[1];
  if (page !== undefined && page in PAGES) {
    const entry = PAGES[page as keyof typeof PAGES].replace(/\.ts$/, ".js");
    headers.set("content-type", TYPES.html);
    const script = `<script type="module" src="/pages/${entry}"></script>`;
    return new Response(`<!doctype html><meta charset="utf-8"><title>${page}</title>${script}`, {
      headers,
    });
  }
  const worker = Object.keys(WORKERS).find((name) => path.endsWith(`/${name}`));
  const inPages = path.startsWith("/pages/") && !path.includes("..");
  const file = worker !== undefined
    ? `${dir}/workers/${worker.replace(/\.ts$/, ".js")}`
    : inPages && path.endsWith(".html")
    ? path.slice("/pages/".length) // the source tree's own page, e.g. examples/web/index.html
    : inPages
    ? `${dir}${path}`
    : undefined;
  if (file === undefined) return new Response("not found", { status: 404, headers });
  try {
    const body = await Deno.readFile(file);
    headers.set("content-type", TYPES[file.split(".").pop()!] ?? "application/octet-stream");
    return new Response(body, { headers });
  } catch {
    return new Response("not found", { status: 404, headers });
  }
}
