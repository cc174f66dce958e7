// The ToolHop commands of the reference (MAS-PromptBench's docs), run as written by `toolgauge toolhop` and
// `toolgauge optimize`: the words after the runner's module go to toolgauge unchanged, the module itself becomes
// the flags that name its cell, and the plan and settings the command builds are checked. Nothing runs.

import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { optimizeRequest } from '../cli/commands/optimize.ts';
import { checkSuiteCommand, type CommandRunner } from '../kit/command.ts';
import { parseFlags } from '../kit/flags/flags.ts';
import { MODEL_FLAGS, settingsSource } from '../kit/flags/model-flags.ts';
import type { RunPlan } from '../kit/plan.ts';
import { run } from './command.ts';
import type { ToolhopSettings } from './settings.ts';
import { toolhopSuite } from './suite.ts';

/**
 * The reference's commands, copied as written: docs/content/tasks/toolhop.md ("Run it", "Optimize it"),
 * docs/content/mas/team-sizes.md ("Run a cell") and docs/content/reference/cli.md ("Runner options": `--only ID ...`,
 * "List several after one flag or repeat it").
 */
const RUNNERS = [
  'python -m topologies.single.toolhop.langgraph_toolhop --smoke-dataset --limit 100',
  'python -m topologies.single.toolhop.langgraph_toolhop --limit 100 --out-dir results/topologies_baseline/single_toolhop',
  'python -m topologies.decentralized.openai_agents.toolhop.openai_agents_toolhop --limit 100 --out-dir results/topologies_baseline/decentralized_openai_agents_toolhop',
  'python -m teamsizes.decentralized.toolhop.toolhop_r10 --limit 100 --out-dir results/teamsizes/r10/decentralized_toolhop',
  'python -m topologies.single.toolhop.langgraph_toolhop --only 3 7 --out-dir results/toolhop_check',
  'python -m topologies.single.toolhop.langgraph_toolhop --batch --only 3 --only 7 --out-dir results/toolhop_check',
];
const OPTIMIZER =
  'python -m optimizers.protocol.run --method gepa --dataset toolhop --topology centralized --model qwen --seed 0 --out runs/gepa/toolhop/centralized/qwen/0';

/**
 * A runner module's cell in toolgauge's flags: `topologies.<topology>…` (its `openai_agents` variant is
 * `--framework openai_agents`, its other framework variants run toolgauge's one team) and
 * `teamsizes.<topology>.toolhop.toolhop_r<r>` (toolgauge's --agents counts a centralized team's workers).
 */
function cellFlags(module: string): string[] {
  const [family, topology, framework] = module.split('.');
  const r = /_r(\d+)$/.exec(module)?.[1];
  const flags = topology === 'single' ? [] : ['--topology', topology!];
  if (framework === 'openai_agents') flags.push('--framework', framework);
  if (family === 'teamsizes' && r)
    flags.push('--agents', String(topology === 'centralized' ? Number(r) - 1 : Number(r)));
  return flags;
}

interface Planned {
  plan: RunPlan;
  settings: ToolhopSettings;
}

async function planOf(command: string): Promise<Planned> {
  const [, , module, ...words] = command.split(' ');
  const runs: Planned[] = [];
  const runner: CommandRunner = {
    async runSuite(c, argv, env) {
      const { values } = parseFlags(c.command, argv, { ...MODEL_FLAGS, ...c.flags });
      const r = checkSuiteCommand(c, values, settingsSource(env ?? process.env, values, c.env));
      await c.validate?.(r.plan, r.settings, values);
      runs.push({ plan: r.plan, settings: r.settings as ToolhopSettings });
      return 0;
    },
  };
  await run([...cellFlags(module!), ...words, '--model', 'sim:oracle'], runner);
  expect(runs).toHaveLength(1);
  return runs[0]!;
}

const outDirOf = (p: Planned) => resolve(toolhopSuite.outDir(p.plan.run, p.settings));

describe("the reference's ToolHop runner commands run as `toolgauge toolhop` with the same words", () => {
  it('--smoke-dataset --limit 100: validate the first 100 rows only', async () => {
    const p = await planOf(RUNNERS[0]!);
    expect(p.settings).toMatchObject({ smokeDataset: true, limit: 100, topology: 'single' });
  });

  it.each([
    [RUNNERS[1]!, 'single', undefined, 'builtin'],
    [RUNNERS[2]!, 'decentralized', undefined, 'openai-agents'],
    [RUNNERS[3]!, 'decentralized', 10, 'builtin'],
  ])('%s', async (command, topology, teamSize, framework) => {
    const p = await planOf(command);
    expect(p.settings).toMatchObject({ limit: 100, topology, teamSize, framework });
    expect(outDirOf(p)).toBe(resolve(command.split(' ').at(-1)!));
  });

  it('--only takes the ids after it, or the flag repeated (the reference: "list several after one flag or repeat it")', async () => {
    const words = await planOf(RUNNERS[4]!);
    const repeated = await planOf(RUNNERS[5]!);
    expect(words.settings.only).toEqual(['3', '7']);
    expect(repeated.settings.only).toEqual(['3', '7']);
  });
});

describe("the reference's ToolHop optimizer command runs as `toolgauge optimize` with the same words", () => {
  it(OPTIMIZER, () => {
    const words = OPTIMIZER.split(' ').slice(3);
    const r = optimizeRequest([...words, '--base-url', 'http://127.0.0.1:9/v1'], { TOOLHOP_ALLOW_DATASET_EXEC: '1' });
    expect(r).toMatchObject({ method: 'gepa', suite: 'toolhop', seed: 0, out: 'runs/gepa/toolhop/centralized/qwen/0' });
    expect(r.settings.topology).toBe('centralized');
    // `qwen` is the reference's key for Qwen/Qwen3.5-9B; toolgauge sends the name it is given.
    expect(r.run.model).toBe('qwen');
  });
});
