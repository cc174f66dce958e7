/**
 * The quantization damage of one case, measured on local engines: the case's gold transcript — the prompt rendered
 * with the file's own chat template and the case's tools, then the gold call in the template's call format — is
 * teacher-forced through the reference and the quantized model, and their next-token distributions compared
 * (harness/probe/axes/quant-damage.ts). The distributions come from the engine the run serves the file on when it
 * runs with the run's engine settings (docs/probe.md); else from an engine this process starts once per file.
 */
import type { RunConfig } from '../../core/config.ts';
import { engineSettingsOf, type EngineSettings } from '../../engine/defaults.ts';
import type { EngineInfo } from '../../engine/types.ts';
import { servedEngineFor, type DistributionsEngine } from '../../serve/served-engine.ts';
import { renderToolCalls, type Family } from '../../parse/index.ts';
import type { ProbeCase } from '../cases/types.ts';
import { caseDamage, type CaseDamage, type StepDistribution } from '../axes/quant-damage.ts';
import { chooseShape, detectFamily, SHAPES } from '../../templates/index.ts';
import { caseNow, renderCase } from './template.ts';

/** Full distributions (exact KL) up to this vocabulary size; above it, top-K lists (a lower bound on KL). */
export const FULL_VOCAB_LIMIT = 8192;
export const TOP_K = 64;

export interface QuantDamageRecord extends CaseDamage {
  /** The reference model's label. */
  reference: string;
}

/**
 * Where a file's distributions come from: the settings an engine of this run runs with, and the servers the run's
 * plan points at that may hold the file (the run's own endpoint, a lineup entry's).
 */
export interface EngineSource {
  settings: EngineSettings;
  served: readonly string[];
}

/** The source for a file in a run: the run's engine settings, and every server of the run that may serve the file. */
export function runEngineSource(
  path: string,
  run: Pick<RunConfig, 'model' | 'baseUrl' | 'engine'>,
  models: ReadonlyArray<{ model: string; baseUrl?: string | undefined }>,
): EngineSource {
  const served = new Set<string>();
  if (run.model === `gguf:${path}` && run.baseUrl) served.add(run.baseUrl);
  for (const m of models) if (m.model === `gguf:${path}` && m.baseUrl) served.add(m.baseUrl);
  return { settings: engineSettingsOf(run.engine), served: [...served] };
}

export interface HeldEngine {
  engine: DistributionsEngine;
  info: EngineInfo;
  /** Stops an engine this process started; absent for a server of the run's. */
  close?: () => Promise<void>;
}

const engines = new Map<string, Promise<HeldEngine>>();

/** An engine of this process's own on the file, with the run's settings (stopped at exit). */
async function startOwnEngine(path: string, settings: EngineSettings): Promise<HeldEngine> {
  const { EngineHost } = await import('../../engine/host.ts');
  const engine = new EngineHost({ modelPath: path, ...settings });
  process.once('beforeExit', () => void engine.close());
  return { engine, info: await engine.info(), close: () => engine.close() };
}

/**
 * The engine for a GGUF file: the first of the run's servers that runs the file with the run's settings, else one
 * this process starts with those settings (once per file and source, stopped at exit).
 */
export function localEngine(
  path: string,
  source: EngineSource = { settings: engineSettingsOf(undefined), served: [] },
  start: (path: string, settings: EngineSettings) => Promise<HeldEngine> = startOwnEngine,
): Promise<HeldEngine> {
  const key = JSON.stringify([path, source.settings.threads, source.settings.contextSize, source.served]);
  let e = engines.get(key);
  if (!e) {
    e = (async () => {
      for (const url of source.served) {
        const served = await servedEngineFor(url, path, source.settings);
        if (served) return served;
      }
      return start(path, source.settings);
    })();
    engines.set(key, e);
    e.catch(() => engines.delete(key));
  }
  return e;
}

/** Stop every engine this process started (tests and the run end call it). */
export async function closeLocalEngines(): Promise<void> {
  const all = [...engines.values()];
  engines.clear();
  await Promise.all(all.map(async (p) => (await p.catch(() => null))?.close?.()));
}

/** The prompt and the gold continuation of a case under a chat template; null when the case expects no call. */
export function goldTranscript(
  c: ProbeCase,
  template: string,
  injectedDate: string,
): { prompt: string; continuation: string; family: Family } | null {
  if (!c.expected) return null;
  const family = detectFamily(template) ?? 'hermes';
  const shape = chooseShape(template).shape ?? SHAPES[0]!;
  const prompt = renderCase(template, shape, c, caseNow(c, injectedDate));
  const continuation = renderToolCalls(
    c.expected.map((x) => ({ name: x.name, arguments: x.arguments })),
    family,
  );
  return { prompt, continuation, family };
}

async function stepsOf(
  engine: DistributionsEngine,
  vocab: number,
  prompt: string,
  continuation: string,
): Promise<StepDistribution[]> {
  const full = vocab <= FULL_VOCAB_LIMIT;
  const r = await engine.nextTokenDistributions({ prompt, continuation, topK: TOP_K, full });
  // the last step predicts what follows the call: not part of the gold transcript
  return r.steps.slice(0, r.tokens.length).map((s) => ({ top: s.top, ...(full && s.full ? { full: s.full } : {}) }));
}

/** The damage of one case: reference and quantized engines on the same transcript. Null when the case expects no call. */
export async function measureCaseDamage(
  c: ProbeCase,
  ref: { label: string; path: string },
  quant: { path: string },
  injectedDate: string,
  sourceOf: (path: string) => EngineSource,
): Promise<QuantDamageRecord | null> {
  const [r, q] = await Promise.all([
    localEngine(ref.path, sourceOf(ref.path)),
    localEngine(quant.path, sourceOf(quant.path)),
  ]);
  if (!r.info.chatTemplate)
    throw new Error(`quantization damage: ${ref.path} has no chat template (tokenizer.chat_template)`);
  const t = goldTranscript(c, r.info.chatTemplate, injectedDate);
  if (!t) return null;
  const [a, b] = await Promise.all([
    stepsOf(r.engine, r.info.vocabSize, t.prompt, t.continuation),
    stepsOf(q.engine, q.info.vocabSize, t.prompt, t.continuation),
  ]);
  return { reference: ref.label, ...caseDamage(a, b) };
}
