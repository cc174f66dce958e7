// The simulator's API-Bank behaviour. A request is recognised by its content — the user message, without the team
// context, is the prompt of exactly one task — so the reference runner's own requests are answered too; toolgauge's
// instance header is the fallback. Tasks come from the run's data folder, read on the first request.
import { sha256 } from '../core/hash.ts';
import { headerId } from '../core/ids.ts';
import { HttpError, type Responder } from '../sim/server.ts';
import { userPrompt } from './prompt.ts';
import { APIBANK_POLICIES, apibankReply, type ApibankPolicy } from './sim-policy.ts';
import { ApibankData, combinedId, LEVELS, type ApibankTask } from './tasks.ts';

const CONTEXT_MARK = '\n\nCONTEXT FROM OTHER AGENTS OR PRIOR STAGES:\n';

interface Tables {
  byId: Map<string, ApibankTask>;
  /**
   * sha256 of a task's user prompt → its header id. Tasks sharing a prompt (two dialogues that open alike) share an
   * entry when their gold calls agree — every policy answers from the gold call alone — and none when they differ.
   */
  byPrompt: Map<string, string | null>;
}

// One table per data folder and process: every run on the same data shares it (building it renders 753 prompts).
const TABLES = new Map<string, Tables>();

export function apibankSimResponder(root: () => string): Responder {
  let tables: Tables | undefined;
  const load = (): Tables => {
    if (tables) return tables;
    const dir = root();
    const cached = TABLES.get(dir);
    if (cached) return (tables = cached);
    const data = new ApibankData(dir);
    const t: Tables = { byId: new Map(), byPrompt: new Map() };
    for (const level of LEVELS)
      for (const task of data.allTasks(level)) {
        // Every task under both its level's id and its combined id: the run's level decides which one is asked.
        const ids = [task.id, combinedId(level, task.id)].map(headerId);
        for (const id of ids) t.byId.set(id, task);
        const key = sha256(userPrompt(task));
        const prev = t.byPrompt.get(key);
        if (prev === undefined) t.byPrompt.set(key, ids[1]!);
        else if (prev !== null && t.byId.get(prev)!.gold_api_call !== task.gold_api_call) t.byPrompt.set(key, null);
      }
    TABLES.set(dir, t);
    return (tables = t);
  };
  return {
    identify(body) {
      const user = body.messages.find((m) => m.role === 'user');
      const text = typeof user?.content === 'string' ? user.content : '';
      if (!text.startsWith('Predict the next API call in the dialogue.')) return undefined;
      const cut = text.indexOf(CONTEXT_MARK);
      let t: Tables;
      try {
        t = load();
      } catch {
        // No data folder given (a `toolgauge sim` for another suite): not a request this responder can place.
        return undefined;
      }
      return t.byPrompt.get(sha256(cut < 0 ? text : text.slice(0, cut))) ?? undefined;
    },
    chat(spec, _body, ctx) {
      if (!(APIBANK_POLICIES as readonly string[]).includes(spec.name))
        throw new HttpError(
          422,
          `simulator: policy sim:${spec.name} has no API-Bank behaviour (use sim:${APIBANK_POLICIES.join(', sim:')})`,
        );
      const task = load().byId.get(ctx.id);
      if (!task) throw new HttpError(422, `simulator: no API-Bank task '${ctx.id}' in the data folder`);
      return { content: apibankReply(spec.name as ApibankPolicy, task) };
    },
  };
}
