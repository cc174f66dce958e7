/**
 * The quantization damage of one case, measured on local engines: the case's gold transcript — the prompt rendered
 * with the file's own chat template and the case's tools, then the gold call in the template's call format — is
 * teacher-forced through the reference and the quantized model, and their next-token distributions compared
 * (harness/probe/axes/quant-damage.ts). Engines are started once per process and file, on one thread each.
 */
import type { Engine, EngineInfo } from '../../engine/types.ts';
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

const engines = new Map<string, Promise<{ engine: Engine; info: EngineInfo }>>();

/** One engine per GGUF file in this process, stopped at exit. */
export function localEngine(path: string): Promise<{ engine: Engine; info: EngineInfo }> {
  let e = engines.get(path);
  if (!e) {
    e = (async () => {
      const { EngineHost } = await import('../../engine/host.ts');
      const engine = new EngineHost({ modelPath: path, threads: 1, contextSize: 4096 });
      process.once('beforeExit', () => void engine.close());
      return { engine, info: await engine.info() };
    })();
    engines.set(path, e);
    e.catch(() => engines.delete(path));
  }
  return e;
}

/** Stop every engine this process started (tests and the run end call it). */
export async function closeLocalEngines(): Promise<void> {
  const all = [...engines.values()];
  engines.clear();
  await Promise.all(all.map(async (p) => (await p.catch(() => null))?.engine.close()));
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
  engine: Engine,
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
): Promise<QuantDamageRecord | null> {
  const [r, q] = await Promise.all([localEngine(ref.path), localEngine(quant.path)]);
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
