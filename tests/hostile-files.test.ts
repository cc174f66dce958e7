import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeFileAtomic } from '../harness/core/jsonl.ts';
import { FileRefused, readTextChecked } from '../harness/core/nofollow.ts';
import { GGUF_LIMITS, ggufFacts, readGgufHeader, readGgufHeaderFromBytes } from '../harness/engine/gguf/reader.ts';
import { acquireDirLock, LOCK_FILE, releaseDirLock } from '../harness/kit/lock.ts';
import { judgeAttempt } from '../harness/maze/batch.ts';
import { readLog } from '../harness/optimize/log.ts';
import { loadRunDir } from '../harness/view/load.ts';
import { inProcess } from './helpers/cli.ts';

/**
 * What toolgauge does with a FIFO, a device node, a folder or a link where it expects a file it reads or writes
 * (traces/, the journal, the lock, summary.json, run.json, --export's target, a GGUF): one line and exit 2, or a
 * problem in the viewer's page, never a hang, a stack, a replaced device, or a byte from outside the run folder.
 */

const root = mkdtempSync(join(tmpdir(), 'tg-hostile-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const fresh = (name: string) => {
  const d = join(root, `${name}-${n++}`);
  mkdirSync(d, { recursive: true });
  return d;
};

// Every FIFO under the test's folder gets a writer that opens and closes it whenever a reader waits on it: a reader
// that blocks on the open (the bug) is released at once and reads nothing, so a regression fails its assertions
// instead of hanging the worker (a blocked openSync stops the test's timers too). Fixed code never waits on it.
const RELEASER = `const fs = require('node:fs'), path = require('node:path');
const walk = (d) => { for (const e of fs.readdirSync(d, { withFileTypes: true })) { const f = path.join(d, e.name);
  if (e.isFIFO()) { try { fs.closeSync(fs.openSync(f, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK)); } catch {} }
  else if (e.isDirectory()) walk(f); } };
setInterval(() => { try { walk(process.argv[1]); } catch {} }, 50);`;
const releaser: ChildProcess = spawn(process.execPath, ['-e', RELEASER, root], { stdio: 'ignore' });
afterAll(() => {
  releaser.kill('SIGKILL');
});
function fifo(path: string): string {
  execFileSync('mkfifo', [path]);
  return path;
}

const isRoot = process.getuid?.() === 0;
/** A character device (the null device's numbers) made in the test's own folder: never the system's /dev/null. */
function device(path: string): string {
  execFileSync('mknod', [path, 'c', '1', '3']);
  return path;
}

const summary = {
  schema: 'toolgauge.summary/1',
  suite: 'unitEval',
  notice: 'SIMULATOR RUN',
  header: {
    toolgauge_version: '0.1.0',
    git_commit: null,
    git_dirty: null,
    node: 'v20',
    os: 'linux',
    cpu: 'cpu',
    cpus: 2,
    ram_gib: 1,
    endpoint: 'built-in simulator',
    model: 'sim:oracle',
    simulated: true,
    generation: { temperature: 0 },
    dataset: { file: 'd.json', sha256: 'a'.repeat(64) },
    template_sha256: null,
    injected_date: '2026-01-01',
    seed: 0,
    trials: 1,
    started_at: 't0',
    ended_at: 't1',
  },
  config: { scorers: ['exact'] },
  counts: { instances: 1 },
  metrics: {},
  breakdowns: {},
  errors: [],
  extra: {},
  gate: null,
};
const meta = (id: string, trace: string) =>
  JSON.stringify({
    suite: 'unitEval',
    id,
    trial: 0,
    error: null,
    pass: true,
    reason: null,
    scores: { exact: 1 },
    tags: {},
    trace,
  });

/** A run folder the viewer and `report` accept, its cases' traces named by the journal. */
function runDir(name: string, traces: string[] = []): string {
  const dir = fresh(name);
  writeFileSync(join(dir, 'summary.json'), JSON.stringify(summary));
  writeFileSync(join(dir, 'instances.jsonl'), traces.map((t, i) => meta(`c${i}`, t) + '\n').join(''));
  return dir;
}

/** exit 2, one line naming `path` (no stack). */
function oneLine(r: { code: number; stdout: string; stderr: string }, path: string, what: RegExp): void {
  expect(r.code, r.stdout + r.stderr).toBe(2);
  expect(r.stderr.trim().split('\n'), r.stderr).toHaveLength(1);
  expect(r.stderr).toContain(path);
  expect(r.stderr).toMatch(what);
  expect(r.stderr).not.toMatch(/\n\s+at /);
}

describe('the viewer reads nothing outside the run folder', () => {
  it('with traces/ a link to another folder, neither a credentials file nor a trace-shaped JSON file there is shown', async () => {
    const outside = fresh('outside');
    writeFileSync(join(outside, 'credentials'), 'aws_secret_access_key = SECRET-CREDENTIAL-BYTES\n');
    writeFileSync(
      join(outside, 'trace.json'),
      JSON.stringify({ input: 'SECRET-TRACE-INPUT', output: 'SECRET-TRACE-OUTPUT', scores: { exact: 1 } }),
    );
    const dir = runDir('leak', ['traces/credentials', 'traces/trace.json']);
    symlinkSync(outside, join(dir, 'traces'));
    const run = loadRunDir(dir);
    expect(run.problems).toEqual(
      expect.arrayContaining([
        {
          file: join(dir, 'traces', 'credentials'),
          message: `${join(dir, 'traces')} is a symbolic link: toolgauge does not read through links`,
        },
      ]),
    );
    const html = join(fresh('export'), 'page.html');
    const r = await inProcess(['view', dir, '--export', html], {});
    expect(r.code, r.stderr).toBe(0);
    const page = readFileSync(html, 'utf8');
    expect(page).not.toContain('SECRET');
    expect(page).toContain('is a symbolic link');
  });

  it('a FIFO, a device or a folder as a trace or as the journal is a problem in the page, read without blocking', async () => {
    const dir = runDir('kinds', ['traces/fifo.json', 'traces/folder.json', ...(isRoot ? ['traces/dev.json'] : [])]);
    mkdirSync(join(dir, 'traces'));
    fifo(join(dir, 'traces', 'fifo.json'));
    mkdirSync(join(dir, 'traces', 'folder.json'));
    if (isRoot) device(join(dir, 'traces', 'dev.json'));
    const run = loadRunDir(dir);
    const message = (f: string) => run.problems.find((p) => p.file === join(dir, 'traces', f))?.message;
    expect(message('fifo.json')).toBe(
      'is a FIFO (named pipe), not a regular file: toolgauge does not read or write it',
    );
    expect(message('folder.json')).toBe('is a folder, not a regular file: toolgauge does not read or write it');
    if (isRoot)
      expect(message('dev.json')).toBe('is a device, not a regular file: toolgauge does not read or write it');

    const journalFifo = runDir('journal-fifo');
    rmSync(join(journalFifo, 'instances.jsonl'));
    fifo(join(journalFifo, 'instances.jsonl'));
    const html = join(fresh('export'), 'page.html');
    const r = await inProcess(['view', journalFifo, '--export', html], {});
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(html, 'utf8')).toContain('is a FIFO (named pipe)');
  });

  it("the page's trace budget: past it a trace is left out and a problem says so", () => {
    const dir = runDir('budget', ['traces/a.json', 'traces/b.json']);
    mkdirSync(join(dir, 'traces'));
    const trace = JSON.stringify({ input: 'x'.repeat(1000), output: 'y' });
    writeFileSync(join(dir, 'traces', 'a.json'), trace);
    writeFileSync(join(dir, 'traces', 'b.json'), trace);
    const run = loadRunDir(dir, { left: 1500 });
    expect(run.problems.filter((p) => p.message.startsWith('left out'))).toEqual([
      {
        file: join(dir, 'traces', 'b.json'),
        message: `left out: ${trace.length} bytes, and the page's budget of 134217728 bytes for trace files has ${1500 - trace.length} left`,
      },
    ]);
  });
});

describe('toolgauge report on a run folder with a non-file where a file is expected: one line, exit 2', () => {
  it('summary.json as a FIFO, a folder, a device node (root only) or a link', async () => {
    const kinds: Array<[string, (p: string) => void, RegExp]> = [
      ['fifo', (p) => fifo(p), /is a FIFO \(named pipe\), not a regular file/],
      ['folder', (p) => mkdirSync(p), /is a folder, not a regular file/],
      ['link', (p) => symlinkSync(join(runDir('elsewhere'), 'summary.json'), p), /is a symbolic link/],
      ...(isRoot
        ? [
            ['device', (p: string) => device(p), /is a device, not a regular file/] as [
              string,
              (p: string) => void,
              RegExp,
            ],
          ]
        : []),
    ];
    for (const [kind, plant, what] of kinds) {
      const dir = runDir(`summary-${kind}`);
      rmSync(join(dir, 'summary.json'));
      plant(join(dir, 'summary.json'));
      oneLine(await inProcess(['report', dir], {}), join(dir, 'summary.json'), what);
    }
  });
  it.skipIf(isRoot)('(skipped: a device node needs root to be made, so that case runs only as root)', () => {});

  it('the journal as a FIFO or a folder', async () => {
    for (const [kind, plant, what] of [
      ['fifo', (p: string) => fifo(p), /is a FIFO/],
      ['folder', (p: string) => mkdirSync(p), /is a folder/],
    ] as const) {
      const dir = runDir(`journal-${kind}`);
      rmSync(join(dir, 'instances.jsonl'));
      plant(join(dir, 'instances.jsonl'));
      oneLine(await inProcess(['report', dir], {}), join(dir, 'instances.jsonl'), what);
    }
  });

  it('the lock as a FIFO or a folder: refused, never moved aside nor waited on', async () => {
    for (const [kind, plant, what] of [
      ['fifo', (p: string) => fifo(p), /is a FIFO \(named pipe\), not a lock file toolgauge wrote/],
      ['folder', (p: string) => mkdirSync(p), /is a folder, not a lock file toolgauge wrote/],
    ] as const) {
      const dir = runDir(`lock-${kind}`);
      plant(join(dir, LOCK_FILE));
      const before = readdirSync(dir).sort();
      oneLine(await inProcess(['report', dir], {}), join(dir, LOCK_FILE), what);
      expect(readdirSync(dir).sort(), kind).toEqual(before);
    }
  });
});

describe('the lock', () => {
  it('a folder planted as the lock: the run is refused in one line and the folder is left where it is', () => {
    const dir = fresh('lock-dir');
    mkdirSync(join(dir, LOCK_FILE));
    writeFileSync(join(dir, LOCK_FILE, 'inside'), 'x');
    expect(() => acquireDirLock(dir, 'run-1')).toThrow(
      `${join(dir, LOCK_FILE)} is a folder, not a lock file toolgauge wrote: remove it, or choose another output directory`,
    );
    expect(readdirSync(dir)).toEqual([LOCK_FILE]);
    expect(readFileSync(join(dir, LOCK_FILE, 'inside'), 'utf8')).toBe('x');
    expect(() => releaseDirLock(dir, 'run-1')).not.toThrow();
  });
});

describe('writes replace only a regular file', () => {
  it('--export onto a FIFO, a folder, a link or a device node (root only): one line, exit 2, the thing left as it was', async () => {
    const dir = runDir('export-src');
    const out = fresh('export-targets');
    const victim = join(out, 'victim.html');
    writeFileSync(victim, 'keep');
    const kinds: Array<[string, (p: string) => void, (p: string) => boolean, RegExp]> = [
      ['fifo', (p) => fifo(p), (p) => lstatSync(p).isFIFO(), /is a FIFO/],
      ['folder', (p) => mkdirSync(p), (p) => lstatSync(p).isDirectory(), /is a folder/],
      ['link', (p) => symlinkSync(victim, p), (p) => lstatSync(p).isSymbolicLink(), /is a symbolic link/],
      ...(isRoot
        ? [
            ['device', (p: string) => device(p), (p: string) => lstatSync(p).isCharacterDevice(), /is a device/] as [
              string,
              (p: string) => void,
              (p: string) => boolean,
              RegExp,
            ],
          ]
        : []),
    ];
    for (const [kind, plant, still, what] of kinds) {
      const target = join(out, `${kind}.html`);
      plant(target);
      oneLine(await inProcess(['view', dir, '--export', target], {}), target, what);
      expect(still(target), kind).toBe(true);
    }
    expect(readFileSync(victim, 'utf8')).toBe('keep');
    expect(readdirSync(out).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it.skipIf(!isRoot)('writeFileAtomic onto a device node is refused; the node stays a device (root only)', () => {
    const dev = device(join(fresh('dev'), 'null'));
    expect(() => writeFileAtomic(dev, 'x')).toThrow(
      /null is a device, not a regular file: toolgauge does not replace it/,
    );
    expect(lstatSync(dev).isCharacterDevice()).toBe(true);
  });

  it('make-test-model onto a FIFO is refused in one line, the FIFO left in place', async () => {
    const target = fifo(join(fresh('mtm'), 'model.gguf'));
    oneLine(await inProcess(['make-test-model', target], {}), target, /is a FIFO/);
    expect(lstatSync(target).isFIFO()).toBe(true);
  });
});

describe('a GGUF', () => {
  it('a FIFO, a folder or a device node (root only) as the model file: a one-line DataError, no wait', async () => {
    const d = fresh('gguf');
    const paths = [
      fifo(join(d, 'fifo.gguf')),
      join(d, 'folder.gguf'),
      ...(isRoot ? [device(join(d, 'dev.gguf'))] : []),
    ];
    mkdirSync(paths[1]!);
    for (const p of paths) {
      expect(() => readGgufHeader(p), p).toThrow(
        /^.*\.gguf: is a (FIFO \(named pipe\)|folder|device), not a regular file/,
      );
      await expect(ggufFacts(p), p).rejects.toThrow(/not a regular file/);
    }
  });

  it("bounds what the header's arrays allocate in all, not only each array", () => {
    // Two u8 arrays, each under the per-array cap, together over the header's: refused before the second is built.
    const each = GGUF_LIMITS.headerArrayItems / 2 + 1;
    const kv = (key: string) => {
      const head = Buffer.alloc(8 + key.length + 4 + 4 + 8);
      let at = head.writeBigUInt64LE(BigInt(key.length), 0);
      at += head.write(key, at);
      at = head.writeUInt32LE(9, at); // array
      at = head.writeUInt32LE(0, at); // of u8
      head.writeBigUInt64LE(BigInt(each), at);
      return Buffer.concat([head, Buffer.alloc(each)]);
    };
    const start = Buffer.alloc(24);
    start.writeUInt32LE(0x46554747, 0);
    start.writeUInt32LE(3, 4);
    start.writeBigUInt64LE(0n, 8);
    start.writeBigUInt64LE(2n, 16);
    const bytes = Buffer.concat([start, kv('a'), kv('b')]);
    expect(() => readGgufHeaderFromBytes(bytes, 'crafted.gguf')).toThrow(
      `crafted.gguf: field b: array length ${each}: the header's arrays would hold over ${GGUF_LIMITS.headerArrayItems} items in all`,
    );
  });
});

describe('the checked reader', () => {
  it('refuses a folder on the way that is a link, even when the file itself is plain', () => {
    const outside = fresh('outside-2');
    writeFileSync(join(outside, 'run.json'), '{"suites":{}}');
    const dir = fresh('linked-sub');
    symlinkSync(outside, join(dir, 'sub'));
    expect(() => readTextChecked(join(dir, 'sub', 'run.json'), { root: dir })).toThrow(
      `${join(dir, 'sub')} is a symbolic link`,
    );
    // The folder the user named may itself be a link: it is theirs.
    const named = join(fresh('named'), 'run');
    symlinkSync(outside, named);
    expect(readTextChecked(join(named, 'run.json'), { root: named })).toBe('{"suites":{}}');
    expect(existsSync(join(dir, 'missing', 'x'))).toBe(false);
    expect(readTextChecked(join(dir, 'missing', 'x'), { root: dir })).toBeNull();
  });
});

describe('the other readers of folders a run writes', () => {
  it("the optimizer's log as a FIFO or a folder on --resume: refused in one error, never read, truncated or waited on", () => {
    const dir = fresh('optimize');
    const log = fifo(join(dir, 'log.jsonl'));
    expect(() => readLog(log)).toThrow(FileRefused);
    expect(statSync(log).isFIFO()).toBe(true);
    mkdirSync(join(dir, 'as-folder.jsonl'));
    expect(() => readLog(join(dir, 'as-folder.jsonl'))).toThrow(FileRefused);
  });

  it("a Maze batch's summary.json as a FIFO: that model's run is reported as refused, not waited on", () => {
    const dir = fresh('maze-batch');
    fifo(join(dir, 'summary.json'));
    const verdict = judgeAttempt(dir, 0, null);
    expect(verdict.ok).toBe(false);
    expect(verdict.reason).toMatch(/summary\.json is a FIFO \(named pipe\), not a regular file/);
  });
});
