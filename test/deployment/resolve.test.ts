import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveDeployment, resolveHost } from '../../client/deployment/resolve.js';
import { projectionIdentity } from '../../client/deployment/identity.js';
import { errorOf } from '../helpers/config.js';
import { tempDir } from '../cli/helpers.js';

/** Issue 33: one deployment file per home, extending a shared one; the environment may not contradict it. */
const saved = { ...process.env };
afterEach(() => {
  for (const k of [
    'ZUNO_DEPLOYMENT',
    'ZUNO_HOST_ID',
    'TEMPORAL_ADDRESS',
    'TEMPORAL_NAMESPACE',
    'DATABASE_URL',
    'ZUNO_DB_PW',
  ])
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
});
for (const k of ['ZUNO_DEPLOYMENT', 'ZUNO_HOST_ID', 'TEMPORAL_ADDRESS', 'TEMPORAL_NAMESPACE', 'DATABASE_URL'])
  delete process.env[k];

function setup(shared: string | null, own: string | null): { home: string; temporalYaml: string } {
  const root = tempDir('zuno-dep-');
  const home = join(root, 'home');
  mkdirSync(home);
  if (shared !== null) writeFileSync(join(root, 'shared.yaml'), shared);
  if (own !== null) writeFileSync(join(home, 'deployment.yaml'), own);
  const temporalYaml = join(home, 'temporal.yaml');
  writeFileSync(temporalYaml, 'server:\n  namespace: from-yaml\ntaskQueue: yaml-queue\n');
  return { home, temporalYaml };
}

describe('resolveDeployment', () => {
  it('without a deployment file: temporal.yaml and the defaults, each with its source', () => {
    const paths = setup(null, null);
    const d = resolveDeployment(paths);
    expect(d.file).toBeNull();
    expect(d.address).toBeNull();
    expect(d.namespace).toEqual({ value: 'from-yaml', source: `temporal.yaml ${paths.temporalYaml}` });
    expect(d.taskQueue.value).toBe('yaml-queue');
    expect(d.projection).toMatchObject({ value: undefined, source: 'default' });
    expect(d.projection.id).toMatch(new RegExp(`^sqlite://.*${paths.home}/zuno\\.db$`));
    expect(d.host.source).toBe('the hostname');
  });

  it('the home file extends the shared one; values carry the file that set them; ${NAME} expands', () => {
    process.env.ZUNO_DB_PW = 'p@ss';
    const paths = setup(
      'name: team\ntemporal:\n  address: t.example:7233\n  taskQueue: team-q\nprojection: postgresql://zuno:${ZUNO_DB_PW}@db.example/zuno\n',
      'extends: ../shared.yaml\nhost: host-a\n',
    );
    const d = resolveDeployment(paths);
    const shared = join(paths.home, '..', 'shared.yaml');
    expect(d.address).toEqual({ value: 't.example:7233', source: shared });
    expect(d.cfg.server).toMatchObject({ mode: 'external', address: 't.example:7233', namespace: 'from-yaml' });
    expect(d.taskQueue).toEqual({ value: 'team-q', source: shared });
    expect(d.projection.value).toBe('postgresql://zuno:p%40ss@db.example/zuno');
    expect(d.projection.id).toBe('postgresql://db.example:5432/zuno');
    expect(d.host).toEqual({ value: 'host-a', source: join(paths.home, 'deployment.yaml') });
  });

  it('an environment variable that agrees is fine; one that contradicts the file is refused, naming both', () => {
    const paths = setup(
      'temporal:\n  address: t.example:7233\nprojection: postgresql://u:pw1@db.example:5432/zuno\n',
      'extends: ../shared.yaml\nhost: host-a\n',
    );
    process.env.DATABASE_URL = 'postgresql://other:pw2@db.example/zuno';
    process.env.ZUNO_HOST_ID = 'host-a';
    expect(resolveDeployment(paths).projection.source).toBe('env DATABASE_URL');
    process.env.TEMPORAL_ADDRESS = 'elsewhere:7233';
    const e = errorOf(() => resolveDeployment(paths));
    expect(e.code).toBe('deployment_conflict');
    expect(e.message).toContain('TEMPORAL_ADDRESS=elsewhere:7233 in this environment');
    expect(e.message).toContain('says t.example:7233');
    delete process.env.TEMPORAL_ADDRESS;
    process.env.DATABASE_URL = 'postgresql://u:secret@db.example/other';
    const p = errorOf(() => resolveDeployment(paths));
    expect(p.message).toContain('postgresql://db.example:5432/other');
    expect(p.message).not.toContain('secret');
    process.env.ZUNO_HOST_ID = 'host-b';
    expect(errorOf(() => resolveHost(paths.home)).code).toBe('deployment_conflict');
  });

  it('refuses a key set in both files, a host in the shared file, an unset ${NAME}, unknown keys', () => {
    const both = setup(
      'temporal:\n  address: t:1\nprojection: postgresql://a/b\n',
      'extends: ../shared.yaml\nprojection: postgresql://a/c\n',
    );
    expect(errorOf(() => resolveDeployment(both)).message).toMatch(
      /projection is set in both .*shared\.yaml and .*deployment\.yaml/,
    );
    const unset = setup(null, 'projection: postgresql://u:${ZUNO_NOT_SET_ANYWHERE}@db/x\n');
    expect(errorOf(() => resolveDeployment(unset)).message).toContain('${ZUNO_NOT_SET_ANYWHERE}');
    const unknown = setup(null, 'temporal:\n  adress: x:1\n');
    expect(errorOf(() => resolveDeployment(unknown)).message).toMatch(/adress/);
    const missing = setup(null, 'extends: ../nope.yaml\n');
    expect(errorOf(() => resolveDeployment(missing)).code).toBe('config_missing');
    process.env.ZUNO_HOST_ID = 'bad host!';
    expect(errorOf(() => resolveHost(both.home)).code).toBe('config_invalid');
  });

  it('an empty home file, a shared file missing its server or projection, or holding host or extends, are refused plainly', () => {
    const empty = setup(null, '# nothing yet\n');
    expect(errorOf(() => resolveDeployment(empty)).message).toMatch(/deployment\.yaml is empty: give it extends:/);
    const thin = setup('temporal:\n  address: t:1\n', 'extends: ../shared.yaml\nhost: host-a\n');
    expect(errorOf(() => resolveDeployment(thin)).message).toMatch(
      /shared\.yaml \(extended by .*\) sets no projection/,
    );
    const hostInShared = setup('host: host-a\nprojection: postgresql://a/b\n', 'extends: ../shared.yaml\n');
    expect(errorOf(() => resolveDeployment(hostInShared)).message).toContain(
      "host belongs in each host's own deployment.yaml, not in the shared file",
    );
    const chain = setup('extends: ./other.yaml\n', 'extends: ../shared.yaml\n');
    expect(errorOf(() => resolveDeployment(chain)).message).toContain('a shared deployment file cannot extend another');
    const missing = setup(null, 'extends: ../nope.yaml\n');
    expect(errorOf(() => resolveDeployment(missing)).message).toMatch(/nope\.yaml \(extended by .*deployment\.yaml\)/);
    const dots = setup(null, 'host: ..\n');
    expect(errorOf(() => resolveDeployment(dots)).code).toBe('config_invalid');
    process.env.ZUNO_HOST_ID = '.';
    expect(errorOf(() => resolveHost(setup(null, null).home)).message).toContain('not only dots');
  });

  it('a variable set but empty is a value (a password-less login)', () => {
    process.env.ZUNO_DB_PW = '';
    const paths = setup(null, 'temporal:\n  address: t:1\nprojection: postgresql://zuno:${ZUNO_DB_PW}@db/x\n');
    expect(resolveDeployment(paths).projection.value).toBe('postgresql://zuno:@db/x');
  });

  it('ZUNO_DEPLOYMENT names the file; an explicit file that does not exist is an error', () => {
    const paths = setup(null, null);
    process.env.ZUNO_DEPLOYMENT = join(paths.home, 'absent.yaml');
    expect(errorOf(() => resolveDeployment(paths)).code).toBe('config_missing');
  });

  it('projection identities carry no credentials and name the SQLite file with its machine', () => {
    expect(projectionIdentity('postgresql://u:pw@db:6543/zuno?schema=s1&sslmode=require', '/h')).toBe(
      'postgresql://db:6543/zuno?schema=s1',
    );
    expect(projectionIdentity('not a url', '/h')).toBe('postgresql (unparsable URL)');
    expect(projectionIdentity(undefined, '/h')).toMatch(/^sqlite:\/\/.+\/h\/zuno\.db$/);
  });
});
