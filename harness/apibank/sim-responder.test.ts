// The simulator places an API-Bank request by its content alone (the reference runner sends no toolgauge header).
import { describe, expect, it } from 'vitest';
import { userPrompt } from './prompt.ts';
import { apibankSimResponder } from './sim-responder.ts';
import { ApibankData } from './tasks.ts';
import { HAS_SHARED_APIBANK, SHARED_APIBANK } from './testkit.ts';

describe.skipIf(!HAS_SHARED_APIBANK)(
  `API-Bank simulator identification${HAS_SHARED_APIBANK ? '' : ' — SKIPPED: needs ../shared/data/apibank'}`,
  () => {
    const r = apibankSimResponder(() => SHARED_APIBANK);
    const data = new ApibankData(SHARED_APIBANK);
    const ask = (user: string) =>
      r.identify!({
        model: 'sim:oracle',
        messages: [
          { role: 'system', content: 'x' },
          { role: 'user', content: user },
        ],
      });

    it('every level-2 task is placed by its prompt, with or without team context, on a task with its gold call', async () => {
      for (const t of data.allTasks('2')) {
        for (const user of [userPrompt(t), `${userPrompt(t)}\n\nCONTEXT FROM OTHER AGENTS OR PRIOR STAGES:\nreport`]) {
          const id = await ask(user);
          expect(id, t.id).toBeDefined();
          const reply = await r.chat!(
            { name: 'oracle' } as never,
            { model: 'sim:oracle', messages: [] },
            { instance: `apibank:${id}`, id: id!, agent: '0', trial: 0 },
          );
          expect(reply.content, t.id).toBe(t.gold_api_call);
        }
      }
    });

    it('leaves other requests to other suites', async () => {
      expect(await ask('Question: what is 2+2?')).toBeUndefined();
      expect(
        await apibankSimResponder(() => '/nonexistent').identify!({
          model: 'm',
          messages: [{ role: 'user', content: 'Predict the next API call in the dialogue.\n\nx' }],
        }),
      ).toBeUndefined();
    });
  },
);
