import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromRoot } from '../../harness/core/paths.ts';
import { inProcess, tempDir } from '../helpers/cli.ts';

// A lineup from elsewhere may not send any environment variable to its endpoint, nor read a file outside its
// folder into the prompt (and the stored summary). Both are refused before anything runs. The commands run through
// the CLI's main() in this process (tests/helpers/cli.ts: the environment is only what each call gives, as for a
// spawned CLI); the limits are the lineup parser's and the run launcher's, not the process's.

const SESSION = 'session-secret-4f1c9a7e2b';
let server: Server;
let base: string;
const seen: string[] = [];

beforeAll(async () => {
  // Records every Authorization header; answers 503, so a run stops at the endpoint check.
  server = createServer((req, res) => {
    seen.push(String(req.headers.authorization ?? ''));
    req.resume();
    req.on('end', () => void res.writeHead(503).end('down'));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

function allText(dir: string): string {
  return readdirSync(dir)
    .map((n) => join(dir, n))
    .map((p) => (statSync(p).isDirectory() ? allText(p) : readFileSync(p, 'utf8')))
    .join('\n');
}

describe('lineup files are trusted input with limits', () => {
  it('api_key_env naming a variable that is not an API key is refused, and its value is never sent; --allow-env lets it', async () => {
    const dir = tempDir('lineup-env');
    const file = join(dir, 'lineup.yaml');
    writeFileSync(
      file,
      `models:\n  - label: a\n    model: m\n    base_url: ${base}\n    api_key_env: TG_SESSION_TOKEN\n`,
    );
    const r = await inProcess(
      ['probe', '--lineup', file, '--only', 'c1_weather_test_000', '--out-dir', join(dir, 'out')],
      { TG_SESSION_TOKEN: SESSION },
    );
    expect(
      seen.some((h) => h.includes(SESSION)),
      'the endpoint received the variable',
    ).toBe(false);
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(r.stderr).toMatch(
      /models\[0\]\.api_key_env: TG_SESSION_TOKEN is not an API key variable.*--allow-env TG_SESSION_TOKEN/,
    );

    // Allowed by name, the key goes to the entry's endpoint (and only then).
    const allowed = await inProcess(
      [
        'probe',
        '--lineup',
        file,
        '--allow-env',
        'TG_SESSION_TOKEN',
        '--only',
        'c1_weather_test_000',
        '--out-dir',
        join(dir, 'out2'),
      ],
      { TG_SESSION_TOKEN: SESSION },
    );
    expect(allowed.stderr).not.toMatch(/api_key_env/);
    expect(seen).toContain(`Bearer ${SESSION}`);
  });

  it("the run's OPENAI_API_KEY never goes to an endpoint the lineup names; the entry's own allowed key does", async () => {
    const dir = tempDir('lineup-default-key');
    const file = join(dir, 'lineup.yaml');
    const userKey = 'sk-user-own-key-5d1e0b9c';
    // The run takes its model and endpoint from the first entry; the second entry uses that endpoint too.
    writeFileSync(file, `models:\n  - label: a\n    model: m\n    base_url: ${base}\n  - label: b\n    model: n\n`);
    const before = seen.length;
    const r = await inProcess(
      ['probe', '--lineup', file, '--only', 'c1_weather_test_000', '--out-dir', join(dir, 'out')],
      { OPENAI_API_KEY: userKey },
    );
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(seen.length, 'the endpoint was asked').toBeGreaterThan(before);
    expect(
      seen.slice(before).filter((h) => h.includes(userKey)),
      'requests that carried the user key',
    ).toEqual([]);

    // Naming its own key, the entry's endpoint gets that key.
    writeFileSync(
      file,
      `models:\n  - label: a\n    model: m\n    base_url: ${base}\n    api_key_env: LINEUP_API_KEY\n`,
    );
    const mark = seen.length;
    await inProcess(['probe', '--lineup', file, '--only', 'c1_weather_test_000', '--out-dir', join(dir, 'out2')], {
      OPENAI_API_KEY: userKey,
      LINEUP_API_KEY: 'sk-lineup-entry-key-77',
    });
    expect(seen.slice(mark)).toContain('Bearer sk-lineup-entry-key-77');
    expect(seen.slice(mark).filter((h) => h.includes(userKey))).toEqual([]);
  });

  it('a template outside the lineup file folder is refused before it is read; nothing of it is stored', async () => {
    const dir = tempDir('lineup-tpl');
    mkdirSync(join(dir, 'lineup'));
    mkdirSync(join(dir, 'private'));
    const marker = 'PRIVATE-FILE-7c2e91';
    writeFileSync(
      join(dir, 'private', 'secret.jinja'),
      `${marker}\n${readFileSync(fromRoot('harness/templates/reference/hermes.jinja'), 'utf8')}`,
    );
    const file = join(dir, 'lineup', 'lineup.yaml');
    // An absolute path, and the same file through ../ (relative paths are relative to the lineup's folder).
    const out = join(dir, 'out');
    for (const template of [join(dir, 'private', 'secret.jinja'), '../private/secret.jinja']) {
      writeFileSync(file, `models:\n  - label: a\n    model: sim:oracle\n    template: ${template}\n`);
      const r = await inProcess(
        ['probe', '--lineup', file, '--transport', 'completions', '--only', 'c1_weather_test_000', '--out-dir', out],
        {},
      );
      let stored = '';
      try {
        stored = allText(out);
      } catch {
        // no out dir: nothing stored
      }
      expect(stored, 'the template outside the folder was stored').not.toContain(marker);
      expect(r.code, r.stdout + r.stderr).toBe(2);
      expect(r.stderr).toContain(`models[0].template: '${template}' is outside the lineup file's folder`);
    }
  });
});
