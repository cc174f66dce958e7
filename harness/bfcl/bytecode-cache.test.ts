// The host's bytecode folder for BFCL's class files, with real CPython: a worker keeps what it compiled there, the
// next worker runs it, and bytecode that CPython's own checks reject (its source changed) or that lies in a folder
// others may write is not run. Planted bytecode is made by CPython's py_compile and checked by CPython itself.
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../tests/helpers/temp-dirs.ts';
import { bytecodeFolder, keepBytecode } from './bytecode-cache.ts';
import { PythonBfclExecutor } from './executor.ts';
import { referencePython } from './testkit.ts';

const TOY = fileURLToPath(new URL('../../fixtures/bfcl/classes', import.meta.url));
const work = tempDir('bfcl-bytecode');
// The confined worker runs as a uid of its own: the class folder must be readable to others (the cache need not be).
chmodSync(work, 0o755);
afterAll(() => rmSync(work, { recursive: true, force: true }));
const python = referencePython();
const py = (code: string, ...args: string[]) =>
  execFileSync(python, ['-c', code, ...args], { encoding: 'utf8' }).trim();

/** What `close_ticket(ticket_id=9)` answers in a fresh instance of the class folder, run by a worker of its own. */
async function closeMissing(sourceDir: string, bytecodeRoot: string): Promise<string> {
  const exec = new PythonBfclExecutor({ sourceDir, bytecodeRoot });
  try {
    const h = await exec.start({
      classes: ['TicketAPI'],
      initialConfigJson: '{}',
      longContext: false,
      label: 'm',
      functions: ['close_ticket'],
    });
    return (await exec.call(h, ['close_ticket(ticket_id=9)']))[0]!;
  } finally {
    await exec.dispose();
  }
}

/** Whether CPython takes `pyc` as the current bytecode of `source` (magic number, source mtime and size). */
const freshFor = (pyc: string, source: string) =>
  py(
    'import importlib.util, os, struct, sys\n' +
      'd = open(sys.argv[1], "rb").read(); st = os.stat(sys.argv[2])\n' +
      'print(d[:4] == importlib.util.MAGIC_NUMBER and struct.unpack("<III", d[4:16]) == (0, int(st.st_mtime) & 0xFFFFFFFF, st.st_size))',
    pyc,
    source,
  ) === 'True';

/** A copy of the toy class folder and an empty cache root of the user's (mode 700). */
function fresh(name: string): { src: string; root: string; source: string } {
  const src = join(work, name, 'classes');
  const root = join(work, name, 'cache');
  cpSync(TOY, src, { recursive: true });
  mkdirSync(root, { mode: 0o700 });
  return { src, root, source: join(src, 'ticket_api.py') };
}

/** Bytecode of the same-length variant `NOT FOUND` of the source, with the source's own mtime and size (py_compile). */
function plantedFor(source: string, out: string): void {
  const variant = join(work, `variant-${Math.random().toString(36).slice(2)}`);
  mkdirSync(variant);
  const copy = join(variant, 'ticket_api.py');
  writeFileSync(copy, readFileSync(source, 'utf8').replaceAll('not found', 'NOT FOUND'));
  const st = statSync(source);
  utimesSync(copy, st.atime, st.mtime);
  py('import py_compile, sys; py_compile.compile(sys.argv[1], cfile=sys.argv[2], doraise=True)', copy, out);
}

describe("the host's bytecode folder for BFCL's class files", () => {
  it('a worker keeps what it compiled; the next worker runs that bytecode; stale bytecode is not run and is replaced', {
    timeout: 60_000,
  }, async () => {
    const { src, root, source } = fresh('kept');
    expect(await closeMissing(src, root)).toContain('Ticket 9 not found.');
    const [folder] = readdirSync(root);
    const pyc = join(root, folder!, `ticket_api.${py('import sys; print(sys.implementation.cache_tag)')}.pyc`);
    expect(freshFor(pyc, source)).toBe(true);

    // Bytecode that differs from the source but carries its mtime and size: only a worker that reads the folder
    // answers with it.
    plantedFor(source, pyc);
    expect(await closeMissing(src, root)).toContain('Ticket 9 NOT FOUND.');

    // The source changes (a later mtime): CPython's check rejects the bytecode, the source runs, and the folder gets
    // the new bytecode.
    const later = new Date(statSync(source).mtimeMs + 10_000);
    utimesSync(source, later, later);
    expect(freshFor(pyc, source)).toBe(false);
    expect(await closeMissing(src, root)).toContain('Ticket 9 not found.');
    expect(freshFor(pyc, source)).toBe(true);
  });

  it('a root others may write is not used (nothing is read from it or written to it)', () => {
    const { src, root } = fresh('open');
    const trusted = bytecodeFolder(root, src);
    expect(trusted).toBeDefined();
    chmodSync(root, 0o777);
    expect(bytecodeFolder(root, src)).toBeUndefined();
    chmodSync(root, 0o700);
    chmodSync(trusted!, 0o755);
    expect(bytecodeFolder(root, src)).toBeUndefined();
  });

  it('keeps only plain bytecode file names from the worker (no path leaves the folder)', () => {
    const { src, root } = fresh('names');
    const dir = bytecodeFolder(root, src)!;
    const data = Buffer.from('x').toString('base64');
    keepBytecode(dir, { '../escape.cpython-311.pyc': data, 'a/b.cpython-311.pyc': data, 'ok.cpython-311.pyc': data });
    expect(readdirSync(dir)).toEqual(['ok.cpython-311.pyc']);
    expect(readdirSync(join(root, '..'))).toEqual(expect.not.arrayContaining(['escape.cpython-311.pyc']));
  });
});
