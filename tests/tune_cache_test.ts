import assert from "node:assert/strict";
import { join } from "node:path";
import { TunableSet, TuneCache, Tuner } from "../runtime/tune/mod.ts";
import { FakeTuneClient } from "./fixtures/fake_tune_client.ts";
import { parentDir } from "../runtime/tune/cache/_cache_dir.ts";
import { LOCK_STALE_MS } from "../runtime/tune/cache/_file_store.ts";

// File access is limited to .tmp/ (read, write) and tests/fixtures/ (read only) by the test
// task's permissions; the read-only cases rely on that.
const TMP = ".tmp";

async function tempDir(): Promise<string> {
  await Deno.mkdir(TMP, { recursive: true });
  return await Deno.makeTempDir({ dir: TMP, prefix: "tune_" });
}

function twoWay(client: FakeTuneClient, names = ["slow", "fast"]) {
  return new TunableSet("pair", {
    key: (n: number) => ({ n }),
    candidates: names.map((name, i) => ({
      name,
      run: () => client.spend(name, i === 0 ? 10 : 1),
    })),
  });
}

const quiet = { progressBar: false } as const;

Deno.test("a second tuner on the same cache file runs zero benchmarks", async () => {
  const cacheDir = await tempDir();
  try {
    const client = new FakeTuneClient();
    const first = new Tuner(client, { ...quiet, cacheDir, name: "t" });
    await first.execute(twoWay(client), 100);
    assert.ok(first.stats.runs > 0);
    const file = first.cacheFile!;
    assert.match(file, /v\d+\.\d+\.\d+.fake-fake-device-1.t\.json$/);
    const body = JSON.parse(await Deno.readTextFile(file));
    assert.equal(body.entries["pair/n=100"].fastest, "fast");

    const client2 = new FakeTuneClient();
    const second = new Tuner(client2, { ...quiet, cacheDir, name: "t" });
    await second.execute(twoWay(client2), 100);
    assert.equal(second.stats.runs, 0);
    assert.deepEqual(client2.calls, ["fast"]);
  } finally {
    await Deno.remove(cacheDir, { recursive: true });
  }
});

Deno.test("two caches of one process writing one file at once keep both results", async () => {
  const cacheDir = await tempDir();
  try {
    const file = join(cacheDir, "t.json");
    const [a, b] = [await TuneCache.open(file), await TuneCache.open(file)];
    for (let round = 0; round < 5; round++) {
      await Promise.all([
        a.set(`a/${round}`, { checksum: "c", fastest: "x", results: [] }),
        b.set(`b/${round}`, { checksum: "c", fastest: "y", results: [] }),
      ]);
    }
    const entries = JSON.parse(await Deno.readTextFile(file)).entries;
    assert.equal(Object.keys(entries).length, 10, Object.keys(entries).join(" "));
    // Two tuners at once (one per key) leave both picks for the next run.
    const client = new FakeTuneClient();
    const options = { ...quiet, cacheDir, name: "t", sampling: { minSampleMs: 0 } };
    const set = twoWay(client);
    await Promise.all([
      new Tuner(client, options).tune(set, 1),
      new Tuner(client, options).tune(set, 2),
    ]);
    const next = new Tuner(client, options);
    assert.ok((await next.tune(set, 1)).fromCache && (await next.tune(set, 2)).fromCache);
  } finally {
    await Deno.remove(cacheDir, { recursive: true });
  }
});

Deno.test("caches of one file under several spellings of its path keep every result (a lock file)", async () => {
  // What the process-local queue of writes cannot see, as another process's writes: each write's
  // read, merge and rename used to interleave with the others', and the last rename dropped the
  // entries the others had just written.
  const cacheDir = await tempDir();
  try {
    const spellings = [
      cacheDir,
      `./${cacheDir}`,
      `${TMP}/../${cacheDir}`,
      `./${TMP}/./${cacheDir.slice(TMP.length + 1)}`,
    ];
    const caches = await Promise.all(spellings.map((dir) => TuneCache.open(`${dir}/t.json`)));
    await Promise.all(
      caches.map((cache, i) => cache.set(`c${i}`, { checksum: "c", fastest: "x", results: [] })),
    );
    const entries = JSON.parse(await Deno.readTextFile(join(cacheDir, "t.json"))).entries;
    assert.equal(Object.keys(entries).length, caches.length, Object.keys(entries).join(" "));
    assert.deepEqual(caches.flatMap((cache) => cache.warnings), []);
    assert.deepEqual(
      [...Deno.readDirSync(cacheDir)].map((e) => e.name),
      ["t.json"],
      "no lock left",
    );
  } finally {
    await Deno.remove(cacheDir, { recursive: true });
  }
});

Deno.test("a write waits for the lock another writer holds, and takes over a stale one", async () => {
  const cacheDir = await tempDir();
  try {
    const file = join(cacheDir, "t.json");
    const cache = await TuneCache.open(file);
    await Deno.writeTextFile(`${file}.lock`, "");
    let written = false;
    const write = cache.set("a", { checksum: "c", fastest: "x", results: [] })
      .then(() => written = true);
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(written, false, "waits while the lock is held");
    await Deno.remove(`${file}.lock`);
    await write;
    assert.deepEqual(Object.keys(JSON.parse(await Deno.readTextFile(file)).entries), ["a"]);
    // A lock left by a writer that died (older than LOCK_STALE_MS) does not stop the cache.
    await Deno.writeTextFile(`${file}.lock`, "");
    const old = new Date(Date.now() - LOCK_STALE_MS - 1000);
    await Deno.utime(`${file}.lock`, old, old);
    await cache.set("b", { checksum: "c", fastest: "y", results: [] });
    assert.deepEqual(Object.keys(JSON.parse(await Deno.readTextFile(file)).entries), ["a", "b"]);
    assert.deepEqual([...Deno.readDirSync(cacheDir)].map((e) => e.name), ["t.json"]);
    assert.deepEqual(cache.warnings, []);
    // A lock that cannot be removed (a directory with something in it): the write gives up,
    // the cache warns and stays in memory, nothing spins forever.
    await Deno.mkdir(`${file}.lock/x`, { recursive: true });
    await Deno.utime(`${file}.lock`, old, old);
    await cache.set("c", { checksum: "c", fastest: "z", results: [] });
    assert.equal(cache.store, "memory");
    assert.match(cache.warnings.join("\n"), /cannot take the lock/);
  } finally {
    await Deno.remove(cacheDir, { recursive: true });
  }
});

Deno.test("a changed candidate list (checksum) re-tunes; persistence can be turned off", async () => {
  const cacheDir = await tempDir();
  try {
    const client = new FakeTuneClient();
    await new Tuner(client, { ...quiet, cacheDir }).execute(twoWay(client), 7);
    const changed = new Tuner(client, { ...quiet, cacheDir });
    await changed.execute(twoWay(client, ["slow", "fast", "new"]), 7);
    assert.ok(changed.stats.runs > 0, "entries of another checksum are ignored");

    const off = new Tuner(client, { ...quiet, cacheDir: join(cacheDir, "off"), persistent: false });
    await off.execute(twoWay(client), 7);
    assert.equal(off.cacheFile, undefined);
    await assert.rejects(Deno.stat(join(cacheDir, "off")), Deno.errors.NotFound);
  } finally {
    await Deno.remove(cacheDir, { recursive: true });
  }
});

Deno.test("a corrupt cache file is reported once, ignored, then replaced by a valid one", async () => {
  const cacheDir = await tempDir();
  try {
    const client = new FakeTuneClient();
    const tuner = new Tuner(client, { ...quiet, cacheDir });
    await Deno.mkdir(join(tuner.cacheFile!, ".."), { recursive: true });
    await Deno.writeTextFile(tuner.cacheFile!, '{"format": 1, "entries": {"pair/n=1": {"chec');
    await tuner.execute(twoWay(client), 1);
    await tuner.execute(twoWay(client), 2);
    const cache = await tuner.cache();
    assert.deepEqual(cache.warnings.length, 1);
    assert.match(cache.warnings[0], /corrupt and was ignored/);
    const body = JSON.parse(await Deno.readTextFile(tuner.cacheFile!));
    assert.deepEqual(Object.keys(body.entries).sort(), ["pair/n=1", "pair/n=2"]);
  } finally {
    await Deno.remove(cacheDir, { recursive: true });
  }
});

Deno.test("without write permission the tuner keeps an in-memory cache and warns once", async () => {
  // tests/fixtures is readable but not writable under the test task's permissions.
  const client = new FakeTuneClient();
  const tuner = new Tuner(client, { ...quiet, cacheDir: "tests/fixtures/tune_readonly" });
  await tuner.execute(twoWay(client), 3);
  await tuner.execute(twoWay(client), 4);
  const runs = tuner.stats.runs;
  await tuner.execute(twoWay(client), 3);
  assert.equal(tuner.stats.runs, runs, "served from memory");
  const cache = await tuner.cache();
  assert.equal(cache.warnings.length, 1);
  assert.match(cache.warnings[0], /No write permission/);
  assert.equal(cache.file, undefined);
  assert.equal(tuner.cacheFile, undefined, "not persistent: no cache file to speak of");
  const outcome = await tuner.tune(twoWay(client), 5);
  assert.equal(outcome.persisted, false, "the result says it was not persisted");
});

Deno.test("a cache that cannot persist tells the user once without logging set up", async () => {
  const printed: unknown[][] = [];
  const warn = console.warn;
  console.warn = (...args: unknown[]) => void printed.push(args);
  try {
    for (const name of ["first", "second"]) { // two tuners, one message
      const client = new FakeTuneClient();
      const cacheDir = "tests/fixtures/tune_readonly/visible"; // a message no other test printed
      const tuner = new Tuner(client, { ...quiet, name, cacheDir });
      assert.equal(tuner.cacheFile, undefined, "known before anything is opened");
      await tuner.execute(twoWay(client), 3);
    }
  } finally {
    console.warn = warn;
  }
  const notes = printed.filter(([text]) =>
    /No write permission for .*tune_readonly/.test(`${text}`)
  );
  assert.equal(notes.length, 1, JSON.stringify(printed));
});

Deno.test("without read permission (or a path that cannot be a directory) it stays in memory", async () => {
  const noRead = await TuneCache.open("/nonexistent-root-dir/gpucompute/t.json");
  assert.match(noRead.warnings[0], /No read permission/);
  await noRead.set("k", { checksum: "c", fastest: "a", results: [] });
  assert.equal(noRead.get("k", "c")?.fastest, "a");

  const dir = await tempDir();
  try {
    await Deno.writeTextFile(join(dir, "file"), "not a directory");
    const blocked = await TuneCache.open(join(dir, "file", "t.json"));
    await blocked.set("k", { checksum: "c", fastest: "a", results: [] });
    await blocked.set("k2", { checksum: "c", fastest: "b", results: [] });
    const writes = blocked.warnings.filter((w) => /Cannot write the tune cache/.test(w));
    assert.equal(writes.length, 1, blocked.warnings.join("\n"));
    assert.equal(blocked.get("k2", "c")?.fastest, "b");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("two processes writing one cache file concurrently leave a valid file", async () => {
  const dir = await tempDir();
  try {
    const file = join(dir, "shared.json");
    const writer = (id: number) =>
      new Deno.Command("deno", {
        args: [
          "run",
          `--allow-read=${TMP}`,
          `--allow-write=${TMP}`,
          "tests/fixtures/tune_cache_writer.ts",
          file,
          String(id),
          "40",
        ],
      }).output();
    // Meanwhile, read the file as often as possible: a reader must never see a torn file.
    let done = false;
    let [reads, torn] = [0, 0];
    const reader = (async () => {
      while (!done) {
        const text = await Deno.readTextFile(file).catch(() => undefined);
        if (text !== undefined) {
          reads++;
          try {
            JSON.parse(text);
          } catch {
            torn++;
          }
        }
        await new Promise((resolve) => setTimeout(resolve, 0));
      }
    })();
    const outputs = await Promise.all([writer(1), writer(2)]);
    done = true;
    await reader;
    assert.ok(reads > 0);
    assert.equal(torn, 0, `${torn} of ${reads} reads saw a torn file`);
    for (const out of outputs) {
      assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    }
    const body = JSON.parse(await Deno.readTextFile(file)); // parses: never torn
    const keys = Object.keys(body.entries);
    assert.ok(keys.length >= 40, `${keys.length} entries`); // at least the last writer's 40
    for (const entry of Object.values(body.entries) as { results: unknown[] }[]) {
      assert.equal(entry.results.length, 20);
    }
    const leftovers = [...Deno.readDirSync(dir)].filter((e) => e.name.endsWith(".tmp"));
    assert.deepEqual(leftovers, []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("GPUCOMPUTE_CACHE_DIR overrides the cacheDir option; the version matches deno.json", async () => {
  const { VERSION } = await import("../runtime/tune/_version.ts");
  const config = await import("../deno.json", { with: { type: "json" } });
  assert.equal(VERSION, config.default.version);
  const client = new FakeTuneClient();
  const before = Deno.env.get("GPUCOMPUTE_CACHE_DIR");
  Deno.env.set("GPUCOMPUTE_CACHE_DIR", join(TMP, "from-env"));
  try {
    const tuner = new Tuner(client, { cacheDir: join(TMP, "from-option") });
    assert.ok(tuner.cacheFile!.startsWith(join(TMP, "from-env")), tuner.cacheFile);
  } finally {
    if (before === undefined) Deno.env.delete("GPUCOMPUTE_CACHE_DIR");
    else Deno.env.set("GPUCOMPUTE_CACHE_DIR", before);
  }
  const plain = new Tuner(client, { cacheDir: join(TMP, "from-option") });
  assert.ok(plain.cacheFile!.startsWith(join(TMP, "from-option")), plain.cacheFile);
});

Deno.test("the store is a file on Deno; IndexedDB where there is none stays in memory", async () => {
  const dir = await tempDir();
  try {
    const file = await TuneCache.open(join(dir, "t.json"));
    assert.equal(file.store, "file");
    assert.equal(file.location, join(dir, "t.json"));
    const idb = await TuneCache.open("v0/dev/t", { store: "indexeddb" });
    assert.equal(idb.store, "memory");
    assert.equal(idb.location, undefined);
    assert.match(idb.warnings[0], /IndexedDB is not available here/);
    await idb.set("k", { checksum: "c", fastest: "a", results: [] });
    assert.equal(idb.get("k", "c")?.fastest, "a");
    await assert.rejects(TuneCache.open("x", { store: "disk" as "file" }), RangeError);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a cache file's directory is found with either separator (a Windows path has no '/')", () => {
  assert.equal(
    parentDir("C:\\Users\\me\\AppData\\Local\\gpucompute\\v1\\webgpu-x\\default.json"),
    "C:\\Users\\me\\AppData\\Local\\gpucompute\\v1\\webgpu-x",
  );
  assert.equal(parentDir("/home/me/.cache/gpucompute/default.json"), "/home/me/.cache/gpucompute");
  assert.equal(parentDir("/default.json"), "/");
  assert.equal(parentDir("default.json"), ".");
});
