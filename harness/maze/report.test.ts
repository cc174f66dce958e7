import { describe, expect, it } from 'vitest';
import type { Summary } from '../report/summary.ts';
import { mazeMarkdown } from './report.ts';

/** Only what mazeMarkdown reads; everything else of a summary is left out. */
function summary(extra: Record<string, unknown>): Summary {
  return {
    header: { model: 'm', dataset: null, generation: {} },
    metrics: {},
    breakdowns: {},
    errors: [],
    config: {},
    extra,
  } as unknown as Summary;
}

const totals = (runs: number, withUsage: number, prompt: number, completion: number) => ({
  runs,
  runs_with_usage: withUsage,
  prompt_tokens: prompt,
  completion_tokens: completion,
  total_tokens: prompt + completion,
});

describe("the Maze report's token tables", () => {
  it("shows the agent's tokens and, apart, the judge's, each mode a row", () => {
    const md = mazeMarkdown(
      summary({
        tokens: { P2: totals(3, 2, 100, 20) },
        judge_tokens: { P2: totals(3, 3, 7, 1), P3: totals(1, 0, 0, 0) },
      }),
    );
    const agent = md.slice(md.indexOf('## Tokens per mode'), md.indexOf("## The LLM judge's tokens per mode"));
    expect(agent).toMatch(/\| mode \| runs \| with usage \| prompt \| completion \| total \|/);
    expect(agent).toMatch(/\| P2 \| 3 \| 2 \| 100 \| 20 \| 120 \|/);
    expect(agent).toContain("As the endpoint reported them (summed over each run's model calls)");
    const judge = md.slice(md.indexOf("## The LLM judge's tokens per mode"));
    expect(judge).toMatch(/\| mode \| runs judged \| with usage \| prompt \| completion \| total \|/);
    expect(judge).toMatch(/\| P2 \| 3 \| 3 \| 7 \| 1 \| 8 \|[\s\S]*\| P3 \| 1 \| 0 \| 0 \| 0 \| 0 \|/);
    expect(judge).toContain("Apart from the agent's tokens above");
  });

  it('leaves a table out when there are no totals', () => {
    const md = mazeMarkdown(summary({ tokens: {}, judge_tokens: undefined }));
    expect(md).not.toContain('tokens per mode');
    expect(md).not.toContain('## Tokens per mode');
  });
});
