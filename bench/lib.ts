import { mkdirSync, readdirSync, readFileSync, rmdirSync } from 'node:fs';
import { execa } from 'execa';
import { fromRoot } from '../harness/core/paths.ts';

/**
 * Memory (MiB) of a process and all its descendants right now, from /proc: `rss` sums each process's resident set, so
 * a page several processes share (Node's own code, in every Node process) counts once per process; `pss` gives each
 * process its proportional share of such pages, so the sum counts every page once (the tree's real footprint).
 */
export function treeMemoryMb(root: number, withPss = true): { rss: number; pss: number } {
  const children = new Map<number, number[]>();
  const rss = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const status = readFileSync(`/proc/${name}/status`, 'utf8');
      const ppid = Number(/PPid:\s+(\d+)/.exec(status)?.[1] ?? 0);
      rss.set(Number(name), Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0));
      children.set(ppid, [...(children.get(ppid) ?? []), Number(name)]);
    } catch {
      // the process ended while we looked
    }
  }
  let rssKb = 0;
  let pssKb = 0;
  const stack = [root];
  while (stack.length) {
    const pid = stack.pop()!;
    rssKb += rss.get(pid) ?? 0;
    if (withPss)
      try {
        pssKb += Number(/^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1] ?? 0);
      } catch {
        // ended, or a kernel without smaps_rollup: its share is not counted
      }
    stack.push(...(children.get(pid) ?? []));
  }
  return { rss: rssKb / 1024, pss: pssKb / 1024 };
}

/** Resident set size (MiB) of a process and all its descendants right now (each process's RSS, summed). */
export function treeRssMb(root: number): number {
  return treeMemoryMb(root, false).rss;
}

export interface TimedRun {
  code: number;
  wallMs: number;
  peakTreeRssMb: number;
  stdout: string;
}

/** Run `toolgauge ARGS`, sampling the whole process tree's RSS every 50 ms (and its CPU where a cgroup allows). */
export async function timedToolgauge(args: string[], env: Record<string, string>): Promise<TimedRun> {
  const r = await accountedRun(
    fromRoot('bin', 'toolgauge.mjs'),
    [...args],
    { ...env, FORCE_COLOR: '0' },
    process.cwd(),
  );
  return { code: r.code, wallMs: r.wallMs, peakTreeRssMb: r.peakTreeRssMb, stdout: r.stdout };
}

export function quantiles(xs: number[]): { n: number; median: number; p95: number } {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? NaN;
  return { n: s.length, median: at(0.5), p95: at(0.95) };
}

export const round = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d;

/**
 * CPU seconds of a command and of every process it starts — the sandbox workers included, even those that exit
 * after the main process — from a cgroup-v1 cpuacct group (needs root and /sys/fs/cgroup/cpuacct); `cpuS` is null
 * where that is not available.
 */
export async function accountedRun(
  cmd: string,
  args: string[],
  env: Record<string, string>,
  cwd: string,
): Promise<{
  code: number;
  wallMs: number;
  cpuS: number | null;
  peakTreeRssMb: number;
  peakTreePssMb: number;
  stdout: string;
  stderr: string;
}> {
  const group = `/sys/fs/cgroup/cpuacct/toolgauge-bench-${process.pid}-${++groups}`;
  let accounted = true;
  try {
    mkdirSync(group);
  } catch {
    accounted = false;
  }
  const t0 = performance.now();
  // The shell joins the group, then becomes the command: everything it starts is counted.
  const child = accounted
    ? execa('sh', ['-c', 'echo $$ > "$0/cgroup.procs" && exec "$@"', group, cmd, ...args], { env, reject: false, cwd })
    : execa(cmd, args, { env, reject: false, cwd });
  let peak = 0;
  let peakPss = 0;
  let samples = 0;
  // RSS every 50 ms; PSS every 250 ms: reading it walks each process's page tables (about 8 ms of CPU for a run's
  // tree), which at every sample took a sixth of a core from the run being measured.
  const timer = setInterval(() => {
    if (!child.pid) return;
    const m = treeMemoryMb(child.pid, samples++ % 5 === 0);
    peak = Math.max(peak, m.rss);
    peakPss = Math.max(peakPss, m.pss);
  }, 50);
  const r = await child;
  clearInterval(timer);
  const wallMs = performance.now() - t0;
  let cpuS: number | null = null;
  if (accounted) {
    // Wait (up to 15 s) for the processes that outlive the command, then read the group's total.
    for (let i = 0; i < 300 && readFileSync(`${group}/cgroup.procs`, 'utf8').trim() !== ''; i++)
      await new Promise((res) => setTimeout(res, 50));
    cpuS = Number(readFileSync(`${group}/cpuacct.usage`, 'utf8')) / 1e9;
    try {
      rmdirSync(group);
    } catch {
      // a process is still in it; the group stays behind, harmless
    }
  }
  return {
    code: r.exitCode ?? -1,
    wallMs,
    cpuS,
    peakTreeRssMb: Math.round(peak),
    peakTreePssMb: Math.round(peakPss),
    stdout: String(r.stdout),
    stderr: String(r.stderr),
  };
}
let groups = 0;
