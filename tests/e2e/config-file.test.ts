// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are configuration values with ${VAR} placeholders, not templates
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { inProcess, readJson, readLines, tempDir } from '../helpers/cli.ts';

// `--config FILE` on the suite commands (docs/config.md): one real run in process (real HTTP to the simulator) whose
// settings come from a file with an environment variable and a command-line override; each other command refuses a
// bad file with exit 2 and one line before anything runs.
describe('toolgauge <suite> --config FILE', () => {
  it('runs with the file’s settings, the environment interpolated and the command line winning', async () => {
    const dir = tempDir('config');
    const file = join(dir, 'run.yaml');
    writeFileSync(
      file,
      [
        'model: ${TG_TEST_MODEL}',
        'seed: 3',
        'maze:',
        '  taskId: C1_task_001_P2',
        '  modes: [P0, P3]',
        '  out-dir: ignored-because-the-flag-wins',
        '',
      ].join('\n'),
    );
    const out = join(dir, 'out');
    const r = await inProcess(['maze', '--config', file, '--out-dir', out, '--modes', 'P2'], {
      TG_TEST_MODEL: 'sim:oracle',
    });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(readLines<{ id: string }>(join(out, 'instances.jsonl')).map((m) => m.id)).toEqual(['C1_task_001:P2']);
    const summary = readJson<{ header: { model: string; seed: number } }>(join(out, 'summary.json'));
    expect(summary.header.model).toBe('sim:oracle');
    expect(summary.header.seed).toBe(3);
  });

  it('refuses an unknown key, a bad value or a missing variable with exit 2 and one line naming the file and key', async () => {
    const dir = tempDir('config-bad');
    const cases: Array<[string, string, RegExp]> = [
      ['toolhop', 'limt: 3\n', /^toolgauge toolhop: .*t\.yaml: unknown key 'limt' \(did you mean 'limit'\?\)$/],
      [
        'probe',
        'probe:\n  decode: free\n  top_p: 7\n',
        /^toolgauge probe: .*t\.yaml: key 'probe\.top_p' Too big.*<=1 \(got '7'\)$/,
      ],
      ['bfcl', 'mode: yaml\n', /^toolgauge bfcl: .*t\.yaml: key 'mode' must be one of fc\|prompt \(got 'yaml'\)$/],
      [
        'apibank',
        'base-url: ${TG_UNSET_URL}\n',
        /^toolgauge apibank: .*t\.yaml: key 'base-url': environment variable TG_UNSET_URL is not set/,
      ],
      [
        'eval',
        'files: [a.eval.ts]\ngate: accuracy>=x\nmodle: m\n',
        /^toolgauge eval: .*t\.yaml: unknown key 'modle' \(did you mean 'model'\?\)$/,
      ],
    ];
    for (const [command, text, message] of cases) {
      const file = join(dir, `${command}-t.yaml`);
      writeFileSync(file, text);
      const r = await inProcess([command, '--config', file], {});
      expect(r.code, `${command}: ${r.stderr}`).toBe(2);
      expect(r.stderr.trim().split('\n'), command).toHaveLength(1);
      expect(r.stderr.trim(), command).toMatch(message);
    }
  });
});
