// The embedding fallback as an external command, for users who have the MiniLM model (the reference's
// sentence-transformers/paraphrase-MiniLM-L3-v2): the command reads one EmbeddingRequest as JSON on stdin and
// prints {"name": "<catalog item with the highest cosine similarity above 0>"} or {"name": null}.
import { spawnSync } from 'node:child_process';
import { z } from 'zod';
import type { EmbeddingFallback, EmbeddingRequest } from './index.ts';

const Reply = z.object({ name: z.string().nullable() });

export function commandEmbeddingFallback(argv: readonly string[]): EmbeddingFallback {
  if (argv.length === 0) throw new Error('embedding command: empty command');
  const shown = argv.join(' ');
  const cache = new Map<string, string | null>();
  return (req: EmbeddingRequest) => {
    const key = `${req.level}\u0000${req.keywords}`;
    if (cache.has(key)) return cache.get(key)!;
    const r = spawnSync(argv[0]!, argv.slice(1), { input: JSON.stringify(req), encoding: 'utf8', maxBuffer: 1 << 20 });
    if (r.error) throw new Error(`embedding command '${shown}': ${r.error.message}`);
    if (r.status !== 0)
      throw new Error(
        `embedding command '${shown}' exited ${r.status}: ${(r.stderr ?? '').trim().split('\n').at(-1) ?? ''}`,
      );
    let parsed: unknown;
    try {
      parsed = JSON.parse(r.stdout);
    } catch {
      throw new Error(`embedding command '${shown}': stdout is not JSON: ${r.stdout.slice(0, 120)}`);
    }
    const reply = Reply.safeParse(parsed);
    if (!reply.success)
      throw new Error(`embedding command '${shown}': expected {"name": string|null}, got ${r.stdout.slice(0, 120)}`);
    const name = reply.data.name;
    if (name !== null && !req.items.some((i) => i.name === name)) {
      throw new Error(`embedding command '${shown}': '${name}' is not in the level-${req.level} catalog`);
    }
    cache.set(key, name);
    return name;
  };
}
