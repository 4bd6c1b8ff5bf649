// One of five identical files: each only asks for an adapter (see ../../known_issues.md).
Deno.test("adapter 4", async () => {
  await navigator.gpu.requestAdapter();
});
