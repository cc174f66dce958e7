import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { DataError } from '../../core/errors.ts';
import type { TestTemplateName } from '../../engine/gguf/chat-templates.ts';
import type { TensorEncoding } from '../../engine/gguf/encode.ts';
import { buildTestModel } from '../../engine/gguf/test-model.ts';

/**
 * A registry test model's file, written when missing (temp file + rename: a reader never sees half a file; two runs
 * writing it at once write the same bytes). The same template, seed and type always give the same file.
 */
export function ensureTestModel(t: { path: string; template: string; seed: number; type: string }): void {
  if (existsSync(t.path)) return;
  mkdirSync(dirname(t.path), { recursive: true });
  const tmp = `${t.path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    writeFileSync(
      tmp,
      buildTestModel({ type: t.type as TensorEncoding, template: t.template as TestTemplateName, seed: t.seed }),
      { flag: 'wx' },
    );
    renameSync(tmp, t.path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw new DataError(
      t.path,
      undefined,
      undefined,
      `cannot write the test model (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
    );
  }
}
