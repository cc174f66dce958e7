import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { fromRoot } from '../../harness/core/paths.ts';
import { runSuite } from '../../harness/launch/run-suite.ts';
import type { ProbeMeta } from '../../harness/probe/run/types.ts';
import { probeSuite } from '../../harness/probe/suite.ts';
import { toolhoundVerdict, type TreeRecord } from '../../harness/probe/axes/attribution-tree.ts';
import { tempDir } from '../helpers/cli.ts';

// Toolhound's decision tree on a template that drops prior assistant calls (Granite 3.3, completions transport, on
// the simulator — not a model's result). The template cannot render the cases with a prior call: Toolhound runs
// them through the tree anyway (no framework call, template sanity fails → framework_template_bug).

const CASES_FILE = fromRoot('cases', 'probe', 'cases.jsonl');
const GRANITE = fromRoot('fixtures', 'templates', 'ibm-granite-granite-3.3-2B-Instruct.jinja');

// The expected sets, from the raw case file: a case holds a prior call when an assistant turn carries one.
const rows = readFileSync(CASES_FILE, 'utf8')
  .split('\n')
  .filter((l) => l.trim())
  .map(
    (l) =>
      JSON.parse(l) as {
        id: string;
        expected: unknown;
        turns: Array<{ role: string; tool_call?: unknown; tool_calls?: unknown[] }>;
      },
  );
const withPriorCall = rows
  .filter((r) =>
    r.turns.some((t) => t.role === 'assistant' && (t.tool_call !== undefined || (t.tool_calls?.length ?? 0) > 0)),
  )
  .map((r) => r.id);
const others = rows
  .filter((r) => !withPriorCall.includes(r.id))
  .filter((_, i) => i % 25 === 0)
  .map((r) => r.id);

describe('Toolhound tree on the call-dropping Granite 3.3 template (simulator)', () => {
  let metas: ProbeMeta[];
  let tree: { toolhound: Record<string, number>; template_sane: boolean };
  beforeAll(async () => {
    const run = await runSuite(probeSuite, {
      TOOLGAUGE_MODEL: 'sim:oracle',
      TOOLGAUGE_PROBE_TRANSPORT: 'completions',
      TOOLGAUGE_PROBE_TEMPLATE: GRANITE,
      TOOLGAUGE_PROBE_ONLY: [...withPriorCall, ...others].join(','),
      TOOLGAUGE_OUT_DIR: tempDir('probe-granite-tree'),
    });
    metas = run.metas as ProbeMeta[];
    tree = (run.finalized.summary.extra as { attribution_tree: typeof tree }).attribution_tree;
  }, 120_000);

  it('counts every case, the unrenderable ones included', () => {
    expect(withPriorCall.length).toBeGreaterThan(10);
    expect(metas).toHaveLength(withPriorCall.length + others.length);
    expect(tree.template_sane).toBe(false);
    const total = Object.values(tree.toolhound).reduce((a, b) => a + b, 0);
    expect(total).toBe(withPriorCall.length + others.length);
    expect(tree.toolhound.framework_template_bug).toBe(withPriorCall.length);
    expect(tree.toolhound.pass).toBe(others.length);
  });

  it('every case with a prior call is framework_template_bug, also when the template passed sanity', () => {
    const byId = new Map(metas.map((m) => [m.id, m as unknown as TreeRecord]));
    for (const id of withPriorCall) {
      const r = byId.get(id)!;
      expect(r.render_error, id).toBeTruthy();
      expect(toolhoundVerdict(r, false)?.toolhound, id).toBe('framework_template_bug');
      // the dropped prior call alone is a template break for this case
      expect(toolhoundVerdict(r, true)?.toolhound, id).toBe('framework_template_bug');
    }
    for (const id of others) expect(toolhoundVerdict(byId.get(id)!, true)?.toolhound, id).toBe('pass');
  });
});
