import { z } from 'zod';
import { UsageError } from '../../core/errors.ts';
import { sha256 } from '../../core/hash.ts';
import { FileRefused, writeAtomic } from '../../core/nofollow.ts';
import { TEST_TEMPLATE_NAMES, type TestTemplateName } from '../../engine/gguf/chat-templates.ts';
import { buildTestModel } from '../../engine/gguf/test-model.ts';
import type { TensorEncoding } from '../../engine/gguf/encode.ts';
import { parseFlags, type FlagSpecs } from '../../kit/flags/flags.ts';

// toolgauge make-test-model OUT.gguf --type f32|f16|q8_0 --template hermes|llama3 --seed N

export const USAGE = `toolgauge make-test-model OUT.gguf [--type f32|f16|q8_0] [--template ${TEST_TEMPLATE_NAMES.join('|')}] [--seed N]

Writes a small llama-architecture GGUF (2 layers, width 64, a GPT-2 byte-level BPE vocabulary of ~290 tokens
with the template's special tokens, tokenizer.chat_template set) with seeded RANDOM weights. It is for plumbing
and for measuring the axes' mechanics (constrained decoding, decode-time methods, quantization damage): never a
model's result. The same seed in another --type is the same weights quantized, so a lineup F32 vs Q8_0 compares
one model. Defaults: --type f32 --template hermes --seed 0.`;

const TYPES: Record<string, TensorEncoding> = { f32: 'F32', f16: 'F16', q8_0: 'Q8_0' };

const FLAGS: FlagSpecs = {
  type: { type: 'string', values: Object.keys(TYPES), description: 'tensor type of the weights (norms stay F32)' },
  template: { type: 'string', values: TEST_TEMPLATE_NAMES, description: 'chat template and its special tokens' },
  seed: {
    type: 'string',
    schema: z.coerce.number().int().min(0).max(0xffffffff),
    description: 'seed of the random weights',
  },
};

export interface MakeTestModelIo {
  stdout: { write(chunk: string): unknown };
}

export async function run(argv: string[], io: MakeTestModelIo = { stdout: process.stdout }): Promise<number> {
  const { values, positionals } = parseFlags('make-test-model', argv, FLAGS, true);
  if (positionals.length !== 1)
    throw new UsageError(`toolgauge make-test-model: expected one output path (OUT.gguf), got ${positionals.length}`);
  const out = positionals[0]!;
  const type = TYPES[(values.type as string | undefined) ?? 'f32']!;
  const template = ((values.template as string | undefined) ?? 'hermes') as TestTemplateName;
  const seed = (values.seed as number | undefined) ?? 0;
  const bytes = buildTestModel({ type, template, seed });
  // Temp file + rename: a reader never sees half a model; only a regular file at OUT is replaced (never a device).
  try {
    writeAtomic(out, bytes);
  } catch (err) {
    if (err instanceof FileRefused) throw new UsageError(`toolgauge make-test-model: ${err.message}`);
    throw new UsageError(
      `toolgauge make-test-model: cannot write '${out}' (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
    );
  }
  io.stdout.write(
    `${out}: ${bytes.length} bytes, ${type}, template ${template}, seed ${seed}, sha256 ${sha256(bytes)}\n` +
      "a test model with random weights: for plumbing and axis mechanics, never a model's result\n",
  );
  return 0;
}
