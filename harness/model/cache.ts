import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { z } from 'zod';
import { sha256, stableStringify } from '../core/hash.ts';
import { writeFileAtomic } from '../core/jsonl.ts';

export type CacheMode = 'off' | 'record' | 'replay';

/**
 * Request cache: one file per request, keyed by the full request body plus the trial index, so a run can be
 * re-played without the endpoint (`replay`) after it was recorded (`record`). Replay of an unknown request is an
 * error, not a silent call.
 */
export class RequestCache {
  constructor(
    readonly mode: CacheMode,
    readonly dir: string,
  ) {}

  key(kind: 'chat' | 'completion', body: unknown, trial: number): string {
    return sha256(stableStringify({ kind, body, trial }));
  }

  private path(key: string): string {
    return join(this.dir, key.slice(0, 2), `${key}.json`);
  }

  get<T>(key: string, schema: z.ZodType<T>): T | undefined {
    if (this.mode !== 'replay') return undefined;
    const p = this.path(key);
    if (!existsSync(p)) return undefined;
    const r = schema.safeParse(JSON.parse(readFileSync(p, 'utf8')).response);
    if (!r.success) throw new Error(`request cache: ${p}: not a valid cached response (${r.error.issues[0]?.message})`);
    return r.data;
  }

  put(key: string, request: unknown, response: unknown): void {
    if (this.mode !== 'record') return;
    writeFileAtomic(this.path(key), JSON.stringify({ request, response }, null, 1));
  }
}
