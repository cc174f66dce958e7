// OS-level confinement of sandbox workers, where the host allows it (root on Linux, as here and in CI):
// `unshare -n` gives the worker a network namespace with no interface up (Node 20's permission model does
// not cover the network), and `setpriv` drops it to nobody with no capabilities and no new privileges, and
// kills it if the host dies. Both exec in place, so the pid the pool watches is the worker's own.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

export interface Confinement {
  prefix: string[];
  /** What the prefix provides, for reports: e.g. ['netns', 'nobody']. */
  layers: string[];
}

// Absolute paths: workers start with an empty environment (no PATH).
const bin = (name: string) => ['/usr/bin', '/bin', '/usr/sbin', '/sbin'].map((d) => `${d}/${name}`).find((p) => existsSync(p));

const SETPRIV = [
  bin('setpriv') ?? 'setpriv',
  '--reuid=65534',
  '--regid=65534',
  '--clear-groups',
  '--no-new-privs',
  '--inh-caps=-all',
  '--bounding-set=-all',
  '--pdeathsig=KILL',
  '--',
];

const UNSHARE = bin('unshare') ?? 'unshare';

let cached: Confinement | undefined;

/** The confinement prefix for worker command lines; TOOLGAUGE_SANDBOX_CONFINE=0 turns it off. */
export function confinement(): Confinement {
  if (process.env.TOOLGAUGE_SANDBOX_CONFINE === '0' || process.platform !== 'linux') return { prefix: [], layers: [] };
  if (cached) return cached;
  const candidates: Confinement[] = [
    { prefix: [UNSHARE, '-n', '--', ...SETPRIV], layers: ['netns', 'nobody'] },
    { prefix: [UNSHARE, '-n', '--'], layers: ['netns'] },
    { prefix: SETPRIV, layers: ['nobody'] },
  ];
  cached = candidates.find((c) => works(c.prefix)) ?? { prefix: [], layers: [] };
  return cached;
}

function works(prefix: string[]): boolean {
  const [cmd, ...args] = prefix;
  try {
    const r = spawnSync(cmd!, [...args, bin('true') ?? '/bin/true'], { stdio: 'ignore', timeout: 5000, env: {} });
    return r.status === 0;
  } catch {
    return false;
  }
}

/** Turn a command into its confined form. */
export function confined(file: string, args: string[]): { file: string; args: string[] } {
  const { prefix } = confinement();
  if (prefix.length === 0) return { file, args };
  return { file: prefix[0]!, args: [...prefix.slice(1), file, ...args] };
}
