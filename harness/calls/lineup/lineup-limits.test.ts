import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkKeyEnv, templateInLineupFolder } from './lineup-limits.ts';

const root = mkdtempSync(join(tmpdir(), 'tg-lineup-limits-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
mkdirSync(join(root, 'l', 'templates'), { recursive: true });
mkdirSync(join(root, 'other'));
writeFileSync(join(root, 'l', 'templates', 'a.jinja'), 'x');
writeFileSync(join(root, 'other', 'b.jinja'), 'y');
writeFileSync(join(root, 'l', '..notparent.jinja'), 'z');
symlinkSync(join(root, 'other', 'b.jinja'), join(root, 'l', 'link.jinja'));
symlinkSync(join(root, 'other'), join(root, 'l', 'dirlink'));
const lineup = join(root, 'l', 'lineup.yaml');

describe('lineup limits', () => {
  it('api_key_env: names ending in _API_KEY, or listed with --allow-env; nothing else', () => {
    for (const ok of ['OPENAI_API_KEY', 'MY_VLLM_API_KEY', 'A1_API_KEY'])
      expect(() => checkKeyEnv(ok, 'f: models[0]', [])).not.toThrow();
    for (const bad of [
      'AWS_SECRET_ACCESS_KEY',
      'HF_TOKEN',
      'GITHUB_TOKEN',
      'HOME',
      '_API_KEY',
      'OPENAI_API_KEY_FILE',
      'API_KEY',
    ]) {
      expect(() => checkKeyEnv(bad, 'f: models[0]', []), bad).toThrow(
        /f: models\[0\]\.api_key_env: .* is not an API key variable/,
      );
    }
    expect(() => checkKeyEnv('HF_TOKEN', 'f: models[0]', ['HF_TOKEN'])).not.toThrow();
  });

  it('template: a file in the lineup folder or below, relative to it; ../, absolute paths elsewhere and symlinks out are refused', () => {
    expect(templateInLineupFolder('templates/a.jinja', lineup, 'w')).toBe(join(root, 'l', 'templates', 'a.jinja'));
    expect(templateInLineupFolder(join(root, 'l', 'templates', 'a.jinja'), lineup, 'w')).toBe(
      join(root, 'l', 'templates', 'a.jinja'),
    );
    expect(templateInLineupFolder('..notparent.jinja', lineup, 'w')).toBe(join(root, 'l', '..notparent.jinja'));
    for (const out of [
      '../other/b.jinja',
      join(root, 'other', 'b.jinja'),
      'link.jinja',
      'dirlink/b.jinja',
      '/etc/passwd',
    ]) {
      expect(() => templateInLineupFolder(out, lineup, 'w'), out).toThrow(
        /w\.template: .* is outside the lineup file's folder/,
      );
    }
    expect(() => templateInLineupFolder('templates', lineup, 'w')).toThrow(/is not a file/);
    expect(() => templateInLineupFolder('missing.jinja', lineup, 'w')).toThrow(/cannot be read \(ENOENT\)/);
  });
});
