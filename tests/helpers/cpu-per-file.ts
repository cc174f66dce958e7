import { appendFileSync, readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { fromRoot } from '../../harness/core/paths.ts';

/**
 * Measures the CPU each test file costs (set as a setup file when TOOLGAUGE_TEST_CPU names a JSONL file; see
 * docs/benchmarks.md). A worker runs one file at a time, so the change in the worker's own CPU and its reaped
 * children's (the processes a test spawns and waits for, and theirs) between the file's first and last hook is that
 * file's cost, from this setup file's evaluation (before the test file is imported) to the file's last afterAll.
 * Vitest's main process (transforms, reporting) and worker start-up are in no file's figure.
 */

const TICKS_PER_SECOND = 100;

interface Cpu {
  self: number;
  children: number;
}

/** utime+stime and cutime+cstime of this process, in seconds (/proc/self/stat fields 14–17). */
function cpuNow(): Cpu {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  // The command name (field 2) may hold spaces and parentheses: the fields after it follow the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const tick = (i: number) => Number(fields[i - 3]) / TICKS_PER_SECOND;
  return { self: tick(14) + tick(15), children: tick(16) + tick(17) };
}

const out = process.env.TOOLGAUGE_TEST_CPU;
if (out) {
  // Vitest evaluates setup files again before each test file, also in a worker that is not isolated.
  const start = cpuNow();
  let file = '';
  beforeAll(() => {
    file = relative(fromRoot(), expect.getState().testPath ?? '');
  });
  afterAll(() => {
    const end = cpuNow();
    const self = end.self - start.self;
    const children = end.children - start.children;
    // The worker's pid: which files shared a worker, and how many workers a run started.
    const line = {
      file,
      cpuS: round(self + children),
      selfS: round(self),
      childrenS: round(children),
      pid: process.pid,
    };
    appendFileSync(out, `${JSON.stringify(line)}\n`);
  });
}

function round(s: number): number {
  return Math.round(s * 100) / 100;
}
