/**
 * The mutation lock (FT3: "all files are pre-checked under one mutation lock"):
 * apply_patch holds it from the first pre-check read to the last publishing
 * rename, so two mutations of one workspace in this process never interleave.
 * It is an in-process lock; it does not stop other processes (a shell command)
 * from writing, which is why publishing re-checks the files it read.
 */

/** Runs critical sections one at a time, in arrival order. */
export interface MutationLock {
  /** Runs `fn` once every earlier section has settled; resolves or rejects with `fn`'s outcome. */
  runExclusive<T>(fn: () => Promise<T>): Promise<T>;
}

/** A new FIFO mutex (a promise chain); a rejected section does not poison it. */
export function createMutationLock(): MutationLock {
  let tail: Promise<unknown> = Promise.resolve();
  return {
    runExclusive<T>(fn: () => Promise<T>): Promise<T> {
      const run = tail.then(fn, fn);
      tail = run.catch(() => undefined);
      return run;
    },
  };
}

const byWorkspace = new Map<string, MutationLock>();

/** The process-wide lock of one workspace (keyed by its real root path); the default of `applyPatch`. */
export function workspaceMutationLock(realRoot: string): MutationLock {
  let lock = byWorkspace.get(realRoot);
  if (!lock) {
    lock = createMutationLock();
    byWorkspace.set(realRoot, lock);
  }
  return lock;
}
