import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../core/errors.ts';
import { run, USAGE } from './template.ts';

const FIXTURE = fileURLToPath(
  new URL('../../../fixtures/probe/templates/dated-chatml-drops-calls.jinja', import.meta.url),
);
const REFERENCE = fileURLToPath(new URL('../../templates/reference/hermes.jinja', import.meta.url));

async function capture(argv: string[]): Promise<{ code: number; out: string }> {
  let out = '';
  const code = await run(argv, { stdout: { write: (s: string) => (out += s) } });
  return { code, out };
}

describe('toolgauge template check', () => {
  it('--help text names every finding id', () => {
    for (const id of [
      'render_budget_exceeded',
      'tools_not_rendered',
      'prior_tool_call_dropped',
      'system_prompt_drops_tool_instructions',
      'injected_date',
      'doubled_braces',
      'raises_on_standard_shape',
      'template_unparseable',
    ])
      expect(USAGE).toContain(id);
  });

  const dir = mkdtempSync(join(tmpdir(), 'toolgauge-template-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('--json: template, sha256 and findings come first; exit 0 with findings', async () => {
    const { code, out } = await capture(['check', '--template', FIXTURE, '--json']);
    expect(code).toBe(0);
    const json = JSON.parse(out) as Record<string, unknown>;
    expect(Object.keys(json).slice(0, 3)).toEqual(['template', 'sha256', 'findings']);
    expect(json.template).toBe(FIXTURE);
    expect(json.sha256).toMatch(/^[0-9a-f]{64}$/);
    const findings = json.findings as Array<Record<string, unknown>>;
    expect(findings.map((f) => f.id).sort()).toEqual(['injected_date', 'prior_tool_call_dropped']);
    for (const f of findings) {
      expect(Object.keys(f).slice(0, 3)).toEqual(['id', 'detail', 'repro']);
      expect((f.repro as { messages: unknown[] }).messages.length).toBeGreaterThan(0);
    }
  });

  it('text output lists the findings with their repros; exit 0 without findings too', async () => {
    const bad = await capture(['check', '--template', FIXTURE]);
    expect(bad.code).toBe(0);
    expect(bad.out).toMatch(/findings \(2\):/);
    expect(bad.out).toMatch(/- injected_date: .*Current date: 15 January 2026/);
    expect(bad.out).toMatch(/repro .*:\n\s+assistant: null calls get_weather/);
    const good = await capture(['check', '--template', REFERENCE]);
    expect(good.code).toBe(0);
    expect(good.out).toMatch(/findings: none/);
  });

  it('a template that loops for ever is a render_budget_exceeded finding, reported without waiting for it', async () => {
    const file = join(dir, 'loops.jinja');
    writeFileSync(
      file,
      '{%- for i in range(1000000) -%}{%- for j in range(1000000) -%}{%- endfor -%}{%- endfor -%}{{ messages[0].content }}',
    );
    const { code, out } = await capture(['check', '--template', file, '--json']);
    expect(code).toBe(0);
    const json = JSON.parse(out) as { findings: Array<{ id: string; detail: string }> };
    expect(json.findings.map((f) => f.id)).toEqual(['render_budget_exceeded']);
    expect(json.findings[0]!.detail).toMatch(/evaluation steps|ms/);
  });

  it('names the family the template writes and how it was found', async () => {
    const good = await capture(['check', '--template', REFERENCE]);
    expect(good.out).toMatch(/family: {3}hermes \(read back from a call it renders\)/);
    const json = JSON.parse((await capture(['check', '--template', REFERENCE, '--json'])).out) as {
      family: string;
      familyDetection: { how: string; verified: boolean; call: string };
    };
    expect(json.family).toBe('hermes');
    expect(json.familyDetection).toMatchObject({ how: 'rendered', verified: true });
    expect(json.familyDetection.call).toContain('<tool_call>');
  });

  it('an unparseable template is a finding, not an error', async () => {
    const file = join(dir, 'broken.jinja');
    writeFileSync(file, '{% if x %}');
    const { code, out } = await capture(['check', '--template', file, '--json']);
    expect(code).toBe(0);
    expect((JSON.parse(out) as { findings: Array<{ id: string }> }).findings.map((f) => f.id)).toEqual([
      'template_unparseable',
    ]);
  });

  it('usage errors: unreadable file, missing --template, unknown flag, unknown subcommand', async () => {
    await expect(capture(['check', '--template', join(dir, 'absent.jinja')])).rejects.toThrow(UsageError);
    await expect(capture(['check', '--template', dir])).rejects.toThrow(/cannot read/);
    await expect(capture(['check'])).rejects.toThrow(/--template FILE is required/);
    await expect(capture(['check', '--template', FIXTURE, '--frob'])).rejects.toThrow(UsageError);
    await expect(capture(['lint', '--template', FIXTURE])).rejects.toThrow(/unknown subcommand 'lint'/);
    await expect(capture([])).rejects.toThrow(UsageError);
  });
});
