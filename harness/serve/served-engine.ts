/**
 * A `toolgauge serve` as an engine for teacher-forced next-token distributions (the probe's quantization damage and
 * PA-Tool's local scorer): a run's test worker asks the server the run already holds for a file instead of loading
 * the file again in an engine of its own. Only a server that says it runs that file with the same settings is used
 * (the same file and settings give the same distributions). Replies are checked with zod; a logprob of -Infinity
 * arrives as null (JSON has no infinities).
 */
import { resolve } from 'node:path';
import { z } from 'zod';
import { serverRoot } from '../core/endpoint-url.ts';
import { firstZodIssue } from '../core/errors.ts';
import type { EngineSettings } from '../engine/defaults.ts';
import type { DistributionsRequest, DistributionsResult, Engine, EngineInfo } from '../engine/types.ts';

/** What the distribution measurements need of an engine. */
export type DistributionsEngine = Pick<Engine, 'nextTokenDistributions'>;

const Logprob = z
  .number()
  .nullable()
  .transform((v) => v ?? Number.NEGATIVE_INFINITY);

const DistributionsReply = z.object({
  promptTokens: z.number().int(),
  tokens: z.array(z.number().int()),
  steps: z.array(
    z.object({
      token: z.number().int().optional(),
      logprob: Logprob.optional(),
      top: z.array(z.object({ token: z.number().int(), text: z.string(), logprob: Logprob })),
      full: z.array(Logprob).optional(),
    }),
  ),
});

const InfoReply = z.object({
  engine: z.string(),
  llamaCppBuild: z.string().optional(),
  file: z.string(),
  sha256: z.string(),
  bytes: z.number(),
  architecture: z.string(),
  tensorType: z.string(),
  vocabSize: z.number().int(),
  chatTemplate: z.string().optional(),
  chatTemplateSha256: z.string().optional(),
  testModel: z.boolean(),
  bosToken: z.string().optional(),
  eosToken: z.string().optional(),
  contextSize: z.number().int(),
  sequences: z.number().int(),
  threads: z.number().int(),
  loadMs: z.number(),
});

/**
 * The engine behind `baseUrl` when it is a `toolgauge serve` running `path` with `settings`; null when it is not
 * (another server, another file, other threads or context size) or does not answer.
 */
export async function servedEngineFor(
  baseUrl: string,
  path: string,
  settings: EngineSettings,
): Promise<{ engine: DistributionsEngine; info: EngineInfo } | null> {
  const root = serverRoot(baseUrl);
  let info: EngineInfo;
  try {
    const r = await fetch(`${root}/toolgauge/engine`, { signal: AbortSignal.timeout(10_000) });
    if (!r.ok) return null;
    const parsed = InfoReply.safeParse(await r.json());
    if (!parsed.success) return null;
    info = parsed.data;
  } catch {
    return null;
  }
  if (
    resolve(info.file) !== resolve(path) ||
    info.threads !== settings.threads ||
    info.contextSize !== settings.contextSize
  )
    return null;
  const engine: DistributionsEngine = {
    async nextTokenDistributions(req: DistributionsRequest): Promise<DistributionsResult> {
      const r = await fetch(`${root}/toolgauge/distributions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(req),
      });
      const body = (await r.json().catch(() => null)) as unknown;
      if (!r.ok) {
        const message = (body as { error?: { message?: unknown } } | null)?.error?.message;
        throw new Error(`${root}/toolgauge/distributions: HTTP ${r.status}: ${String(message ?? 'no error message')}`);
      }
      const parsed = DistributionsReply.safeParse(body);
      if (!parsed.success) {
        const { field, message } = firstZodIssue(parsed.error);
        throw new Error(`${root}/toolgauge/distributions: reply field '${field || '(body)'}': ${message}`);
      }
      return parsed.data;
    },
  };
  return { engine, info };
}
