/**
 * An MCP `tools/call` answer as a Zuno tool result (issue 30 item 3, TD9):
 * text blocks joined; `structuredContent` as pretty JSON when there is no
 * text; images, audio and embedded resource blobs stored as artifacts and
 * referenced by path; embedded text resources inline up to
 * {@link INLINE_RESOURCE_CHARS} (longer ones become artifacts too);
 * resource links listed by URI. A server-side error (`isError`) is an
 * `mcp_call_failed` error result with the server's own text. The shared
 * wrapper then applies the TD9 caps to the whole output.
 */
import type { ToolResult } from '../../core/tools/types.js';
import { writeBinaryArtifact } from '../tools/binary-artifact.js';
import type { McpCallAnswer } from './types.js';

/** Longest embedded text resource shown inline, in characters. */
export const INLINE_RESOURCE_CHARS = 16_384;

/** Where a call's artifacts go. */
export interface ResultContext {
  workspace: string;
  sessionId?: string;
  callId?: string;
}

type Block = Record<string, unknown>;

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/**
 * Converts one answer (see module doc).
 * @returns output text, `isError` + `mcp_call_failed` when the server flagged an error, and `data.artifacts`
 *   (absolute paths of the parts kept as files).
 * @throws only when an artifact cannot be written.
 */
export async function mcpResult(answer: McpCallAnswer, at: ResultContext): Promise<ToolResult> {
  const lines: string[] = [];
  const artifacts: string[] = [];
  const keep = async (mime: string | undefined, bytes: Buffer): Promise<string> => {
    const path = await writeBinaryArtifact(at, { prefix: 'mcp', part: artifacts.length + 1 }, mime, bytes);
    artifacts.push(path);
    return path;
  };
  for (const block of answer.content) lines.push(await blockText(block, keep));
  const hasText = answer.content.some((b) => b.type === 'text');
  if (!hasText && answer.structuredContent) lines.unshift(JSON.stringify(answer.structuredContent, null, 2));
  const output = lines.join('\n') || '(the MCP tool returned no content)';
  const data = artifacts.length > 0 ? { artifacts } : undefined;
  if (answer.isError) return { output, isError: true, errorCode: 'mcp_call_failed', ...(data ? { data } : {}) };
  return { output, isError: false, ...(data ? { data } : {}) };
}

/** One content block as text (binary parts kept through `keep`). */
async function blockText(block: Block, keep: (mime: string | undefined, bytes: Buffer) => Promise<string>) {
  const mime = str(block.mimeType);
  switch (block.type) {
    case 'text':
      return str(block.text) ?? '';
    case 'image':
    case 'audio': {
      const bytes = Buffer.from(str(block.data) ?? '', 'base64');
      const path = await keep(mime, bytes);
      return `[${block.type} ${mime ?? 'unknown type'}, ${bytes.length} bytes, stored as artifact ${path}]`;
    }
    case 'resource':
      return resourceText((block.resource ?? {}) as Block, keep);
    case 'resource_link': {
      const title = str(block.title) ?? str(block.name);
      return `[resource link ${str(block.uri) ?? '?'}${title ? ` (${title})` : ''}${mime ? `, ${mime}` : ''}]`;
    }
    default:
      return `[unsupported MCP content of type ${JSON.stringify(block.type)}]`;
  }
}

/** An embedded resource: its text inline when short, else (or a blob) kept as an artifact. */
async function resourceText(r: Block, keep: (mime: string | undefined, bytes: Buffer) => Promise<string>) {
  const uri = str(r.uri) ?? '?';
  const mime = str(r.mimeType);
  const text = str(r.text);
  if (text !== undefined && text.length <= INLINE_RESOURCE_CHARS) return `[resource ${uri}]\n${text}`;
  const bytes = text !== undefined ? Buffer.from(text, 'utf8') : Buffer.from(str(r.blob) ?? '', 'base64');
  const path = await keep(mime ?? (text !== undefined ? 'text/plain' : undefined), bytes);
  return `[resource ${uri}${mime ? `, ${mime}` : ''}, ${bytes.length} bytes, stored as artifact ${path}]`;
}
