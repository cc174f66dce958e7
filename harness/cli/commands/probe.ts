import { existsSync } from 'node:fs';
import { z } from 'zod';
import { DataError, UsageError } from '../../core/errors.ts';
import { phrasingInventory } from '../../probe/cases/generate.ts';
import { lintCases } from '../../probe/cases/lint.ts';
import { loadCases } from '../../probe/cases/load.ts';
import { FAMILIES } from '../../parse/index.ts';
import { readProbeEnv, selectCases, SPLITS, TRANSPORTS, type ProbeSettings } from '../../probe/run/env.ts';
import { resolveTemplate } from '../../probe/run/template.ts';
import { flagSchemas, parseFlags, type FlagSpecs } from '../flags.ts';
import { flagsToEnv } from '../model-flags.ts';
import { runSuiteCommand } from '../suite-command.ts';
import { probeSuite } from '../../probe/suite.ts';

// toolgauge probe [--cases FILE] [--tools FILE] [--transport chat|completions] [--template FILE] [--split dev|test|all]
//                 [--family NAME] [--only ID,ID] [--categories C1,C2] [model flags]
// toolgauge probe lint [--cases FILE] [--tools FILE] [--json]

const CASE_FLAGS: FlagSpecs = {
  cases: { type: 'string', schema: z.string().min(1), description: 'probe cases (JSONL; toolgauge or Toolhound format)' },
  tools: { type: 'string', schema: z.string().min(1), description: 'tool palette (tools.yaml / tools.json); default: beside the cases file' },
};

const FLAGS: FlagSpecs = {
  ...CASE_FLAGS,
  transport: { type: 'string', values: TRANSPORTS, description: 'chat (server template + parser) or completions (toolgauge renders and parses)' },
  template: { type: 'string', schema: z.string().min(1), description: "the model's chat template (.jinja); with chat: the server's template" },
  split: { type: 'string', values: SPLITS },
  family: { type: 'string', values: ['auto', ...FAMILIES], description: 'tool-call format for the parsers (default: from the template)' },
  only: { type: 'string', schema: flagSchemas.idList },
  categories: { type: 'string', schema: flagSchemas.idList },
};

const ENV = {
  cases: 'TOOLGAUGE_PROBE_CASES',
  tools: 'TOOLGAUGE_PROBE_TOOLS',
  transport: 'TOOLGAUGE_PROBE_TRANSPORT',
  template: 'TOOLGAUGE_PROBE_TEMPLATE',
  split: 'TOOLGAUGE_PROBE_SPLIT',
  family: 'TOOLGAUGE_PROBE_FAMILY',
  only: 'TOOLGAUGE_PROBE_ONLY',
  categories: 'TOOLGAUGE_PROBE_CATEGORIES',
};

export const USAGE = `toolgauge probe [--cases FILE] [--tools FILE] [--transport chat|completions] [--template FILE]
                [--split dev|test|all] [--family NAME] [--only ID,ID] [--categories C1,C2]
                [--model NAME] [--base-url URL] [--concurrency N] [--out-dir DIR] [--resume] [--gate EXPR] [--trials K]
                [--seed N] [--date YYYY-MM-DD] [--shard i/n [--blob-dir DIR]] [--merge-reports DIR] [-t PATTERN]
                [--print-report]
toolgauge probe lint [--cases FILE] [--tools FILE] [--json]`;

function mustExist(flag: string, path: unknown): void {
  if (typeof path === 'string' && !existsSync(path)) throw new UsageError(`toolgauge probe: --${flag} '${path}' does not exist`);
}

function asUsage<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof DataError) throw new UsageError(`toolgauge probe: ${err.message}`);
    throw err;
  }
}

export async function run(argv: string[]): Promise<number> {
  if (argv[0] === 'lint') return lint(argv.slice(1));
  return runSuiteCommand<ProbeSettings>(
    {
      command: 'probe',
      suite: probeSuite,
      flags: FLAGS,
      env: ENV,
      files: ['cases', 'tools', 'template'],
      validate(kc, settings) {
        if (settings.transport === 'completions' && !settings.templateFile && !kc.run.usesSimulator) {
          // toolgauge's reference template is a stand-in for the simulator; a real model needs its own template.
          throw new UsageError("toolgauge probe: --transport completions renders the model's own chat template: pass --template FILE");
        }
        // Validate the inputs before starting Vitest: a bad case file is one line naming the file, line and field.
        const loaded = asUsage(() => loadCases(settings.casesFile, { ...(settings.toolsFile ? { toolsFile: settings.toolsFile } : {}), dateContext: kc.run.injectedDate }));
        if (selectCases(loaded.cases, settings).length === 0) {
          throw new UsageError(`toolgauge probe: no case of ${settings.casesFile} matches --split ${settings.split}${settings.categories ? ` --categories ${settings.categories.join(',')}` : ''}${settings.only ? ' --only …' : ''}`);
        }
        asUsage(() => resolveTemplate(settings, kc.run.injectedDate));
      },
    },
    argv,
  );
}

async function lint(argv: string[]): Promise<number> {
  const { values } = parseFlags('probe lint', argv, { ...CASE_FLAGS, json: { type: 'boolean' } });
  mustExist('cases', values.cases);
  mustExist('tools', values.tools);
  flagsToEnv(values, ENV);
  const settings = readProbeEnv(process.env);
  const loaded = asUsage(() => loadCases(settings.casesFile, settings.toolsFile ? { toolsFile: settings.toolsFile } : {}));
  const own = loaded.cases.some((c) => c.phrasing);
  const r = lintCases(loaded, own ? { phrasings: phrasingInventory() } : {});
  if (values.json) process.stdout.write(JSON.stringify(r, null, 2) + '\n');
  else {
    const lines = [`${settings.casesFile}: ${r.stats.cases} cases; ${r.errors.length} error(s), ${r.warnings.length} warning(s)`];
    for (const [split, cats] of Object.entries(r.stats.bySplit)) lines.push(`  ${split}: ${Object.entries(cats).map(([c, n]) => `${c} ${n}`).join(', ')}`);
    for (const e of r.errors) lines.push(`  error [${e.rule}]${e.id ? ` ${e.id}` : ''}: ${e.message}`);
    for (const w of r.warnings) lines.push(`  warning [${w.rule}]${w.id ? ` ${w.id}` : ''}: ${w.message}`);
    process.stdout.write(lines.join('\n') + '\n');
  }
  return r.errors.length ? 1 : 0;
}
