import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { pathToFileURL } from 'node:url';
import { execa, type ResultPromise } from 'execa';
import { fromRoot } from '../../harness/core/paths.ts';

/** Environment for an end-to-end run: no inherited toolgauge settings, the simulator unless a test says otherwise. */
export function cleanEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined) continue;
    if (/^(TOOLGAUGE_|TOOLHOP_|OPENAI_|VITEST|NODE_OPTIONS)/.test(k) && k !== 'TOOLGAUGE_PYTHON') continue;
    env[k] = v;
  }
  return { ...env, FORCE_COLOR: '0', NO_COLOR: '1', ...extra };
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Run `toolgauge …` as a user would (a real process: real HTTP to the simulator, real sandbox), from `cwd` (default
 * the temporary folder, where nothing of the repository is found by accident).
 */
export async function toolgauge(
  args: string[],
  env: Record<string, string> = {},
  timeoutMs = 180_000,
  cwd = tmpdir(),
): Promise<CliResult> {
  const r = await execa('node', [fromRoot('bin', 'toolgauge.mjs'), ...args], {
    env: cleanEnv(env),
    extendEnv: false,
    reject: false,
    timeout: timeoutMs,
    cwd,
  });
  return { code: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) };
}

/** `toolgauge …` started in a process group of its own (for signals), from `cwd` as in `toolgauge`. */
export function spawnToolgauge(args: string[], env: Record<string, string> = {}, cwd = tmpdir()): ResultPromise {
  return execa('node', [fromRoot('bin', 'toolgauge.mjs'), ...args], {
    env: cleanEnv(env),
    extendEnv: false,
    reject: false,
    cwd,
    detached: true,
  });
}

export { tempDir } from './temp-dirs.ts';

export { countLines } from './count-lines.ts';

export function readLines<T = Record<string, unknown>>(path: string): T[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as T);
}

export function readJson<T = Record<string, unknown>>(path: string): T {
  return JSON.parse(readFileSync(path, 'utf8')) as T;
}

export const SHARED_TOOLHOP = fromRoot('..', 'shared', 'data', 'toolhop', 'ToolHop.sample.json');

/** Variables a run reads that a test must not inherit from the shell that started `npm test` (as in `cleanEnv`). */
const INHERITED_SETTING = /^(TOOLGAUGE_|TOOLHOP_|OPENAI_)/;

let bundle: Promise<string | null> | undefined;
/** The CLI bundle's folder, found (or built) once per worker as the command's launcher does (bin/cli-bundle.mjs). */
export function workerBundle(): Promise<string | null> {
  bundle ??= import(pathToFileURL(fromRoot('bin', 'cli-bundle.mjs')).href).then(
    (m: { workerBundleDir(): Promise<string | null> }) => m.workerBundleDir(),
  );
  return bundle;
}

/**
 * `toolgauge …` through its main() in this process, with `env` set for the call and stdout/stderr captured. As for a
 * spawned CLI (`cleanEnv`), toolgauge's and the OpenAI SDK's variables come from `env` only, never from the shell;
 * and as the command's launcher does, the run names the CLI bundle for this process, so a built-in suite's test
 * worker loads its modules from the bundle (harness/vitest/eval-config.ts) rather than ~200 sources through Vite.
 */
export async function inProcess(args: string[], env: Record<string, string>) {
  const { main } = await import('../../harness/cli/main.ts');
  const dir = await workerBundle();
  const saved = { ...process.env };
  const out = { stdout: '', stderr: '' };
  const write = { stdout: process.stdout.write, stderr: process.stderr.write };
  for (const k of Object.keys(process.env))
    if (INHERITED_SETTING.test(k) && k !== 'TOOLGAUGE_PYTHON') delete process.env[k];
  if (dir)
    Object.assign(process.env, { TOOLGAUGE_WORKER_BUNDLE: dir, TOOLGAUGE_WORKER_BUNDLE_PID: String(process.pid) });
  Object.assign(process.env, env);
  process.stdout.write = ((c: string) => ((out.stdout += c), true)) as typeof process.stdout.write;
  process.stderr.write = ((c: string) => ((out.stderr += c), true)) as typeof process.stderr.write;
  try {
    return { code: await main(args), ...out };
  } finally {
    process.stdout.write = write.stdout;
    process.stderr.write = write.stderr;
    for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
    Object.assign(process.env, saved);
  }
}

/** Every process below `root` (from /proc). */
export function descendants(root: number): number[] {
  const parent = new Map<number, number>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      parent.set(Number(d), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone meanwhile
    }
  }
  const out: number[] = [];
  for (let grew = true; grew; ) {
    grew = false;
    for (const [pid, pp] of parent) {
      if ((pp === root || out.includes(pp)) && !out.includes(pid)) {
        out.push(pid);
        grew = true;
      }
    }
  }
  return out;
}

export function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return '';
  }
}
