import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ScoredMeta } from '../kit/generic.ts';
import { scorers } from '../kit/eval/scorers.ts';
import { evalSuite } from '../kit/eval/suite.ts';
import type { Task, TaskOutput } from '../kit/eval/types.ts';
import { runSuite } from '../launch/run-suite.ts';
import { type ChatBody, type SimRequestContext, startSimServer } from '../sim/server.ts';

/** What the simulator saw of one request: who it was about (the headers) and what it was asked with. */
export interface SeenRequest {
  instance: string;
  trial: number;
  seed: unknown;
  temperature: unknown;
  maxTokens: unknown;
  toolNames: string[];
}

/**
 * A simulated model for the adapters' tests, registered as the eval `weather`: with no tool result in the
 * conversation it calls `get_weather` for Paris, then it answers with the tool's result as `<answer>…</answer>`.
 * Every request's headers and sampling fields are recorded.
 */
export async function weatherSim() {
  const seen: SeenRequest[] = [];
  const sim = await startSimServer({
    responders: {
      weather: {
        chat(_spec, body: ChatBody & Record<string, unknown>, ctx: SimRequestContext) {
          seen.push({
            instance: ctx.instance,
            trial: ctx.trial,
            seed: body.seed,
            temperature: body.temperature,
            maxTokens: body.max_tokens,
            toolNames: (body.tools ?? []).map((t) => t.function.name),
          });
          const result = body.messages.find((m) => m.role === 'tool');
          if (!result)
            return {
              content: null,
              tool_calls: [
                {
                  id: `call_${ctx.id}_${ctx.trial}`,
                  type: 'function',
                  function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
                },
              ],
            };
          return { content: `The weather: <answer>${result.content}</answer>` };
        },
      },
    },
  });
  return { url: sim.url, seen, close: () => sim.close() };
}

/** The sampling the runs below ask for: seed 7 and two trials, so trial t must send seed 7 + t. */
export const RUN_ENV = {
  TOOLGAUGE_MODEL: 'sim:oracle',
  TOOLGAUGE_SEED: '7',
  TOOLGAUGE_TRIALS: '2',
  TOOLGAUGE_TEMPERATURE: '0.3',
  TOOLGAUGE_MAX_TOKENS: '64',
};

/** The weather tool's answer, which the simulated model repeats as its answer. */
export const WEATHER = 'sunny';

/**
 * Runs the eval `weather` in process against the simulator with `task`: case `paris` expects the tool's answer,
 * case `planted` a wrong one. Returns each run's meta and the output its scorers saw, by `<id>/<trial>`.
 */
export async function runWeatherEval(task: Task<string, TaskOutput, unknown>, simUrl: string) {
  const outputs = new Map<string, TaskOutput>();
  const def = evalSuite('weather', {
    data: () => [
      { id: 'paris', input: 'What is the weather in Paris?', expected: WEATHER },
      { id: 'planted', input: 'What is the weather in Paris today?', expected: 'rainy' },
    ],
    task,
    scorers: [
      scorers.calledTool('get_weather'),
      scorers.answerMatches(),
      // Keeps what the scorers saw, for the assertions.
      scorers.custom('seen', ({ output, case: c }) => {
        outputs.set(`${c.id}/${outputs.has(`${c.id}/0`) ? 1 : 0}`, output);
        return null;
      }),
    ],
  });
  const out = mkdtempSync(join(tmpdir(), 'tg-adapter-'));
  try {
    const run = await runSuite(
      def,
      { ...RUN_ENV, OPENAI_BASE_URL: simUrl, TOOLGAUGE_OUT_DIR: out },
      { concurrency: 1 },
    );
    const metas = new Map<string, ScoredMeta>(run.metas.map((m) => [`${m.id}/${m.trial}`, m]));
    return { metas, outputs };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}
