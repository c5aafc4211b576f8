/**
 * Permission rules match `webfetch` calls by URL pattern (issue 31 item 2,
 * NW5; docs/web.md "Permission rules"): the subject is the URL as
 * `scheme://host[:port]/path` — lower-cased scheme and host, no default port,
 * no query or fragment — computed by the same `callSubject` modelStep runs,
 * from a rule written in zuno.json; webfetch is ReadOnly and gets no strict
 * ask.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { callSubject } from '../../activities/permission/subject.js';
import { grantWords } from '../../client/approval-words.js';
import { loadPermissionPolicy } from '../../client/zuno-config.js';
import { callEffect } from '../../core/permission/effect.js';
import { evaluatePermission } from '../../core/permission/evaluate.js';
import { shownSubject } from '../../core/permission/shown.js';
import type { PermissionPolicy, SessionGrant } from '../../core/permission/types.js';
import { webfetchDeclaration } from '../../core/tools/webfetch.js';

const workspace = mkdtempSync(join(tmpdir(), 'zuno-webfetch-perm-'));

/** The policy zuno.json `permission` gives. */
function policyOf(permission: unknown): PermissionPolicy {
  const dir = mkdtempSync(join(tmpdir(), 'zuno-webfetch-cfg-'));
  writeFileSync(join(dir, 'zuno.json'), JSON.stringify({ permission }));
  return loadPermissionPolicy(dir);
}

/** The gate's decision on `webfetch {url}`, its subject computed as modelStep computes it. */
async function decide(policy: PermissionPolicy, url: string, grants: SessionGrant[] = []) {
  const args = { url };
  const subject = await callSubject('webfetch', args, workspace);
  const shown = shownSubject('webfetch', args, subject);
  return evaluatePermission(
    policy,
    { tool: 'webfetch', effect: callEffect('webfetch', args), subject, text: shown.text },
    grants,
  );
}

const docsPolicy = () =>
  policyOf({
    rules: {
      webfetch: {
        '*': 'ask',
        'https://docs.example.com/*': 'allow',
        'https://docs.example.com/private/*': 'deny',
      },
    },
  });

describe('webfetch permission subjects: URL patterns', () => {
  it('the subject is the URL without its query, normalized by the URL parser', async () => {
    expect(await callSubject('webfetch', { url: 'HTTPS://Docs.Example.com:443/a b?key=SECRET#x' }, workspace)).toEqual({
      kind: 'url',
      url: 'https://docs.example.com/a%20b',
    });
    expect(await callSubject('webfetch', { url: 'http://h.test:8080?x=1' }, workspace)).toEqual({
      kind: 'url',
      url: 'http://h.test:8080/',
    });
    expect(await callSubject('webfetch', { url: 'file:///etc/passwd' }, workspace)).toEqual({ kind: 'none' });
  });

  it.each([
    ['https://docs.example.com/guide?key=1', 'allow', 'rule webfetch "https://docs.example.com/*" → allow'],
    ['https://DOCS.example.com:443/private/keys', 'deny', 'rule webfetch "https://docs.example.com/private/*" → deny'],
    ['https://docs.example.com.evil.test/x', 'ask', 'rule webfetch "*" → ask'],
    ['http://docs.example.com/guide', 'ask', 'rule webfetch "*" → ask'],
    ['https://docs.example.com:8443/guide', 'ask', 'rule webfetch "*" → ask'],
  ])('%s → %s (the last matching rule wins)', async (url, action, reason) => {
    const d = await decide(docsPolicy(), url);
    expect(d).toMatchObject({ action, reason });
  });

  it('the query is never matched: a pattern over it matches nothing', async () => {
    const policy = policyOf({ rules: [{ tool: 'webfetch', pattern: '*key=*', action: 'deny' }] });
    expect((await decide(policy, 'https://a.test/p?key=1')).action).toBe('allow');
    expect((await decide(policy, 'https://a.test/key=1')).action).toBe('deny');
  });

  it('an ask shows the URL without its query, and a session grant of it covers later calls of that URL', async () => {
    const policy = policyOf({ rules: { webfetch: 'ask' } });
    const subject = await callSubject('webfetch', { url: 'https://a.test/x?token=SECRET' }, workspace);
    const shown = shownSubject('webfetch', { url: 'https://a.test/x?token=SECRET' }, subject);
    expect(shown).toEqual({ kind: 'url', text: 'https://a.test/x', parts: ['https://a.test/x'] });
    const asked = await decide(policy, 'https://a.test/x?token=SECRET');
    expect(asked).toMatchObject({ action: 'ask', subjectText: 'https://a.test/x', grantPattern: 'https://a.test/x' });
    const grants: SessionGrant[] = [{ tool: 'webfetch', pattern: asked.grantPattern!, scope: 'call' }];
    expect((await decide(policy, 'https://a.test/x?token=OTHER', grants)).action).toBe('allow');
    expect((await decide(policy, 'https://a.test/y', grants)).action).toBe('ask');
    const row = { tool: 'webfetch', subjectText: shown.text, subjectKind: 'url' as const, subjectParts: shown.parts };
    expect(grantWords({ ...row, grantScope: 'call', grantPattern: asked.grantPattern! })).toBe(
      'webfetch calls of this URL (any query): https://a.test/x',
    );
  });

  it('NW5: no strict ask — webfetch is ReadOnly; only an explicit rule asks or denies', async () => {
    expect(callEffect('webfetch', { url: 'https://a.test/' })).toBe('ReadOnly');
    expect(await decide(policyOf({ mode: 'strict' }), 'https://a.test/')).toMatchObject({
      action: 'allow',
      reason: 'no rule for webfetch: allowed',
    });
    expect(
      (
        await decide(
          policyOf({ mode: 'strict', rules: { webfetch: { 'https://a.test/*': 'ask' } } }),
          'https://a.test/',
        )
      ).action,
    ).toBe('ask');
    expect((await decide(policyOf({ mode: 'allow_all', rules: { webfetch: 'deny' } }), 'https://a.test/')).action).toBe(
      'deny',
    );
  });

  it('the activity summary names the URL without its query', () => {
    expect(webfetchDeclaration.summarize({ url: 'https://a.test/p/q?key=SECRET', format: 'markdown' })).toBe(
      'webfetch: https://a.test/p/q',
    );
  });
});
