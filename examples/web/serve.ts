/**
 * `deno task web`: bundles the web example for browsers (`deno bundle --platform browser`) and
 * serves it on http://127.0.0.1:8000/. Open that in a browser with WebGPU (WebGPU needs a secure
 * context: localhost or https). Ctrl-C stops the server.
 *
 * @module
 */

const OUT = ".tmp/web";
const PORT = 8000;

const bundled = await new Deno.Command("deno", {
  args: [
    "bundle",
    "--quiet",
    "--platform",
    "browser",
    "-o",
    `${OUT}/main.js`,
    "examples/web/main.ts",
  ],
}).output();
if (bundled.code !== 0) {
  console.error(new TextDecoder().decode(bundled.stderr));
  Deno.exit(1);
}

const FILES: Record<string, [string, string]> = {
  "/": ["examples/web/index.html", "text/html; charset=utf-8"],
  "/index.html": ["examples/web/index.html", "text/html; charset=utf-8"],
  "/main.js": [`${OUT}/main.js`, "text/javascript"],
};

Deno.serve({ hostname: "127.0.0.1", port: PORT }, async (request) => {
  const file = FILES[new URL(request.url).pathname];
  if (file === undefined) return new Response("not found", { status: 404 });
  return new Response(await Deno.readFile(file[0]), { headers: { "content-type": file[1] } });
});
