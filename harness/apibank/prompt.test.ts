// The reference's own messages for its 445 curated tasks (derived/curated_tasks_single_prompts.jsonl, rendered by the
// reference runner) against toolgauge's, byte for byte. Needs ../shared/data; skipped visibly without it.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pyJsonLoads, pyToPlain } from '../core/pyliteral/pyjson.ts';
import { loadRolePrompt, pyJson, systemPrompt, userPrompt } from './prompt.ts';
import { planTeam } from './run.ts';
import { ApibankData, DATA_LAYOUT, taskOfManifestId } from './tasks.ts';
import { HAS_SHARED_APIBANK, SHARED_APIBANK } from './testkit.ts';
import { tempDir } from '../../tests/helpers/temp-dirs.ts';

describe.skipIf(!HAS_SHARED_APIBANK)(
  `API-Bank prompts equal the reference's${HAS_SHARED_APIBANK ? '' : ' — SKIPPED: needs ../shared/data/apibank'}`,
  () => {
    it('system and user messages of all 445 curated tasks are byte-identical, and the task fields agree', () => {
      const data = new ApibankData(SHARED_APIBANK);
      const rows = readFileSync(join(SHARED_APIBANK, DATA_LAYOUT.prompted), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => pyToPlain(pyJsonLoads(l)) as Record<string, unknown>);
      const system = systemPrompt(
        loadRolePrompt(join(SHARED_APIBANK, DATA_LAYOUT.prompts), 'single', 'solver', 'single_langgraph'),
        { topology: 'single', role: 'solver' },
      );
      const bad: string[] = [];
      for (const r of rows) {
        const t = taskOfManifestId(data, 'all', String(r.id));
        if (!t) {
          bad.push(`${r.id}: no task`);
          continue;
        }
        if (r.system !== system) bad.push(`${r.id}: system differs`);
        if (r.user !== userPrompt(t)) bad.push(`${r.id}: user differs`);
        if (r.gold_api_call !== t.gold_api_call)
          bad.push(`${r.id}: gold_api_call ${t.gold_api_call} != ${String(r.gold_api_call)}`);
        if (pyJson(r.api_names) !== pyJson(t.api_names)) bad.push(`${r.id}: api_names differ`);
        if (pyJson(r.ground_truth) !== pyJson(t.ground_truth)) bad.push(`${r.id}: ground_truth differs`);
        if (pyJson(r.prior_api_turns) !== pyJson(t.prior_api_turns)) bad.push(`${r.id}: prior_api_turns differ`);
      }
      expect(rows.length).toBe(445);
      expect(bad.slice(0, 5)).toEqual([]);
    });
  },
);

describe('API-Bank role prompts (--prompts DIR)', () => {
  it("a role file in the reference's layout is used, stripped; a missing one gets the reference's fallback prompt", () => {
    const dir = tempDir('apibank-prompts');
    mkdirSync(join(dir, 'single', 'apibank'), { recursive: true });
    writeFileSync(join(dir, 'single', 'apibank', 'solver.txt'), '\n  Call APIs carefully.  \n');
    const sys = systemPrompt(loadRolePrompt(dir, 'single', 'solver', 'single_langgraph'), {
      topology: 'single',
      role: 'solver',
    });
    expect(sys).toMatch(
      /^PROTECTED FINAL OUTPUT CONTRACT:\n[\s\S]*\n\nCall APIs carefully\.\n\nAPI-BANK HARD RULE: [\s\S]*\n\nFinal reminder: /,
    );
    expect(loadRolePrompt(dir, 'sequential', 'dialogue_reader', 'sequential_langgraph')).toContain(
      'Implementation style: sequential_langgraph.',
    );
    // Roles are read one by one: a folder holding one role's file still gives the others the fallback.
    mkdirSync(join(dir, 'sequential', 'apibank'), { recursive: true });
    writeFileSync(join(dir, 'sequential', 'apibank', 'verifier.txt'), 'Verify.');
    const plan = planTeam('sequential', dir);
    expect(plan.prompts.verifier).toBe('Verify.');
    expect(plan.sources.dialogue_reader).toBeNull();
    expect(plan.prompts.dialogue_reader).toContain('Implementation style: sequential_langgraph.');
    // A non-final role (a sequential stage before the verifier) gets no output contract.
    expect(systemPrompt('Read the dialogue.', { topology: 'sequential', role: 'dialogue_reader' })).toMatch(
      /^Read the dialogue\.\n\nAPI-BANK HARD RULE/,
    );
  });
});

describe.skipIf(!HAS_SHARED_APIBANK)(
  `API-Bank team prompts in the data${HAS_SHARED_APIBANK ? '' : ' — SKIPPED: needs ../shared/data/apibank'}`,
  () => {
    it("every team topology finds all its roles' prompt files in the reference's layout", () => {
      for (const t of ['independent', 'decentralized', 'centralized', 'sequential'] as const) {
        const plan = planTeam(t, join(SHARED_APIBANK, DATA_LAYOUT.prompts));
        expect(
          Object.values(plan.sources).filter((s) => s === null),
          t,
        ).toEqual([]);
      }
    });
  },
);
