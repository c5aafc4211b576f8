/**
 * One HTTP exchange of the local provider server: answering JSON, waiting
 * without outliving the client or the server, and writing an SSE stream
 * (with a scripted delay between chunks).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { SurfaceCodec } from './surface.js';

/** Largest request body accepted (bytes); larger bodies get 413. */
export const MAX_REQUEST_BYTES = 32 * 1024 * 1024;

/** A model request being answered on one surface. */
export class Exchange {
  /** `#<n> POST <path>`, the start of every log line about this request. */
  readonly what: string;
  /** Aborted when the client goes away or the server closes. */
  readonly signal: AbortSignal;
  private chunkDelayMs = 0;
  private firstChunk = true;

  constructor(
    readonly codec: SurfaceCodec,
    readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    /** 1-based request number. */
    readonly n: number,
    /** The request id sent back (`req_local_<n>`). */
    readonly rid: string,
    path: string,
    life: AbortSignal,
    private readonly log: (line: string) => void,
  ) {
    this.what = `#${n} POST ${path}`;
    const closed = new AbortController();
    res.on('close', () => closed.abort());
    this.signal = AbortSignal.any([closed.signal, life]);
  }

  /** Sends a JSON body with `status` and the surface's request-id header. */
  answer(status: number, body: string, extra: Record<string, string> = {}): void {
    this.res.writeHead(status, {
      'content-type': 'application/json',
      [this.codec.requestIdHeader]: this.rid,
      ...extra,
    });
    this.res.end(body);
  }

  /** Answers an error in the surface's shape and logs `-> <status> <logText>`. */
  refuse(status: number, message: string, code: string | undefined, logText: string): void {
    this.answer(status, this.codec.errorBody(status, this.rid, message, code));
    this.logLine(`${status} ${logText}`);
  }

  /** Logs `#<n> POST <path> -> <outcome>`. */
  logLine(outcome: string): void {
    this.log(`${this.what} -> ${outcome}`);
  }

  /** Waits `ms`; false when the client went away or the server closed meanwhile. */
  async wait(ms: number): Promise<boolean> {
    try {
      await sleep(ms, undefined, { signal: this.signal });
      return true;
    } catch {
      return false;
    }
  }

  /** Starts a 200 SSE response; every chunk after the first waits `chunkDelayMs` first. */
  openStream(chunkDelayMs: number): void {
    this.chunkDelayMs = chunkDelayMs;
    this.res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      [this.codec.requestIdHeader]: this.rid,
    });
  }

  /** Writes one chunk of the stream; false when the exchange is over (the caller stops writing). */
  async write(text: string): Promise<boolean> {
    if (!this.firstChunk && this.chunkDelayMs > 0 && !(await this.wait(this.chunkDelayMs))) return false;
    this.firstChunk = false;
    if (this.res.destroyed || this.signal.aborted) return false;
    this.res.write(text);
    return true;
  }

  /** Ends the stream normally, or (`destroy`) drops the socket once the written bytes have left. */
  async end(destroy = false): Promise<void> {
    if (!destroy) {
      this.res.end();
      return;
    }
    await this.wait(20);
    this.res.socket?.destroy();
  }

  /** The request body as UTF-8; undefined when it exceeds {@link MAX_REQUEST_BYTES}. */
  async readBody(): Promise<string | undefined> {
    const parts: Buffer[] = [];
    let bytes = 0;
    for await (const chunk of this.req as AsyncIterable<Buffer>) {
      bytes += chunk.length;
      if (bytes > MAX_REQUEST_BYTES) {
        this.req.resume();
        return undefined;
      }
      parts.push(chunk);
    }
    return Buffer.concat(parts).toString('utf8');
  }
}
