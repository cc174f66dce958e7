import { describe, expect, it } from 'vitest';
import { UsageError } from './errors.ts';
import { readConfig, redactUrl } from './config.ts';
import { clearSecrets, redact } from './redact.ts';
import { sandboxOptionsOf } from '../kit/sandbox-options.ts';
import { createSandbox } from '../sandbox/index.ts';

describe('run configuration from the environment', () => {
  it('reads the sandbox switches once (TOOLGAUGE_SANDBOX_CONFINE/SNAPSHOT=0) and hands them to the sandbox as values', async () => {
    expect(readConfig({}).sandbox).toMatchObject({ confine: true, snapshot: true });
    const off = readConfig({ TOOLGAUGE_SANDBOX_CONFINE: '0', TOOLGAUGE_SANDBOX_SNAPSHOT: '0' });
    expect(off.sandbox).toMatchObject({ confine: false, snapshot: false });
    expect(sandboxOptionsOf(off)).toMatchObject({ confine: false, snapshot: false });
    // The library reads no environment: the option alone turns the confinement off.
    const sb = createSandbox({ backend: 'python', confine: false });
    expect(sb.info().confinement).toEqual([]);
    await sb.close();
  });
  it('defaults to the simulator', () => {
    const c = readConfig({});
    expect(c.usesSimulator).toBe(true);
    expect(c.model).toBe('sim:oracle');
    expect(c.requestTimeoutMs).toBe(5000);
  });
  it('reads a real endpoint and its longer timeout', () => {
    const c = readConfig({ OPENAI_BASE_URL: 'http://localhost:8000/v1', TOOLGAUGE_MODEL: 'qwen' });
    expect(c).toMatchObject({
      usesSimulator: false,
      model: 'qwen',
      requestTimeoutMs: 300_000,
      requestDeadlineMs: 900_000,
      retries: 3,
    });
  });
  it('rejects bad values with one line naming the variable', () => {
    expect(() => readConfig({ TOOLGAUGE_SEED: 'five' })).toThrow(
      new UsageError("TOOLGAUGE_SEED: TOOLGAUGE_SEED must be a whole number (got 'five')"),
    );
    expect(() => readConfig({ TOOLGAUGE_SANDBOX: 'docker' })).toThrow(/TOOLGAUGE_SANDBOX/);
    expect(() => readConfig({ TOOLGAUGE_MODEL: 'gpt-4o' })).toThrow(/needs an endpoint/);
  });
  it('strips credentials and every query value from URLs in reports', () => {
    expect(redactUrl('https://user:secret@api.example.com/v1?api_key=abc&x=1')).toBe(
      'https://api.example.com/v1?api_key=REDACTED&x=REDACTED',
    );
    // Azure Functions' key travels as `code`, a name no list of key-like names holds.
    expect(redactUrl('https://fn.example.net/api/v1?code=Zq81uV2mW0xYt7&code=again#frag')).toBe(
      'https://fn.example.net/api/v1?code=REDACTED',
    );
  });
  it('registers every query value of the endpoint URL as a secret', () => {
    readConfig({ OPENAI_BASE_URL: 'https://fn.example.net/api/v1?code=Zq81uV2m%2BW0xYt7', TOOLGAUGE_MODEL: 'm' });
    try {
      expect(redact('code Zq81uV2m+W0xYt7, as written Zq81uV2m%2BW0xYt7')).toBe(
        'code [REDACTED], as written [REDACTED]',
      );
    } finally {
      clearSecrets();
    }
  });
});
