// literalType (the smoke check's answer types) against python3 itself: the same expression the reference's
// analysis runs, on one answer of every literal type and a few that are not literals.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { pythonCommand } from '../core/pyliteral/python-oracle.ts';
import { literalType } from './smoke.ts';

const ANSWERS = [
  '42',
  ' 1.5 ',
  '2j',
  'True',
  'None',
  "'x'",
  "b'x'",
  '[1]',
  '(1,)',
  '{1}',
  '{1: 2}',
  '...',
  'Paris',
  '',
];

const PY = `
import ast, json, sys
def t(a):
    try:
        return type(ast.literal_eval(a.strip())).__name__
    except Exception:
        return 'raw_string'
print(json.dumps([t(a) for a in json.loads(sys.argv[1])]))
`;

function pythonTypes(): string[] | null {
  try {
    return JSON.parse(
      execFileSync(pythonCommand(), ['-c', PY, JSON.stringify(ANSWERS)], { encoding: 'utf8' }),
    ) as string[];
  } catch {
    return null;
  }
}

const expected = pythonTypes();

describe.skipIf(expected === null)('literalType', () => {
  it("names each answer's type as Python's type(ast.literal_eval(answer.strip())).__name__ does", () => {
    expect(ANSWERS.map(literalType)).toEqual(expected);
  });
});
