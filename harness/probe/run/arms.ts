/**
 * The axes of a probe run as instance dimensions: every case runs once per arm (decode × method × model), so arms
 * are compared on the same cases. The first value of each axis is the reference (free decoding, the baseline
 * method, the first model): headline numbers are the reference arm's, the other arms are compared with it.
 *
 * Names: only the axes with more than one value appear in an instance id (`c3_x|decode=constrained`) and a test
 * name (`probe › C3 › c3_x › decode=constrained`), so a run without axes keeps its ids and names. Pure.
 */
import type { RunConfig } from '../../core/config.ts';
import { UsageError } from '../../core/errors.ts';
import { constraintFor, type Server } from '../../constrain/requests.ts';
import type { Family } from '../../parse/index.ts';
import type { ProbeCase } from '../cases/types.ts';
import type { Decode, ModelEntry, ProbeSettings } from './env.ts';

export interface Arm {
  decode: Decode;
  /** A method's name (`baseline`, `pa_tool`, …). */
  method: string;
  /** The model's label. */
  model: string;
}

export const AXES = ['decode', 'method', 'model'] as const;
export type Axis = (typeof AXES)[number];

export interface ProbeInstance {
  /** The case id, with the arm appended when the run has axes. */
  id: string;
  case: ProbeCase;
  arm: Arm;
}

export function axisValues(s: Pick<ProbeSettings, 'decode' | 'methods' | 'models'>): Record<Axis, string[]> {
  return { decode: [...s.decode], method: [...s.methods], model: s.models.map((m) => m.label) };
}

/** Every arm, models outermost, decode innermost (so a case's paired arms sit together). */
export function armsOf(s: Pick<ProbeSettings, 'decode' | 'methods' | 'models'>): Arm[] {
  const out: Arm[] = [];
  for (const m of s.models)
    for (const method of s.methods) for (const decode of s.decode) out.push({ decode, method, model: m.label });
  return out;
}

/** The axes with more than one value. */
export function varyingAxes(s: Pick<ProbeSettings, 'decode' | 'methods' | 'models'>): Axis[] {
  const v = axisValues(s);
  return AXES.filter((a) => v[a].length > 1);
}

/** `decode=constrained|model=x` over the given axes ('' when none). */
export function armSuffix(arm: Arm, axes: readonly Axis[], sep = '|'): string {
  return axes.map((a) => `${a}=${arm[a]}`).join(sep);
}

/** The full key of an arm (every axis), as records store it. */
export const armKey = (arm: Arm): string => armSuffix(arm, AXES);

export function instancesOf(
  cases: readonly ProbeCase[],
  s: Pick<ProbeSettings, 'decode' | 'methods' | 'models'>,
): ProbeInstance[] {
  const arms = armsOf(s);
  const axes = varyingAxes(s);
  return cases.flatMap((c) =>
    arms.map((arm) => ({ id: axes.length ? `${c.id}|${armSuffix(arm, axes)}` : c.id, case: c, arm })),
  );
}

export function instanceTestName(i: ProbeInstance, axes: readonly Axis[]): string {
  const base = `probe › ${i.case.cat} › ${i.case.id}`;
  return axes.length ? `${base} › ${armSuffix(i.arm, axes, ' › ')}` : base;
}

export function modelEntry(s: Pick<ProbeSettings, 'models'>, label: string): ModelEntry {
  const m = s.models.find((x) => x.label === label);
  if (!m) throw new Error(`probe: no model labelled '${label}' in this run`);
  return m;
}

/** Whether a model of the run is answered by the built-in simulator. */
export const onSimulator = (m: ModelEntry, run: Pick<RunConfig, 'usesSimulator'>): boolean =>
  m.baseUrl === undefined && run.usesSimulator;

/** The chat template file of a model: its lineup entry's, else the run's `--template`. */
export const templateFileOf = (m: ModelEntry, s: Pick<ProbeSettings, 'templateFile'>): string | undefined =>
  m.template ?? s.templateFile;

/**
 * The tool-call family a constraint is written in: the entry's, `--family`, the template's; on the simulator's
 * chat transport without a template, the simulated server's (toolgauge's reference Hermes template).
 */
export function familyFor(
  m: ModelEntry,
  s: Pick<ProbeSettings, 'family' | 'transport'>,
  templateFamily: Family | null,
  sim: boolean,
): Family | null {
  return (
    m.family ??
    (s.family !== 'auto' ? s.family : null) ??
    templateFamily ??
    (sim && s.transport === 'chat' ? 'hermes' : null)
  );
}

/** The simulator plays llama.cpp on completions and vLLM on chat unless told otherwise. */
export const SIMULATED_SERVER: Record<'chat' | 'completions', Server> = { chat: 'vllm', completions: 'llamacpp' };

/** The server a model's constraint is built for: the entry's, `--server`, what the CLI detected, the simulator's default. */
export function serverFor(
  m: ModelEntry,
  s: Pick<ProbeSettings, 'server' | 'endpoints' | 'transport'>,
  sim: boolean,
): Server | null {
  return (
    m.server ??
    (s.server !== 'auto' ? s.server : null) ??
    s.endpoints[m.label]?.server ??
    (sim ? SIMULATED_SERVER[s.transport] : null)
  );
}

const PROBE_TOOL = {
  name: 'probe_tool',
  parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
};

/**
 * Refuse, before any instance runs, an axis this run cannot honour: constrained decoding on a server that cannot
 * constrain this transport or family, or whose kind is unknown. One line (UsageError, exit 2).
 */
export function checkAxes(
  s: ProbeSettings,
  run: Pick<RunConfig, 'usesSimulator'>,
  templateFamily: (m: ModelEntry) => Family | null,
): void {
  for (const decode of s.decode.filter((d) => d !== 'free')) {
    for (const m of s.models) {
      const sim = onSimulator(m, run);
      const server = serverFor(m, s, sim);
      const who = s.models.length > 1 ? ` (model ${m.label})` : '';
      if (!server)
        throw new UsageError(
          `--decode ${decode}${who}: cannot tell which server this endpoint is (detection found none); pass --server vllm|sglang|llamacpp|openai`,
        );
      const c = constraintFor(server, familyFor(m, s, templateFamily(m), sim), [PROBE_TOOL], {
        transport: s.transport,
        ...(s.maxStringLength !== undefined ? { maxStringLength: s.maxStringLength } : {}),
        ...(decode === 'required' ? { required: true } : {}),
      });
      if (!c.ok) throw new UsageError(`--decode ${decode} with --server ${server}${who}: ${c.reason}`);
    }
  }
  const labels = new Set(s.models.map((m) => m.label));
  if (s.quantizationOf && s.models.length === 1 && labels.has(s.quantizationOf))
    throw new UsageError('--quantization-of names the run itself');
}
