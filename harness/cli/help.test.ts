import { describe, expect, it } from 'vitest';
import { inProcess } from '../../tests/helpers/cli.ts';
import { MODEL_FLAGS } from '../kit/flags/model-flags.ts';
import { suiteFolders } from '../kit/suite-folders.ts';
import { commandTable } from './main.ts';

// `--help` of `toolgauge eval` and of every suite command lists every flag the command parses with: the flags come
// from the definitions the command exports and hands to its parser, so a new flag without help fails here.
const COMMANDS = ['eval', ...suiteFolders().map((f) => f.name)];

describe('every flag in --help', () => {
  it.each(COMMANDS)('`toolgauge %s --help` lists every flag the command accepts', async (name) => {
    const command = await commandTable()[name]!();
    const accepted = command.ACCEPTED_FLAGS;
    expect(accepted, `${name}: exports no ACCEPTED_FLAGS`).toBeDefined();
    const r = await inProcess([name, '--help'], {});
    expect(r.code, r.stderr).toBe(0);
    // Every flag of the definitions, the shared model flags (which every one of these commands parses) and --config.
    const names = new Set([...Object.keys(accepted!), ...Object.keys(MODEL_FLAGS), 'config']);
    const missing = [...names].filter((f) => !new RegExp(`(^|[\\s\\[|,])--${f}(?![\\w-])`, 'm').test(r.stdout));
    expect(missing, `${name} --help lacks these flags`).toEqual([]);
    for (const [flag, spec] of Object.entries(accepted!))
      if (spec.short) expect(r.stdout, `--${flag}'s short form`).toMatch(new RegExp(`-${spec.short}\\b`));
  });
});

describe('toolgauge eval: the usage synopsis', () => {
  it("names each of eval's own flags (beyond the shared model flags)", async () => {
    const { EVAL_FLAGS, USAGE } = await import('./commands/eval.ts');
    // The synopsis: the lines before the first indented description line.
    const lines = USAGE.split('\n');
    const synopsis = lines
      .slice(
        0,
        lines.findIndex((l) => /^ {2}\S/.test(l)),
      )
      .join('\n');
    const own = Object.keys(EVAL_FLAGS).filter((f) => !(f in MODEL_FLAGS));
    expect(own.filter((f) => !synopsis.includes(`--${f}`))).toEqual([]);
  });
});

describe('toolgauge mcp --help', () => {
  it('lists every flag of `toolgauge mcp serve maze|toolhop`', async () => {
    const { FLAGS } = await import('./commands/mcp.ts');
    const r = await inProcess(['mcp', '--help'], {});
    expect(r.code, r.stderr).toBe(0);
    const missing = Object.keys(FLAGS).filter((f) => !new RegExp(`(^|[\\s\\[|,])--${f}(?![\\w-])`, 'm').test(r.stdout));
    expect(missing).toEqual([]);
    expect(r.stdout).toMatch(/^toolgauge mcp serve maze --task ID/);
    expect(r.stdout).toMatch(/^toolgauge mcp serve toolhop --row ID/m);
  });
});
