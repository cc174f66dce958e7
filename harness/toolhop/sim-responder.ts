import { headerId } from '../core/ids.ts';
import { HttpError, type Responder } from '../sim/server.ts';
import type { LoadedDataset } from './dataset.ts';
import type { ToolhopRow } from './row.ts';
import { teamToolhopReply } from './team-sim.ts';
import { identifyRow, questionIndex, type QuestionIndex } from './sim-identify.ts';
import { foreignMemberOf, type KnownRolePrompt, type MemberRequest } from './sim-member.ts';
import { bundledRolePrompts } from './sim-role-prompts.ts';

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
  let byQuestion: Promise<QuestionIndex> | undefined;
  let known: KnownRolePrompt[] | undefined;
  const questions = () => (byQuestion ??= table().then((m) => questionIndex(m)));
  return {
    async identify(body) {
      return identifyRow(await questions(), body);
    },
    // A request without toolgauge's agent header is answered as the member of toolgauge's team in the same place
    // (sim-member.ts; a single agent's as toolgauge's single agent), so a seeded policy draws the same coin for a
    // row and member whichever runner asks.
    agentOf: (body) => foreignMemberOf(body as MemberRequest, (known ??= bundledRolePrompts())),
    async chat(spec, body, ctx) {
      if (spec.name === 'reflect')
        throw new HttpError(
          422,
          'simulator: sim:reflect is a reflection model for `toolgauge optimize`, not a ToolHop task policy',
        );
      const row = (await table()).get(ctx.id);
      if (!row) throw new HttpError(422, `simulator: no ToolHop row '${ctx.id}' in the suite's data`);
      // Single agents and every team role: the team policy answers single-agent requests exactly as the plain one.
      return teamToolhopReply(spec, row, body.messages, body.tools, ctx);
    },
  };
}
