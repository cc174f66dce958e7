import { describe, expect, it } from 'vitest';
import { constraintFor } from '../../constrain/requests.ts';
import { fromRoot } from '../../core/paths.ts';
import { loadCases } from '../cases/load.ts';
import { decodeComparison } from './compare-tables.ts';
import { armOf, runSimCase } from './sim-decode.ts';

// The acceptance on the simulator: constrained decoding credibly improves parse_ok and schema_valid on
// planted format failures, and credibly changes nothing in tool / argument choice on planted decision failures.

const { cases } = loadCases(fromRoot('cases', 'probe', 'cases.jsonl'), { dateContext: '2025-06-02' });

const memo = new Map<string, ReturnType<typeof build>>();
function arms(behaviour: 'format_failure' | 'decision_failure', degeneration = 0.15) {
  const key = `${behaviour}|${degeneration}`;
  if (!memo.has(key)) memo.set(key, build(behaviour, degeneration));
  return memo.get(key)!;
}
function build(behaviour: 'format_failure' | 'decision_failure', degeneration: number) {
  const free = cases.map((c) => runSimCase(c, behaviour, 'hermes', null));
  const constrained = cases.map((c) => {
    const k = constraintFor(
      'llamacpp',
      'hermes',
      c.tools.map((t) => t.function),
      { transport: 'completions' },
    );
    if (!k.ok) throw new Error(k.reason);
    return runSimCase(c, behaviour, 'hermes', k.spec, { degeneration });
  });
  return { free: armOf('free', cases, free), constrained: armOf('constrained', cases, constrained), raw: constrained };
}

describe('decode axis on the simulator', () => {
  it('format_failure: parse_ok and schema_valid credibly improve; abstention is untouched', () => {
    const { free, constrained } = arms('format_failure');
    const t = decodeComparison(free, constrained, {
      metrics: ['parse_ok', 'schema_valid', 'false_trigger', 'abstained'],
      resamples: 2000,
    });
    const row = (m: string) => t.rows.find((r) => r.metric === m)!;
    expect(row('parse_ok').word).toBe('improved');
    // schema_valid is conditional on a parse: free has (almost) no parsed calls to pair, so read it over all call cases
    expect(row('false_trigger').word).toBe('no credible change');
    expect(row('abstained').word).toBe('no credible change');
    const t2 = decodeComparison(free, constrained, {
      metrics: ['schema_valid.over_call_expected', 'tool_correct.over_call_expected'],
      resamples: 2000,
    });
    expect(t2.rows[0]!.word).toBe('improved');
    expect(t.markdown).toContain('**improved**');
  });

  it('decision_failure: tool and argument choice show no credible change', () => {
    const { free, constrained } = arms('decision_failure');
    const t = decodeComparison(free, constrained, {
      metrics: [
        'tool_correct',
        'args_correct',
        'tool_correct.over_call_expected',
        'args_correct.over_call_expected',
        'no_call',
        'false_trigger',
      ],
      resamples: 2000,
    });
    for (const r of t.rows) expect(r.word, r.metric).toBe('no credible change');
  });

  it('the honest cost: unbounded strings repeat in some forced calls, and that is reported', () => {
    const { constrained, raw } = arms('format_failure', 0.15);
    const reps = raw.filter((r) => r.decode?.repetition).length;
    expect(reps).toBeGreaterThan(0);
    expect([...constrained.outcomes.repetition!.values()].filter((x) => x === 1).length).toBe(reps);
    expect([...constrained.outcomes.truncated!.values()].some((x) => x === 1)).toBe(true);
  });
});
