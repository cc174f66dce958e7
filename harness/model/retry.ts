// The SDK's error classes only (the same classes `openai` exports): loading them does not load the SDK.
import { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai/core/error';
import { FetchRefused } from './refused.ts';

/** How one failed attempt is classified; retryable kinds are retried with backoff, others fail at once. */
export type FailureKind = 'rate_limit' | 'server' | 'timeout' | 'connection' | 'invalid_response' | 'client';

export function classifyFailure(err: unknown): {
  kind: FailureKind;
  status?: number;
  retryAfterMs?: number;
  message: string;
} {
  const message = err instanceof Error ? err.message.split('\n')[0]! : String(err);
  if (err instanceof APIConnectionTimeoutError) return { kind: 'timeout', message };
  if (err instanceof APIConnectionError) {
    // A response refused (for its size, a redirect not followed) is not worth asking for again.
    const refused = causes(err).find((c) => c instanceof FetchRefused);
    if (refused) return { kind: 'client', message: refused.message };
    return { kind: 'connection', message: describe(err) };
  }
  if (err instanceof APIError) {
    const status = err.status;
    const retryAfterMs = parseRetryAfter(err.headers?.get?.('retry-after') ?? undefined);
    if (status === 429) return { kind: 'rate_limit', status, retryAfterMs, message };
    if (status === 408) return { kind: 'timeout', status, message };
    if (status !== undefined && status >= 500) return { kind: 'server', status, retryAfterMs, message };
    return { kind: 'client', status, message };
  }
  // A body that is not valid JSON (a truncated response) surfaces as a SyntaxError from the SDK.
  if (err instanceof SyntaxError) return { kind: 'invalid_response', message };
  if (err instanceof Error && (err.name === 'AbortError' || /timed? ?out/i.test(err.message)))
    return { kind: 'timeout', message };
  if (err instanceof Error && /ECONNRESET|socket hang up|ECONNREFUSED|EPIPE|terminated/i.test(err.message)) {
    return { kind: 'connection', message };
  }
  return { kind: 'invalid_response', message };
}

export function isRetryable(kind: FailureKind): boolean {
  return kind !== 'client';
}

function parseRetryAfter(v: string | undefined): number | undefined {
  if (!v) return undefined;
  const secs = Number(v);
  if (Number.isFinite(secs)) return Math.max(0, secs * 1000);
  const at = Date.parse(v);
  return Number.isFinite(at) ? Math.max(0, at - Date.now()) : undefined;
}

/** Exponential backoff with full jitter, capped; honours Retry-After when the server sends one. */
export function backoffMs(
  attempt: number,
  opts: { baseMs: number; maxMs: number; retryAfterMs?: number; random?: () => number },
): number {
  if (opts.retryAfterMs !== undefined) return Math.min(opts.retryAfterMs, opts.maxMs);
  const ceiling = Math.min(opts.maxMs, opts.baseMs * 2 ** attempt);
  return Math.round((opts.random ?? Math.random)() * ceiling);
}

function causes(err: unknown): unknown[] {
  const out: unknown[] = [];
  for (let c = (err as { cause?: unknown }).cause, i = 0; c && i < 5; c = (c as { cause?: unknown }).cause, i++)
    out.push(c);
  return out;
}

/** One line: the HTTP status and the server's message, or the network cause (ECONNREFUSED, ENOTFOUND, timeout). */
export function describe(err: unknown): string {
  if (err instanceof APIConnectionError) {
    let c: unknown = err.cause;
    const parts: string[] = [];
    for (let i = 0; c && i < 4; i++) {
      const e = c as { code?: string; message?: string; cause?: unknown };
      if (e.code) parts.push(e.code);
      else if (e.message && !/fetch failed/.test(e.message)) parts.push(e.message);
      c = e.cause;
    }
    return `${err.message.replace(/\.$/, '')}${parts.length ? ` (${[...new Set(parts)].join(', ')})` : ''}`;
  }
  if (err instanceof APIError) return err.message;
  return err instanceof Error ? err.message : String(err);
}
