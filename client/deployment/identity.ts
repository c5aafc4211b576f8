import { createHash } from 'node:crypto';
import { readFileSync, realpathSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';

/** This machine as a host binding sees it (issue 33): a stable id, its hostname, and this process's home. */
export interface MachineIdentity {
  /** sha256 (first 16 hex) of `/etc/machine-id` (else `/var/lib/dbus/machine-id`, else the hostname). */
  machine: string;
  machineName: string;
  /** The Zuno home's real path (symlinks resolved). */
  home: string;
}

/**
 * The machine id a host id is bound to: the OS's machine id (systemd's
 * `/etc/machine-id`, stable across reboots, distinct per machine and per
 * cloned image that regenerates it), hashed so the raw id never leaves the
 * machine; the hostname where there is none. With the home's path it names
 * one Zuno home on one machine — where a host's workspaces and keys are.
 */
export function machineIdentity(home: string): MachineIdentity {
  let raw: string | null = null;
  for (const file of ['/etc/machine-id', '/var/lib/dbus/machine-id']) {
    try {
      raw = readFileSync(file, 'utf8').trim() || null;
    } catch {
      raw = null;
    }
    if (raw) break;
  }
  const machineName = hostname();
  let real = home;
  try {
    real = realpathSync(home);
  } catch {
    real = home;
  }
  return {
    machine: createHash('sha256')
      .update(raw ?? `hostname:${machineName}`)
      .digest('hex')
      .slice(0, 16),
    machineName,
    home: real,
  };
}

/**
 * The identity of a projection database, without credentials (issue 33):
 * `postgresql://host:port/database` (port defaulted to 5432, `?schema=` kept
 * when set), or `sqlite://<hostname><home>/zuno.db` for the home's own SQLite
 * file — a file only this machine sees, so it never equals another host's.
 * An unparsable URL is named as such (never echoed: it may hold a password).
 */
export function projectionIdentity(databaseUrl: string | undefined, home: string): string {
  if (!databaseUrl) return `sqlite://${hostname()}${join(home, 'zuno.db')}`;
  try {
    const u = new URL(databaseUrl);
    const schema = u.searchParams.get('schema');
    const port = u.port || '5432';
    return `${u.protocol}//${u.hostname}:${port}${u.pathname}${schema ? `?schema=${schema}` : ''}`;
  } catch {
    return 'postgresql (unparsable URL)';
  }
}
