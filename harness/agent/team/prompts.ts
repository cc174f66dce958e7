import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DataError } from '../../core/errors.ts';

/**
 * Role prompts live in files, one per role, so they can be read, edited and mutated by an optimizer without
 * touching code. Two layouts are read:
 *   <dir>/<topology>/<role>.txt            (toolgauge's own)
 *   <dir>/<topology>/<suite>/<role>.txt    (the reference framework's configs/prompts layout)
 * A role missing from `dir` comes from `fallbackDir` (the bundled defaults), so an optimizer's output directory may
 * hold only the prompts it changed. Where each prompt came from is recorded for the reproducibility header.
 */
export interface PromptSet {
  /** role → prompt text (trimmed). */
  text: Record<string, string>;
  /** role → the file it was read from. */
  source: Record<string, string>;
}

export interface LoadPromptsOptions {
  suite: string;
  /** The bundled defaults, used for roles `dir` does not have. */
  fallbackDir?: string;
}

export function promptPath(dir: string, topology: string, role: string, suite: string): string | undefined {
  for (const p of [join(dir, topology, `${role}.txt`), join(dir, topology, suite, `${role}.txt`)])
    if (existsSync(p)) return p;
  return undefined;
}

export function loadRolePrompts(
  dir: string,
  topology: string,
  roles: readonly string[],
  opts: LoadPromptsOptions,
): PromptSet {
  const set: PromptSet = { text: {}, source: {} };
  for (const role of new Set(roles)) {
    const path =
      promptPath(dir, topology, role, opts.suite) ??
      (opts.fallbackDir ? promptPath(opts.fallbackDir, topology, role, opts.suite) : undefined);
    if (!path) {
      throw new DataError(
        join(dir, topology, `${role}.txt`),
        undefined,
        undefined,
        `no prompt for role '${role}' of topology '${topology}'`,
      );
    }
    const text = readFileSync(path, 'utf8').trim();
    if (!text) throw new DataError(path, undefined, undefined, `the prompt for role '${role}' is empty`);
    set.text[role] = text;
    set.source[role] = path;
  }
  return set;
}
