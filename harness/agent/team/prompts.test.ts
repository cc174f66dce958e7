import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DataError } from '../../core/errors.ts';
import { loadRolePrompts } from './prompts.ts';
import { tempDir } from '../../../tests/helpers/temp-dirs.ts';

function dir(files: Record<string, string>): string {
  const root = tempDir('team-prompts');
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

describe('loadRolePrompts', () => {
  it('reads <topology>/<role>.txt and the reference layout <topology>/<suite>/<role>.txt', () => {
    const own = dir({ 'sequential/planner.txt': ' plan it \n' });
    const ref = dir({ 'sequential/toolhop/planner.txt': 'reference planner' });
    expect(loadRolePrompts(own, 'sequential', ['planner'], { suite: 'toolhop' })).toEqual({
      text: { planner: 'plan it' },
      source: { planner: join(own, 'sequential', 'planner.txt') },
    });
    expect(loadRolePrompts(ref, 'sequential', ['planner'], { suite: 'toolhop' }).text.planner).toBe(
      'reference planner',
    );
    // Another suite's prompts in the reference layout are not this suite's.
    expect(() => loadRolePrompts(ref, 'sequential', ['planner'], { suite: 'bfcl' })).toThrow(DataError);
  });

  it('takes roles the directory lacks from the fallback, and says where each came from', () => {
    const defaults = dir({ 'centralized/manager.txt': 'default manager', 'centralized/w.txt': 'default worker' });
    const mutated = dir({ 'centralized/w.txt': 'mutated worker' });
    const set = loadRolePrompts(mutated, 'centralized', ['manager', 'w'], { suite: 'toolhop', fallbackDir: defaults });
    expect(set.text).toEqual({ manager: 'default manager', w: 'mutated worker' });
    expect(set.source.manager!.startsWith(defaults)).toBe(true);
    expect(set.source.w!.startsWith(mutated)).toBe(true);
  });

  it('refuses a missing or empty prompt, naming the file', () => {
    const d = dir({ 'independent/solver.txt': '  \n' });
    expect(() => loadRolePrompts(d, 'independent', ['solver'], { suite: 'toolhop' })).toThrow(/solver\.txt.*empty/);
    expect(() => loadRolePrompts(d, 'independent', ['judge'], { suite: 'toolhop' })).toThrow(
      /independent\/judge\.txt.*no prompt for role 'judge'/,
    );
  });
});
