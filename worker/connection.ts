import { Client, Connection } from '@temporalio/client';
import proto from '@temporalio/proto';
import { ZunoError } from '../core/errors.js';

// @temporalio/proto is CommonJS: take the namespace from its default export (works under Node ESM and vitest).
const { temporal } = proto;
type IndexedValueType = proto.temporal.api.enums.v1.IndexedValueType;

/** Where to reach Temporal: an address + namespace. */
export interface TemporalTarget {
  address: string;
  namespace: string;
  connectTimeoutMs: number;
}

/**
 * Connects a Temporal client and proves the server answers (a health check
 * bounded by `connectTimeoutMs`), so an unreachable address fails within
 * seconds instead of hanging.
 * @throws ZunoError `temporal_unreachable` naming the address and the cause.
 */
export async function connectClient(target: TemporalTarget): Promise<{ connection: Connection; client: Client }> {
  let connection: Connection | undefined;
  try {
    connection = await Connection.connect({
      address: target.address,
      connectTimeout: target.connectTimeoutMs,
    });
    await connection.withDeadline(Date.now() + target.connectTimeoutMs, () =>
      connection!.workflowService.getSystemInfo({}),
    );
  } catch (err) {
    await connection?.close().catch(() => undefined);
    throw new ZunoError(
      'temporal_unreachable',
      `cannot reach the Temporal server at ${target.address} within ${target.connectTimeoutMs} ms ` +
        `(${firstLine(err)}). Check TEMPORAL_ADDRESS / temporal.yaml server.address, or use server.mode: dev.`,
      { address: target.address },
    );
  }
  return { connection, client: new Client({ connection, namespace: target.namespace }) };
}

/** Temporal's indexed value type of each search attribute type name temporal.yaml may use. */
export const INDEXED: Record<string, IndexedValueType> = {
  Keyword: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
  Text: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_TEXT,
  Int: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_INT,
  Double: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_DOUBLE,
  Bool: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_BOOL,
  Datetime: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_DATETIME,
  KeywordList: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD_LIST,
};

/**
 * Registers the custom search attributes Zuno needs (temporal.yaml
 * `searchAttributes`) that the namespace lacks. Existing ones are left alone.
 * Returns the names it added.
 * @throws ZunoError `search_attributes_failed` when the server refuses (e.g. no permission on a shared cluster).
 */
export async function ensureSearchAttributes(
  connection: Connection,
  namespace: string,
  wanted: Record<string, string>,
): Promise<string[]> {
  try {
    const existing = await connection.operatorService.listSearchAttributes({ namespace });
    const have = new Set(Object.keys(existing.customAttributes ?? {}));
    const missing = Object.entries(wanted).filter(([name]) => !have.has(name));
    if (missing.length === 0) return [];
    const searchAttributes: Record<string, IndexedValueType> = {};
    for (const [name, type] of missing) searchAttributes[name] = INDEXED[type]!;
    await connection.operatorService.addSearchAttributes({ namespace, searchAttributes });
    return missing.map(([name]) => name);
  } catch (err) {
    throw new ZunoError(
      'search_attributes_failed',
      `could not register search attributes ${Object.keys(wanted).join(', ')} in namespace ${namespace}: ${firstLine(err)}`,
    );
  }
}

function firstLine(err: unknown): string {
  return String((err as Error)?.message ?? err)
    .split('\n')[0]!
    .slice(0, 300);
}
