import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fromRoot } from '../core/paths.ts';
import { MODEL_FLAGS } from '../kit/flags/model-flags.ts';
import { suiteFolders } from '../kit/suite-folders.ts';
import { commandTable } from './main.ts';

// docs/config.md lists the keys a `--config` file may hold: every flag of a command is a key. Its two tables are
// checked against the flag definitions each command exports (ACCEPTED_FLAGS), as help.test.ts checks --help.
const COMMANDS = ['eval', ...suiteFolders().map((f) => f.name)];
const DOC = readFileSync(fromRoot('docs', 'config.md'), 'utf8');
/** The keys that are not flags (docs/config.md, "Three keys are not flags"). */
const NOT_FLAGS: Record<string, string[]> = { probe: ['models'], eval: ['models', 'files', 'mcpServers'] };

const codes = (cell: string) => [...cell.matchAll(/`([a-z][\w-]*)`/g)].map((m) => m[1]!);

/** The first cell's keys of every row of the model and run flags' table (the one whose header is `| key |`). */
function modelTableKeys(): Set<string> {
  const table = DOC.split(/^\| key\s+\|/m)[1]!.split(/\n\n/)[0]!;
  return new Set(table.split('\n').flatMap((row) => codes(row.split('|')[1] ?? '')));
}

/** The keys of a command's row in the table of each command's own keys. */
function commandRow(name: string): string[] | undefined {
  const row = DOC.split('\n').find((l) => l.startsWith(`| \`${name}\``) && l.includes('|', 3));
  return row ? codes(row.split('|')[2] ?? '') : undefined;
}

describe("docs/config.md names every command's flags as keys", () => {
  it('the model and run flags table lists every shared model flag', () => {
    const listed = modelTableKeys();
    expect(Object.keys(MODEL_FLAGS).filter((f) => !listed.has(f))).toEqual([]);
  });

  it.each(COMMANDS)("`%s`'s row lists its own flags, and only keys the command takes", async (name) => {
    const accepted = (await commandTable()[name]!()).ACCEPTED_FLAGS!;
    const row = commandRow(name);
    expect(row, `docs/config.md has no row for ${name}`).toBeDefined();
    const own = Object.keys(accepted).filter((f) => !(f in MODEL_FLAGS));
    expect(
      own.filter((f) => !row!.includes(f)),
      `${name}: flags missing from its row`,
    ).toEqual([]);
    const extra = NOT_FLAGS[name] ?? [];
    expect(
      row!.filter((k) => !(k in accepted) && !extra.includes(k)),
      `${name}: keys in its row that are no flag`,
    ).toEqual([]);
  });
});
