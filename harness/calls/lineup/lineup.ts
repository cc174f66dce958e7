/**
 * Lineups (`--lineup FILE`: several models on the same cases, one table) and the guard on quantization
 * comparisons: `report --compare` of two runs labelled as quantizations of one model is refused unless both ran
 * with the same chat template (sha256) and the same tokenizer — otherwise a template or tokenizer change would be
 * counted as quantization damage.
 *
 * Lineup file (YAML or JSON):
 *   models:
 *     - label: qwen-bf16            # unique; the column / row name
 *       model: Qwen/Qwen2.5-7B-Instruct
 *       base_url: http://127.0.0.1:8000/v1
 *       template: templates/qwen2.5.jinja   # optional: the model's chat template file
 *       server: vllm                # optional: vllm | sglang | llamacpp | openai
 *       family: hermes              # optional: the tool-call format
 *     - label: qwen-q4
 *       model: qwen2.5-7b-instruct-q4_k_m
 *       base_url: http://127.0.0.1:8080/v1
 *       quantization: Q4_K_M
 *       quantization_of: qwen-bf16  # compared with that entry under the template/tokenizer guard
 *     - registry: llama-3.1-8b-instruct   # a key of the model registry (harness/calls/registry): model, family,
 *       base_url: http://127.0.0.1:8001/v1 #   quantization, repo and revision from there; label defaults to the key
 *     - registry: test-hermes   # a test model toolgauge writes itself; `quant` picks its tensor type
 *       quant: Q8_0
 */
import { readJsonOrYaml } from '../../core/data-file.ts';
import { z } from 'zod';
import { DataError, dataErrorFromZod } from '../../core/errors.ts';
import { sha256 } from '../../core/hash.ts';
import { SERVERS } from '../../constrain/requests.ts';
import { FAMILIES } from '../../parse/index.ts';
import { bundledRegistry, fromRegistry, testModelDirOf, type Registry } from '../registry/registry.ts';

export const LineupEntrySchema = z
  .object({
    label: z
      .string()
      .min(1)
      .regex(/^[\w.:+-]+$/, 'labels use letters, digits and . : + - _'),
    model: z.string().min(1),
    base_url: z.url().optional(),
    /** Name of the environment variable holding this endpoint's key (never the key itself). */
    api_key_env: z
      .string()
      .regex(/^[A-Z_][A-Z0-9_]*$/)
      .optional(),
    template: z.string().min(1).optional(),
    server: z.enum(SERVERS).optional(),
    family: z.enum(FAMILIES).optional(),
    quantization: z.string().min(1).optional(),
    quantization_of: z.string().min(1).optional(),
    /** A key of the model registry the entry was filled from. */
    registry: z.string().min(1).optional(),
    /** The weights' type the local engine must run (a gguf: file's tensor type; a registry test model's type). */
    quant: z.string().min(1).optional(),
    /** The model's repository and revision, for the header (from the registry, or given). */
    repo: z.string().min(1).optional(),
    revision: z.string().min(1).optional(),
  })
  .strict();
export type LineupEntry = z.infer<typeof LineupEntrySchema> & {
  /** A registry test model the run writes before it starts (harness/probe/run/gguf-lineup.ts). */
  test_model?: { path: string; template: string; seed: number; type: string };
};

/** An entry as written: with `registry:`, label and model may be left to the registry. */
const WrittenEntrySchema = LineupEntrySchema.extend({
  label: LineupEntrySchema.shape.label.optional(),
  model: z.string().min(1).optional(),
}).strict();
const WrittenLineupSchema = z.object({ models: z.array(WrittenEntrySchema).min(1) }).strict();

export const LineupSchema = z
  .object({ models: z.array(LineupEntrySchema).min(1) })
  .strict()
  .superRefine((l, ctx) => {
    const labels = l.models.map((m) => m.label);
    labels.forEach((x, i) => {
      if (labels.indexOf(x) !== i)
        ctx.addIssue({ code: 'custom', path: ['models', i, 'label'], message: `duplicate label '${x}'` });
    });
    l.models.forEach((m, i) => {
      if (m.quantization_of === undefined) return;
      if (m.quantization_of === m.label)
        ctx.addIssue({
          code: 'custom',
          path: ['models', i, 'quantization_of'],
          message: 'an entry cannot be a quantization of itself',
        });
      else if (!labels.includes(m.quantization_of))
        ctx.addIssue({
          code: 'custom',
          path: ['models', i, 'quantization_of'],
          message: `no entry labelled '${m.quantization_of}'`,
        });
    });
  });
export type Lineup = { models: LineupEntry[] };

export interface LineupOptions {
  /** Default: the bundled registry. */
  registry?: Registry;
  /** Where registry test models are written (default: testModelDirOf without TOOLGAUGE_TEST_MODEL_DIR). */
  testModelDir?: string;
}

/** Read a lineup file's text (YAML or JSON); errors name the file, the entry and the field. */
export function parseLineup(text: string, file: string, o: LineupOptions = {}): Lineup {
  const raw = readJsonOrYaml(text, file);
  const entryOf = (err: z.ZodError) => {
    const issue = err.issues[0]!;
    return issue.path[0] === 'models' && typeof issue.path[1] === 'number' ? `models[${issue.path[1]}]` : undefined;
  };
  const w = WrittenLineupSchema.safeParse(raw);
  if (!w.success) throw dataErrorFromZod(file, entryOf(w.error), w.error);
  const tests = new Map<number, NonNullable<LineupEntry['test_model']>>();
  const resolved = w.data.models.map((m, i) => {
    if (m.registry === undefined) {
      for (const f of ['label', 'model'] as const)
        if (m[f] === undefined)
          throw new DataError(
            file,
            `models[${i}]`,
            `models[${i}].${f}`,
            'required (or name a registry key with registry:)',
          );
      return { ...m, ...(m.quant !== undefined && m.quantization === undefined ? { quantization: m.quant } : {}) };
    }
    let r: ReturnType<typeof fromRegistry>;
    try {
      r = fromRegistry(o.registry ?? bundledRegistry(), m.registry, m.quant, o.testModelDir ?? testModelDirOf({}));
    } catch (err) {
      throw new DataError(
        file,
        `models[${i}]`,
        `models[${i}].${m.quant !== undefined && m.model === undefined ? 'quant' : 'registry'}`,
        (err as Error).message,
      );
    }
    if (r.testModel && m.model === undefined) tests.set(i, r.testModel);
    const defaults = {
      label: m.registry,
      model: r.model,
      family: r.family,
      quantization: r.quantization,
      repo: r.repo,
      revision: r.revision,
    };
    const kept = Object.fromEntries(Object.entries(defaults).filter(([, v]) => v !== undefined));
    return { ...kept, ...Object.fromEntries(Object.entries(m).filter(([, v]) => v !== undefined)) };
  });
  const r = LineupSchema.safeParse({ models: resolved });
  if (!r.success) throw dataErrorFromZod(file, entryOf(r.error), r.error);
  return { models: r.data.models.map((m, i) => (tests.has(i) ? { ...m, test_model: tests.get(i)! } : m)) };
}

/** `--model a,b,c` as a lineup (one endpoint for all). */
export function lineupFromModels(models: readonly string[], baseUrl?: string): Lineup {
  return LineupSchema.parse({
    models: models.map((m) => ({
      label: m.replace(/[^\w.:+-]+/g, '_'),
      model: m,
      ...(baseUrl ? { base_url: baseUrl } : {}),
    })),
  });
}

// --- the quantization guard ----------------------------------------------------------------------------------

/** What identifies a run's prompt format and tokenizer, with where it came from. */
export interface RunIdentity {
  label: string;
  template: { sha256: string; source: 'server' | '--template' | 'gguf' } | null;
  tokenizer: { id: string; source: 'server' | '--tokenizer' | 'gguf' } | null;
}

/**
 * Identity from llama.cpp's `GET /props` (`chat_template`: the model's Jinja template) and `GET /v1/models`
 * (`data[0].meta`: `vocab_type`, `n_vocab` — the tokenizer's type and size; a quantization keeps both). Fields a
 * server does not expose stay null.
 */
export function identityFromLlamaCpp(label: string, props: unknown, models: unknown): RunIdentity {
  const p = (props ?? {}) as { chat_template?: unknown };
  const meta = ((models as { data?: Array<{ meta?: Record<string, unknown> | null }> } | null)?.data?.[0]?.meta ??
    null) as Record<string, unknown> | null;
  const tpl =
    typeof p.chat_template === 'string' && p.chat_template !== ''
      ? { sha256: sha256(p.chat_template), source: 'server' as const }
      : null;
  const tok =
    meta && meta.vocab_type !== undefined && meta.n_vocab !== undefined
      ? { id: `vocab_type=${String(meta.vocab_type)};n_vocab=${String(meta.n_vocab)}`, source: 'server' as const }
      : null;
  return { label, template: tpl, tokenizer: tok };
}

export type QuantizationCheck = { ok: true } | { ok: false; reason: string };

/** Whether runs `a` (reference) and `b` (its quantization) may be compared as a quantization change. */
export function checkQuantizationPair(a: RunIdentity, b: RunIdentity): QuantizationCheck {
  const refuse = (reason: string): QuantizationCheck => ({
    ok: false,
    reason: `refusing to compare ${b.label} with ${a.label} as a quantization: ${reason}`,
  });
  for (const r of [a, b]) {
    if (!r.template)
      return refuse(`the chat template of ${r.label} is unknown (the server does not expose it; pass --template)`);
    if (!r.tokenizer)
      return refuse(`the tokenizer of ${r.label} is unknown (the server does not expose it; pass --tokenizer)`);
  }
  if (a.template!.sha256 !== b.template!.sha256)
    return refuse(
      `the chat templates differ (sha256 ${a.template!.sha256.slice(0, 12)}… from ${a.template!.source} vs ${b.template!.sha256.slice(0, 12)}… from ${b.template!.source}); a template change would be counted as quantization damage`,
    );
  if (a.tokenizer!.id !== b.tokenizer!.id)
    return refuse(`the tokenizers differ (${a.tokenizer!.id} vs ${b.tokenizer!.id})`);
  return { ok: true };
}

/** The pairs a lineup asks to compare as quantizations, with the guard's answer for each. */
export function quantizationPairs(
  lineup: Lineup,
  identity: (label: string) => RunIdentity,
): Array<{ reference: string; quantized: string; check: QuantizationCheck }> {
  return lineup.models
    .filter((m) => m.quantization_of !== undefined)
    .map((m) => ({
      reference: m.quantization_of!,
      quantized: m.label,
      check: checkQuantizationPair(identity(m.quantization_of!), identity(m.label)),
    }));
}

/** One lineup table: a row per model, a column per metric, `value [lo, hi] (n)`. */
export function lineupTable(
  rows: ReadonlyArray<{
    label: string;
    metrics: Record<string, { value: number; lo: number; hi: number; n: number } | undefined>;
  }>,
  metrics: readonly string[],
  title = 'Lineup',
): string {
  const cell = (e: { value: number; lo: number; hi: number; n: number } | undefined) =>
    !e || !Number.isFinite(e.value)
      ? '—'
      : `${e.value.toFixed(3)} [${Number.isFinite(e.lo) ? e.lo.toFixed(3) : '—'}, ${Number.isFinite(e.hi) ? e.hi.toFixed(3) : '—'}] (${e.n})`;
  return [
    `### ${title}`,
    '',
    `| model | ${metrics.join(' | ')} |`,
    `| --- | ${metrics.map(() => '---').join(' | ')} |`,
    ...rows.map((r) => `| ${r.label} | ${metrics.map((m) => cell(r.metrics[m])).join(' | ')} |`),
    '',
  ].join('\n');
}
