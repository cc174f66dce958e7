import { describe, expect, it } from 'vitest';
import { fromRoot } from '../../core/paths.ts';
import { paTool } from '../../methods/pa-tool.ts';
import { presentCall, type RenameMap } from '../../methods/rename.ts';
import type { Sampler } from '../../methods/types.ts';
import { parseToolCalls, renderToolCalls } from '../../parse/index.ts';
import { loadCases } from '../cases/load.ts';
import { scoreTier } from '../../calls/score/index.ts';

// `--method pa_tool` end to end on the bundled cases with a simulated model: PA-Tool samples names from the
// model, the request is presented renamed, the model answers in the presented names, toolgauge parses against the
// presented tools, maps the calls back and scores them on the original case.

const { cases } = loadCases(fromRoot('cases', 'probe', 'cases.jsonl'), { dateContext: '2025-06-02' });

/** A simulated model that names things after the first two content words of the description it is shown. */
const sampler: Sampler = {
  async sample(prompt, { n }) {
    const words = (/(?:does this|does): (.*)/.exec(prompt)?.[1] ?? prompt).toLowerCase().match(/[a-z]+/g) ?? [];
    const content = words.filter((w) => !['the', 'a', 'an', 'get', 'of', 'for', 'to', 'in', 'it', 'holds'].includes(w));
    const name = content.slice(0, 2).join('_') || 'thing';
    const param = /holds: (.*)|currently called "([^"]+)"/.exec(prompt);
    const pname = param
      ? ((param[1] ?? param[2] ?? '').toLowerCase().match(/[a-z]+/g) ?? ['arg']).slice(0, 2).join('_')
      : name;
    const out = prompt.includes('argument') ? pname : name;
    return Array.from({ length: n }, () => out);
  },
};

describe('pa_tool on the simulator', () => {
  it('renames, answers in the presented names, maps back: every call case scores as the baseline would', async () => {
    const method = paTool({ n: 4 });
    let renamed = 0;
    let unmappedWouldFail = 0;
    const failures: string[] = [];
    for (const c of cases.filter((x) => x.expected !== null)) {
      const p = await method.prepare({ tools: c.tools, messages: c.messages }, { sampler, seed: 3 });
      const map = p.meta.rename as RenameMap;
      const presentedTools = p.request.tools.map((t) => t.function);
      if (presentedTools.some((t, i) => t.name !== c.tools[i]!.function.name)) renamed++;
      // the (oracle) model calls the tools it was shown
      const answer = renderToolCalls(
        c.expected!.map((e) => presentCall({ name: e.name, arguments: e.arguments }, map)),
        'hermes',
      );
      const parsed = parseToolCalls(answer, { tier: 'strict', format: 'hermes', tools: presentedTools }).calls;
      const score = scoreTier(c, { calls: parsed.map(p.toOriginal), attempted: true, truncated: false });
      if (!score.passed) failures.push(`${c.id}: ${score.problems.join('; ')}`);
      if (!scoreTier(c, { calls: parsed, attempted: true, truncated: false }).passed) unmappedWouldFail++;
    }
    expect(failures).toEqual([]);
    expect(renamed).toBeGreaterThan(0);
    // the mapping back is what makes them pass
    expect(unmappedWouldFail).toBeGreaterThan(0);
  });
});
