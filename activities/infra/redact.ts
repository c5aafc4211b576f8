/**
 * Secret redaction (PR6), shared by the provider error model
 * (activities/providers/errors.ts) and tool progress lines
 * (activities/tools/progress.ts). Pure string work, no I/O.
 */
/**
 * Redact secrets from a text (PR6): every occurrence of each given secret
 * (≥ 4 chars), `Authorization`/`Bearer` credentials, `sk-…`-style keys, URL
 * userinfo and URL query strings (`http://h/p?key=…` → `http://h/p?[redacted]`),
 * and `api_key=`/`token=`-style pairs. Control characters become spaces.
 */
export function redact(text: string, secrets: readonly string[] = []): string {
  let s = text;
  for (const secret of secrets) {
    if (secret.length >= 4) s = s.split(secret).join('[redacted]');
  }
  s = s
    .replace(/(authorization\s*[:=]\s*)("?)[^\s",}]+(?:\s+[^\s",}]+)?/gi, '$1$2[redacted]')
    .replace(/\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{4,}/gi, '$1 [redacted]')
    .replace(/\b(sk|pk|rk|sess|key)-[A-Za-z0-9_-]{8,}/g, '$1-[redacted]')
    .replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/@?#]*@/gi, '$1[redacted]@')
    .replace(/\b([a-z][a-z0-9+.-]*:\/\/[^\s?#"']*)\?[^\s#"']*/gi, '$1?[redacted]')
    .replace(/\b((?:api[_-]?key|access[_-]?token|token|secret|password)\s*[=:]\s*)("?)[^\s&",}]+/gi, '$1$2[redacted]')
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f]+/g, ' ');
  return s;
}
