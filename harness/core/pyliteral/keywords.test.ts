// The keyword list against the interpreter's own: both the front-end and the pythonic call reader refuse these
// words as names, so one missing or extra word changes what both accept.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { pythonCommand } from './python-oracle.ts';
import { PY_KEYWORDS } from './keywords.ts';

function pythonKwlist(): string[] | null {
  try {
    const out = execFileSync(pythonCommand(), ['-c', 'import json, keyword; print(json.dumps(keyword.kwlist))'], {
      encoding: 'utf8',
    });
    return JSON.parse(out) as string[];
  } catch {
    return null;
  }
}

const kwlist = pythonKwlist();

describe.skipIf(kwlist === null)('PY_KEYWORDS', () => {
  it("is python3's keyword.kwlist, word for word", () => {
    expect([...PY_KEYWORDS].sort()).toEqual([...kwlist!].sort());
  });
});
