import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseGitStatus } from './repro.ts';

// The oracle is git itself: `rev-parse HEAD` and the v1 porcelain status, against what parseGitStatus reads from
// the one v2 status the header runs.
const dir = mkdtempSync(join(tmpdir(), 'tg-repro-git-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const env = {
  ...process.env,
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@t',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@t',
};
const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, env, encoding: 'utf8' }).trim();
const v2 = () => git('status', '--porcelain=v2', '--branch', '--untracked-files=no');
const v1Dirty = () => git('status', '--porcelain', '--untracked-files=no').length > 0;

describe('parseGitStatus', () => {
  it('agrees with rev-parse and the v1 status through a repository without a commit, clean, edited, staged and untracked states', () => {
    git('init', '-q');
    expect(parseGitStatus(v2())).toEqual({ commit: null, status: null });
    writeFileSync(join(dir, 'a.txt'), 'one\n');
    git('add', 'a.txt');
    git('commit', '-q', '-m', 'first');
    const clean = parseGitStatus(v2());
    expect(clean.commit).toBe(git('rev-parse', 'HEAD'));
    expect(clean.status !== null && clean.status.length > 0).toBe(v1Dirty());
    expect(v1Dirty()).toBe(false);
    writeFileSync(join(dir, 'untracked.txt'), 'x\n');
    expect(parseGitStatus(v2()).status).toBe('');
    writeFileSync(join(dir, 'a.txt'), 'two\n');
    const edited = parseGitStatus(v2());
    expect(edited.commit).toBe(git('rev-parse', 'HEAD'));
    expect((edited.status ?? '').length > 0).toBe(v1Dirty());
    expect(v1Dirty()).toBe(true);
    git('add', 'a.txt');
    expect((parseGitStatus(v2()).status ?? '').length > 0).toBe(true);
    git('commit', '-q', '-m', 'second');
    const second = parseGitStatus(v2());
    expect(second).toEqual({ commit: git('rev-parse', 'HEAD'), status: '' });
    expect(second.commit).not.toBe(clean.commit);
  });

  it('no output (git missing or not a repository) and a header that is not an object id give no commit', () => {
    expect(parseGitStatus(null)).toEqual({ commit: null, status: null });
    expect(parseGitStatus('# branch.oid (initial)\n# branch.head main')).toEqual({ commit: null, status: null });
    expect(parseGitStatus('1 .M N... 100644 100644 100644 abc abc a.txt')).toEqual({ commit: null, status: null });
  });
});
