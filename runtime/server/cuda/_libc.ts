/**
 * libc's POSIX semaphores for the blocking waits the device wakes (`queue/_wake.ts`), bound once
 * per process when the first CUDA driver is opened (a library loaded inside a test would trip
 * its resource sanitizer); `null` where they cannot be (another C library, or an `--allow-ffi`
 * scoped to the driver's path): those waits poll instead.
 *
 * @module
 */

const LIBC_SYMBOLS = {
  sem_init: { parameters: ["buffer", "i32", "u32"], result: "i32" },
  sem_trywait: { parameters: ["buffer"], result: "i32" },
  sem_timedwait: { parameters: ["buffer", "buffer"], result: "i32" },
  // The same wait on a thread of Deno's pool, for the overflow of the host waits (`queue/`).
  sem_timedwait_async: {
    name: "sem_timedwait",
    parameters: ["buffer", "buffer"],
    result: "i32",
    nonblocking: true,
  },
  sem_post: { parameters: ["buffer"], result: "i32" },
  dlsym: { parameters: ["pointer", "buffer"], result: "pointer" },
} as const satisfies Deno.ForeignLibraryInterface;

/** The bound semaphore calls and `sem_post`'s address. */
export interface Libc {
  readonly symbols: Deno.DynamicLibrary<typeof LIBC_SYMBOLS>["symbols"];
  /** `sem_post`'s address, the host function. */
  readonly semPost: Deno.PointerValue;
}

let libc: Libc | null | undefined;

/** libc's semaphores, once per process; `null` where they cannot be bound. */
export function openLibc(): Libc | null {
  if (libc !== undefined) return libc;
  libc = null;
  for (const name of ["libc.so.6", "libc.so"]) {
    try {
      const { symbols } = Deno.dlopen(name, LIBC_SYMBOLS);
      // RTLD_DEFAULT (a null handle on glibc and musl): the process's global symbols.
      const semPost = symbols.dlsym(null, new TextEncoder().encode("sem_post\0"));
      if (semPost !== null) return libc = { symbols, semPost };
    } catch { /* not this name, or no FFI permission for it */ }
  }
  return libc;
}
