import { describe, expect, it } from 'vitest';
import { inProcess } from '../../tests/helpers/cli.ts';

describe('toolgauge main', () => {
  it('`report --help` prints the report command’s own usage', async () => {
    const r = await inProcess(['report', '--help'], {});
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^toolgauge report DIR/);
    expect(r.stdout).toMatch(/--compare/);
    expect(r.stdout).not.toMatch(/toolgauge toolhop/);
  });

  it('refuses an empty --gate (an unset CI variable) with exit 2 instead of running without a gate', async () => {
    for (const argv of [
      ['eval', 'missing.eval.ts', '--gate', ''],
      ['report', 'missing-dir', '--gate', ' '],
    ]) {
      const r = await inProcess(argv, {});
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/^toolgauge (eval|report): --gate must not be empty \(leave the flag out for no gate\)/);
    }
  });
});
