import { readdirSync, readFileSync } from 'node:fs';

/** true when a process with this pid exists and is not a zombie (containers often leave orphans unreaped). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    // Field 3 of /proc/<pid>/stat is the state; `Z` is a zombie. Absent on non-Linux: trust kill(0).
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true;
  }
}

/**
 * The process's start time (`/proc/<pid>/stat` field 22, clock ticks since
 * boot) as a string, to tell a pid from a later process that reuses it; null
 * when unknown (no such process, or no /proc).
 */
export function processStartTicks(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start at field 3.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

/** true when this system exposes processes under /proc (Linux). */
export function procAvailable(): boolean {
  try {
    readFileSync('/proc/self/cmdline');
    return true;
  } catch {
    return false;
  }
}

/** The argument vector of a process (`/proc/<pid>/cmdline`), or null when unreadable or gone. */
export function processArgv(pid: number): string[] | null {
  try {
    const raw = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    if (raw === '') return null; // zombie or kernel thread
    return raw.replace(/\0$/, '').split('\0');
  } catch {
    return null;
  }
}

/** Pids of the live processes whose argument vector satisfies `match` (empty without /proc). */
export function findProcesses(match: (argv: string[]) => boolean): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const pids: number[] = [];
  for (const name of entries) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    const argv = processArgv(pid);
    if (argv && match(argv) && pidAlive(pid)) pids.push(pid);
  }
  return pids.sort((a, b) => a - b);
}
