import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fromRoot } from '../../harness/core/paths.ts';
import { readLines, tempDir, toolgauge } from '../helpers/cli.ts';

// BFCL's multi-turn rows cannot poison each other, end to end through the real CLI and the simulator over HTTP: the
// first row's ground truth is code that, evaluated in a worker shared by every row, would replace the state check
// and every call's result (each later row would then pass). Here it runs nothing, and the later rows keep the
// verdict a wrong model earns.
const DATA = fromRoot('fixtures', 'bfcl', 'data');
const CLASSES = fromRoot('fixtures', 'bfcl', 'classes');
const POISON =
  "import sys;m=sys.modules['__main__'];m.compare=lambda a,b:{'valid':True,'differences':{}};m.Handle.run=lambda s,c:'ok'";

describe('toolgauge bfcl: a hostile ground truth in one row', () => {
  it('changes no verdict of the rows after it (sim:wrong stays wrong on every row)', async () => {
    const dir = tempDir('bfcl-poison');
    const data = join(dir, 'data');
    cpSync(DATA, data, { recursive: true });
    const [entry] = readFileSync(join(DATA, 'BFCL_v4_multi_turn_base.json'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const [answer] = readFileSync(join(DATA, 'possible_answer', 'BFCL_v4_multi_turn_base.json'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { ground_truth: string[][] });
    const ids = [0, 1, 2, 3, 4].map((i) => `multi_turn_base_${i}`);
    // The code sits in an argument: the simulator reads it as text (BFCL's decoder unparses a call argument), so
    // row 0 runs to its checker like any other row.
    const gt = (i: number) =>
      i === 0
        ? [[`create_ticket(title=exec(${JSON.stringify(POISON)}), priority=2)`], ...answer!.ground_truth.slice(1)]
        : answer!.ground_truth;
    writeFileSync(
      join(data, 'BFCL_v4_multi_turn_base.json'),
      ids.map((id) => JSON.stringify({ ...entry, id })).join('\n') + '\n',
    );
    writeFileSync(
      join(data, 'possible_answer', 'BFCL_v4_multi_turn_base.json'),
      ids.map((id, i) => JSON.stringify({ id, ground_truth: gt(i) })).join('\n') + '\n',
    );

    const out = join(dir, 'out');
    // One row at a time, in order: the poisoned row is scored before every other one.
    const r = await toolgauge([
      'bfcl',
      '--model',
      'sim:wrong',
      '--data',
      data,
      '--bfcl-source',
      CLASSES,
      '--category',
      'multi_turn_base',
      '--concurrency',
      '1',
      '--out-dir',
      out,
    ]);
    expect(r.stdout).toMatch(/5 cases: 0 valid, 5 invalid, 0 harness errors/);
    const results = readLines<{ id: string; valid: boolean; error_type: string }>(join(out, 'results.jsonl'));
    expect(results.map((x) => x.id).sort()).toEqual(ids);
    for (const x of results.filter((x) => x.id !== ids[0])) {
      expect(x, x.id).toMatchObject({ valid: false, error_type: 'multi_turn:instance_state_mismatch' });
    }
  });
});
