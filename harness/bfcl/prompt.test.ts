// What the model is shown: BFCL's default system prompt and its OpenAI tool conversion, against BFCL's own
// formulate_system_prompt and convert_to_tool on the docs of sampled real cases of every category.
import { afterAll, describe, expect, it } from 'vitest';
import { ALL_CATEGORIES } from './categories.ts';
import { loadCategory } from './data.ts';
import {
  defaultSystemPrompt,
  executionResultsMessage,
  modelFacingDocs,
  pythonJsonDumps,
  toOpenAiTools,
  withSystemPrompt,
} from './prompt.ts';
import { BfclOracle, hasSharedData, SHARED_DATA } from './testkit.ts';

const started = hasSharedData() ? await BfclOracle.start() : { skip: 'no ../shared/data/bfcl' };
const oracle = 'skip' in started ? undefined : started;
afterAll(async () => oracle?.close());

describe.skipIf(!oracle)(
  `prompt text and tools agree with BFCL's Python${oracle ? '' : ' — SKIPPED: no ../shared/data/bfcl'}`,
  () => {
    const categories =
      process.env.TOOLGAUGE_BFCL_HEAVY === '1'
        ? ALL_CATEGORIES
        : (['simple_java', 'simple_javascript', 'multi_turn_miss_func'] as const);
    for (const category of categories) {
      it(`${category}: system prompt and OpenAI tools of sampled entries`, async () => {
        const cases = loadCategory(SHARED_DATA, category).filter(
          (_, i) => i % (process.env.TOOLGAUGE_BFCL_HEAVY === '1' ? 10 : 40) === 0,
        );
        for (const c of cases) {
          const docs = modelFacingDocs(c.id, c.entry.functions);
          const functions = pythonJsonDumps(docs);
          const [prompt, tools] = await oracle!.ask<[{ text: string }, { tools: unknown }]>([
            { op: 'system_prompt', functions },
            { op: 'tools', functions },
          ]);
          expect(defaultSystemPrompt(docs), c.id).toBe(prompt.text);
          expect(JSON.parse(JSON.stringify(toOpenAiTools(docs))), c.id).toEqual(tools.tools);
        }
      });
    }
  },
);

describe('prompt helpers', () => {
  it('puts the system prompt first, or in front of an existing system message', () => {
    const docs = [{ name: 'f', description: 'd', parameters: { type: 'dict', properties: {}, required: [] } }];
    expect(withSystemPrompt([{ role: 'user', content: 'hi' }], docs).map((m) => m.role)).toEqual(['system', 'user']);
    const merged = withSystemPrompt(
      [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'hi' },
      ],
      docs,
    );
    expect(merged).toHaveLength(2);
    expect(merged[0]!.content!.endsWith('\n\nBe brief.')).toBe(true);
  });

  it('returns execution results as the repr of tool messages (what the responder reads as the same turn)', () => {
    const m = executionResultsMessage(["cd(folder='x')"], ['{"current_working_directory": "x"}']);
    expect(m).toEqual({
      role: 'user',
      content: `[{'role': 'tool', 'name': "cd(folder='x')", 'content': '{"current_working_directory": "x"}'}]`,
    });
  });
});
