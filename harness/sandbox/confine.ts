// OS-level confinement of sandbox workers, as far as the host allows it.
//
// As root on Linux (here and in CI) every worker gets
//   - its own network namespace with no interface up (Node 20's permission model does not cover the network);
//   - its own PID namespace, where it is process 1: it sees no process of the host, cannot address one by pid,
//     and no signal sent from inside the namespace can end it; its children die with it;
//   - its own uid and gid, 0x7F000000 + the pid of the launcher (unique among live processes on the host), with
//     no supplementary groups, no capabilities and no new privileges: it can signal nothing but itself, and
//     owns no file;
//   - death with the host (PDEATHSIG=KILL at each step).
// With `privateProc`, the PID namespace also gets a mount namespace of its own with a fresh /proc mounted in it
// (`unshare --mount-proc`): /proc then lists only the worker's own processes, not the host's.
// Without root, an unprivileged user namespace gives the network and PID namespaces (uid unchanged outside).
// Where neither works (another OS, or confinement turned off: TOOLGAUGE_SANDBOX_CONFINE=0 for a run) workers run as the invoking user and only the
// in-process layers stay: say so to users (`layers` is empty).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

export interface Confinement {
  prefix: string[];
  /** What the prefix provides, for reports: e.g. ['netns', 'pidns', 'uid']. */
  layers: string[];
  /** The launched process forks once: the worker is its only child (a PID namespace needs that). */
  forks: boolean;
}

/** First uid/gid of the per-worker range; the launcher's pid is added (pids stay below 2^22). */
export const WORKER_UID_BASE = 0x7f000000;

// Absolute paths: workers start with an empty environment (no PATH).
const bin = (name: string) =>
  ['/usr/bin', '/bin', '/usr/sbin', '/sbin'].map((d) => `${d}/${name}`).find((p) => existsSync(p));

const NONE: Confinement = { prefix: [], layers: [], forks: false };

function candidates(privateProc: boolean): Confinement[] {
  const sh = bin('sh');
  const setpriv = bin('setpriv');
  const unshare = bin('unshare');
  if (!sh || !setpriv || !unshare) return [];
  const drop = `${setpriv} --no-new-privs --inh-caps=-all --bounding-set=-all --pdeathsig=KILL`;
  // `$$` is the shell's pid, which stays the launcher's pid through the `exec`s: unique while the worker lives.
  const id = `$((${WORKER_UID_BASE}+$$))`;
  const asWorker = `${setpriv} --reuid=${id} --regid=${id} --clear-groups --no-new-privs --inh-caps=-all --bounding-set=-all --pdeathsig=KILL`;
  const script = (chain: string) => [sh, '-c', `exec ${chain} -- "$@"`, 'sh'];
  const root = process.getuid?.() === 0;
  // The pidns candidates: with a private /proc when asked (its layers say so), else the host's /proc.
  const pidns = privateProc ? '-p -m --mount-proc' : '-p';
  const procLayers = privateProc ? ['mountns', 'proc'] : [];
  const list: Confinement[] = [];
  if (root) {
    list.push(
      {
        prefix: script(`${setpriv} --pdeathsig=KILL -- ${unshare} -n ${pidns} --fork --kill-child -- ${asWorker}`),
        layers: ['netns', 'pidns', ...procLayers, 'uid'],
        forks: true,
      },
      { prefix: script(`${unshare} -n -- ${asWorker}`), layers: ['netns', 'uid'], forks: false },
      { prefix: script(asWorker), layers: ['uid'], forks: false },
    );
  }
  list.push({
    prefix: script(`${setpriv} --pdeathsig=KILL -- ${unshare} -U -n ${pidns} --fork --kill-child -- ${drop}`),
    layers: ['userns', 'netns', 'pidns', ...procLayers],
    forks: true,
  });
  return list;
}

export interface ConfineOptions {
  /** A mount namespace with a /proc of the worker's own PID namespace (where the host allows it). */
  privateProc?: boolean;
  /** false: no OS confinement (debugging; a run sets it from TOOLGAUGE_SANDBOX_CONFINE=0 at its edge). Default true. */
  enabled?: boolean;
}

const cached = new Map<boolean, Confinement>();

/** The confinement prefix for worker command lines; `enabled: false` turns it off. */
export function confinement(opts: ConfineOptions = {}): Confinement {
  if (opts.enabled === false || process.platform !== 'linux') return NONE;
  const privateProc = opts.privateProc === true;
  let c = cached.get(privateProc);
  if (!c) {
    // Where a private /proc cannot be mounted, the usual layers still apply.
    const list = privateProc
      ? [...candidates(true).filter((x) => x.layers.includes('proc')), ...candidates(false)]
      : candidates(false);
    c = list.find((x) => works(x)) ?? NONE;
    cached.set(privateProc, c);
  }
  return c;
}

function works(c: Confinement): boolean {
  const [cmd, ...args] = c.prefix;
  try {
    const r = spawnSync(cmd!, [...args, bin('true') ?? '/bin/true'], { stdio: 'ignore', timeout: 5000, env: {} });
    return r.status === 0;
  } catch {
    return false;
  }
}

/** Turn a command into its confined form. */
export function confined(
  file: string,
  args: string[],
  opts: ConfineOptions = {},
): { file: string; args: string[]; forks: boolean } {
  const { prefix, forks } = confinement(opts);
  if (prefix.length === 0) return { file, args, forks: false };
  return { file: prefix[0]!, args: [...prefix.slice(1), file, ...args], forks };
}
