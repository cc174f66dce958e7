// Toolhound's README commands (`toolprobe run|attribute …`) beside the `toolgauge probe` form docs/probe.md gives for
// each ("Toolhound's commands"): each toolgauge form is parsed by the command itself and checked in the plan and
// settings it builds. Nothing runs: the runner below stops after the command's checks.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkSuiteCommand, type CommandRunner } from '../kit/command.ts';
import { parseFlags } from '../kit/flags/flags.ts';
import { MODEL_FLAGS, settingsSource } from '../kit/flags/model-flags.ts';
import type { RunPlan } from '../kit/plan.ts';
import { expandModels, run } from './command.ts';
import type { ProbeSettings } from './run/env.ts';

/** The lineup docs/probe.md gives for `--quant bf16,q4`: the two weights of one model, each on its endpoint. */
const QUANT_LINEUP = `models:
  - label: qwen2.5-1.5b-bf16
    model: qwen2.5-1.5b
    base_url: http://127.0.0.1:8000/v1
    quantization: BF16
  - label: qwen2.5-1.5b-q4
    model: qwen2.5-1.5b
    base_url: http://127.0.0.1:8001/v1
    quantization: Q4
    quantization_of: qwen2.5-1.5b-bf16
`;

/**
 * Toolhound's commands (its README, "Quickstart", and the earlier README's), copied as written, each with the
 * toolgauge form docs/probe.md gives for it. `URL` is the endpoint serving the model; `cases/` and `reports/` are
 * Toolhound's folders.
 */
const COMMANDS = {
  lineup: [
    'toolprobe run --model qwen3.5-2b,granite-3.3-2b,gemma4-12b --quant q4 --cases cases/test.jsonl --out reports/',
    'toolgauge probe --base-url URL --model qwen3.5-2b,granite-3.3-2b,gemma4-12b --cases cases/test.jsonl --out-dir reports/',
  ],
  attribute: ['toolprobe attribute --model qwen3.5-2b', 'toolgauge probe --base-url URL --model qwen3.5-2b'],
  method: [
    'toolprobe run --model qwen3.5-2b --cases cases/dev.jsonl --method baseline,pa_tool',
    'toolgauge probe --base-url URL --model qwen3.5-2b --cases cases/dev.jsonl --method baseline,pa_tool',
  ],
  decode: [
    'toolprobe run --model qwen2.5-0.5b --cases cases/dev.jsonl --decode free,constrained',
    'toolgauge probe --base-url URL --model qwen2.5-0.5b --cases cases/dev.jsonl --decode free,constrained',
  ],
  quant: [
    'toolprobe run --model qwen2.5-1.5b --quant bf16,q4 --cases cases/default.jsonl --out reports/',
    'toolgauge probe --lineup quant.yaml --cases cases/default.jsonl --out-dir reports/',
  ],
} as const;

// Toolhound's folders, with a case file in its format (tools by name, tools.yaml beside it) under each name.
const root = mkdtempSync(join(tmpdir(), 'tg-probe-source-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
mkdirSync(join(root, 'cases'));
const CASE = {
  id: 'c1_weather_dev_000',
  cat: 'C1',
  split: 'dev',
  tools: ['get_weather'],
  turns: [{ role: 'user', content: "What's the weather in Tokyo?" }],
  expected: { tool: 'get_weather', args: { location: 'Tokyo' } },
  arg_rules: {},
};
for (const f of ['dev', 'test', 'default'])
  writeFileSync(join(root, 'cases', `${f}.jsonl`), JSON.stringify(CASE) + '\n');
writeFileSync(join(root, 'quant.yaml'), QUANT_LINEUP);
writeFileSync(
  join(root, 'cases', 'tools.yaml'),
  'get_weather:\n  description: weather now\n  parameters: {type: object, properties: {location: {type: string}}}\n',
);

/** The words after `toolgauge probe`, with Toolhound's folders under the test's and the endpoint a closed port. */
const argsOf = (command: string) =>
  command
    .split(' ')
    .slice(2)
    .map((w) =>
      w === 'URL'
        ? 'http://127.0.0.1:9/v1'
        : w
            .replace(/^cases\//, `${root}/cases/`)
            .replace(/^reports\//, `${root}/reports/`)
            .replace(/^quant\.yaml$/, join(root, 'quant.yaml')),
    );

interface Planned {
  plan: RunPlan;
  settings: ProbeSettings;
}

/** The plan and settings `toolgauge probe` builds from a command, through a runner that runs nothing. */
async function planOf(command: string): Promise<Planned> {
  const runs: Planned[] = [];
  const runner: CommandRunner = {
    async runSuite(c, argv, env) {
      const { values } = parseFlags(c.command, argv, { ...MODEL_FLAGS, ...c.flags });
      const r = checkSuiteCommand(c, values, settingsSource(env ?? process.env, values, c.env));
      runs.push({ plan: r.plan, settings: r.settings as ProbeSettings });
      return 0;
    },
  };
  await run(argsOf(command), runner);
  expect(runs).toHaveLength(1);
  return runs[0]!;
}

describe("Toolhound's commands run as `toolgauge probe` with the form docs/probe.md gives", () => {
  it('the commands are the ones docs/probe.md shows, each beside its toolgauge form', async () => {
    const { readFileSync } = await import('node:fs');
    const { fromRoot } = await import('../core/paths.ts');
    const doc = readFileSync(fromRoot('docs', 'probe.md'), 'utf8');
    for (const [source, ours] of Object.values(COMMANDS)) {
      const row = doc.split('\n').find((l) => l.includes(`\`${source}\``));
      expect(row, source).toBeDefined();
      expect(row).toContain(`\`${ours}\``);
    }
    expect(doc).toContain(`\`\`\`yaml\n${QUANT_LINEUP}\`\`\``);
  });

  it(`${COMMANDS.lineup[0]}: three models in one lineup, Toolhound's cases, its report folder`, async () => {
    const { plan, settings } = await planOf(COMMANDS.lineup[1]);
    expect(settings.models.map((m) => m.model)).toEqual(['qwen3.5-2b', 'granite-3.3-2b', 'gemma4-12b']);
    expect(plan.run.model).toBe('qwen3.5-2b');
    expect(settings.casesFile).toBe(`${root}/cases/test.jsonl`);
    // Toolhound's tool palette is found beside its case file.
    expect(settings.toolsFile).toBeUndefined();
    expect(plan.run.outDir).toBe(`${root}/reports/`);
    expect(settings.decode).toEqual(['free']);
    expect(settings.methods).toEqual(['baseline']);
  });

  it(`${COMMANDS.attribute[0]}: one model, attributed case by case under both parser tiers by every run`, async () => {
    const { plan, settings } = await planOf(COMMANDS.attribute[1]);
    expect(plan.run.model).toBe('qwen3.5-2b');
    expect(plan.run.usesSimulator).toBe(false);
    expect(settings.models.map((m) => m.label)).toEqual(['qwen3.5-2b']);
  });

  it(`${COMMANDS.method[0]}: baseline and PA-Tool arms on the dev cases`, async () => {
    const { settings } = await planOf(COMMANDS.method[1]);
    expect(settings.methods).toEqual(['baseline', 'pa_tool']);
    expect(settings.decode).toEqual(['free']);
    expect(settings.casesFile).toBe(`${root}/cases/dev.jsonl`);
  });

  it(`${COMMANDS.decode[0]}: free and constrained arms`, async () => {
    const { settings } = await planOf(COMMANDS.decode[1]);
    expect(settings.decode).toEqual(['free', 'constrained']);
    expect(settings.methods).toEqual(['baseline']);
  });

  it(`${COMMANDS.quant[0]}: the two weights of one model as a lineup, the q4 a quantization of the bf16`, async () => {
    const { plan, settings } = await planOf(COMMANDS.quant[1]);
    expect(settings.models.map((m) => [m.label, m.quantization, m.quantizationOf ?? null])).toEqual([
      ['qwen2.5-1.5b-bf16', 'BF16', null],
      ['qwen2.5-1.5b-q4', 'Q4', 'qwen2.5-1.5b-bf16'],
    ]);
    // The run's own model and endpoint are the lineup's first entry.
    expect(plan.run.model).toBe('qwen2.5-1.5b');
    expect(plan.run.baseUrl).toBe('http://127.0.0.1:8000/v1');
    expect(settings.casesFile).toBe(`${root}/cases/default.jsonl`);
    expect(plan.run.outDir).toBe(`${root}/reports/`);
  });

  it('`--model a,b,c` is expanded to the lineup before parsing, the first being the run’s own model', () => {
    expect(expandModels(['--model', 'a,b,c'])).toEqual(['--model', 'a', '--models', 'a,b,c']);
  });
});
