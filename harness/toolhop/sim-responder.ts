import { headerId } from '../core/ids.ts';
import { HttpError, type Responder } from '../sim/server.ts';
import type { LoadedDataset } from './dataset.ts';
import type { ToolhopRow } from './row.ts';
import { teamToolhopReply } from './team-sim.ts';

/**
 * The simulator's ToolHop behaviour: the rows come from the suite's own data source (loaded on the first request,
 * so a run of another suite never reads them), the replies from the pure policies (sim-policy.ts, team-sim.ts).
 */
export function toolhopResponder(load: () => Promise<LoadedDataset>): Responder {
  let rows: Promise<Map<string, ToolhopRow>> | undefined;
  const table = () =>
    (rows ??= load().then((ds) => {
      const m = new Map<string, ToolhopRow>();
      for (const e of ds.entries) if (e.ok) m.set(headerId(e.id), e.row);
      return m;
    }));
  // Question → rows asking it (the first user message carries it after "Question: ").
  let byQuestion: Promise<Map<string, Array<[string, ToolhopRow]>>> | undefined;
  const questions = () =>
    (byQuestion ??= table().then((m) => {
      const q = new Map<string, Array<[string, ToolhopRow]>>();
      for (const [id, row] of m) q.set(row.question.trim(), [...(q.get(row.question.trim()) ?? []), [id, row]]);
      return q;
    }));
  return {
    async identify(body) {
      const user = body.messages.find((m) => m.role === 'user');
      const text = typeof user?.content === 'string' ? user.content : '';
      const question = (/(?:^|\n)Question: ([\s\S]*?)(?:\n\nCONTEXT FROM OTHER AGENTS|$)/.exec(text)?.[1] ?? text).trim();
      const candidates = (await questions()).get(question);
      if (!candidates?.length) return undefined;
      if (candidates.length === 1) return candidates[0]![0];
      // Rows asking the same question differ by their tools.
      const offered = new Set((body.tools ?? []).map((t) => t.function.name));
      return candidates.find(([, row]) => Object.values(row.tools).every((t) => offered.has(t.name) || [...offered].some((o) => o.startsWith(`${t.name}__`))))?.[0] ?? candidates[0]![0];
    },
    async chat(spec, body, ctx) {
      if (spec.name === 'reflect') throw new HttpError(422, 'simulator: sim:reflect is a reflection model for `toolgauge optimize`, not a ToolHop task policy');
      const row = (await table()).get(ctx.id);
      if (!row) throw new HttpError(422, `simulator: no ToolHop row '${ctx.id}' in the suite's data`);
      // Single agents and every team role: the team policy answers single-agent requests exactly as the plain one.
      return teamToolhopReply(spec, row, body.messages, body.tools, ctx);
    },
  };
}
