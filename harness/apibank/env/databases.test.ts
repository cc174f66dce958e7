// loadDatabases: the staged init databases load (19 tables, read as Python reads them), and a damaged folder is
// refused with one line naming the file and the field.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { pyRepr, type PyValue } from '../../core/pyliteral/index.ts';
import { DatabaseError, loadDatabases, REQUIRED_DATABASES } from './databases.ts';
import { APIBANK_DATA, hasApibankData } from './testkit.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
/** A folder with minimal valid tables, `overrides` replacing or (undefined) removing some. */
function folder(overrides: Record<string, string | undefined> = {}): string {
  const d = mkdtempSync(join(tmpdir(), 'apibank-db-'));
  dirs.push(d);
  for (const name of REQUIRED_DATABASES) {
    const text = name in overrides ? overrides[name] : name === 'ImageCaptioning' ? '[]' : '{}';
    if (text !== undefined) writeFileSync(join(d, `${name}.json`), text);
  }
  return d;
}

describe('loadDatabases', () => {
  it.skipIf(!hasApibankData())('reads the 19 staged init databases', () => {
    const dbs = loadDatabases(join(APIBANK_DATA, 'api-bank/init_database'));
    expect([...dbs.tables.keys()].length).toBe(19);
    const bank = dbs.tables.get('Bank') as Extract<PyValue, { t: 'dict' }>;
    expect(pyRepr(bank.entries[0]![0])).toBe("'JohnDoe'");
    expect(pyRepr(bank.entries[0]![1])).toContain("'balance': 2739.25");
  });
  it('names the file and the field of a wrong value', () => {
    const d = folder({ Account: '{"JohnDoe": {"password": "p", "token": 5, "email": "e"}}' });
    expect(() => loadDatabases(d)).toThrow(
      new DatabaseError(
        `${join(d, 'Account.json')}: field JohnDoe.token: Invalid input: expected string, received number`,
      ),
    );
  });
  it('refuses text that is not JSON, with its offset', () => {
    const d = folder({ Alarm: '{"1": {"time": "x", "username": "u"},}' });
    expect(() => loadDatabases(d)).toThrow(
      `${join(d, 'Alarm.json')}: not JSON (Expecting property name enclosed in double quotes: char 37)`,
    );
  });
  it('refuses a folder without a database a class reads', () => {
    const d = folder({ Stock: undefined });
    expect(() => loadDatabases(d)).toThrow(`${d}: missing init database(s) Stock.json`);
  });
});
