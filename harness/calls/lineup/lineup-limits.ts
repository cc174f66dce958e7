import { realpathSync, statSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { UsageError } from '../../core/errors.ts';

/**
 * A lineup file is trusted input (it chooses endpoints and what is sent to them), but its two ways of reaching
 * outside itself are limited, so a lineup from elsewhere cannot turn toolgauge against its user:
 * - `api_key_env` names the variable whose value is sent as a Bearer token to the entry's endpoint: only names
 *   ending in `_API_KEY`, or names the user lists with `--allow-env` (any other variable — a cloud credential, a
 *   session token — would go to whatever `base_url` the file names);
 * - `template` is read and becomes the prompt (and its text is recorded): only a file inside the lineup file's own
 *   folder, after symlinks are resolved; a relative path is relative to that folder.
 */
export const API_KEY_ENV = /^[A-Z][A-Z0-9_]*_API_KEY$/;

/** Refuse an `api_key_env` that is neither an API key's name nor listed with `--allow-env`. */
export function checkKeyEnv(name: string, where: string, allowed: readonly string[]): void {
  if (API_KEY_ENV.test(name) || allowed.includes(name)) return;
  throw new UsageError(
    `--lineup ${where}.api_key_env: ${name} is not an API key variable (names ending in _API_KEY are allowed; allow another with --allow-env ${name})`,
  );
}

/** The template's real path, refused unless it is a file inside the lineup file's folder. */
export function templateInLineupFolder(template: string, lineupFile: string, where: string): string {
  const folder = dirname(resolve(lineupFile));
  const path = resolve(folder, template);
  let real: string;
  let realFolder: string;
  try {
    real = realpathSync(path);
    realFolder = realpathSync(folder);
  } catch (err) {
    throw new UsageError(
      `--lineup ${where}.template: '${template}' cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
    );
  }
  const rel = relative(realFolder, real);
  if (!rel || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) {
    throw new UsageError(
      `--lineup ${where}.template: '${template}' is outside the lineup file's folder ${realFolder} (a lineup's templates must sit in its folder or below)`,
    );
  }
  if (!statSync(real).isFile()) throw new UsageError(`--lineup ${where}.template: '${template}' is not a file`);
  return real;
}
