import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { fromRoot } from '../../harness/core/paths.ts';
import { cleanEnv } from '../helpers/cli.ts';

const VITEST = fromRoot('node_modules', 'vitest', 'vitest.mjs');
// Two small files that make folders with tempDir, run one after the other in one worker (isolate: false).
const FILES = ['harness/kit/interrupt.test.ts', 'harness/vitest/global-setup.test.ts'];

describe('temporary folders of the test suite', () => {
  it('every test file removes the folders tempDir made, also after another file ran in its worker', async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'temp-dirs-check-'));
    try {
      const r = await execa('node', [VITEST, 'run', '--project', 'unit', ...FILES, '--root', fromRoot()], {
        cwd: fromRoot(),
        env: cleanEnv({ TMPDIR: tmp, TOOLGAUGE_TEST_WORKERS: '1', TOOLGAUGE_QUIET_DEFAULT_REPORTER: '1' }),
        extendEnv: false,
        reject: false,
      });
      expect(r.exitCode, `${r.stdout}\n${r.stderr}`).toBe(0);
      expect(readdirSync(tmp).filter((n) => n.startsWith('tg-'))).toEqual([]);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});
