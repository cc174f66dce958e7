import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunConfig } from '../core/config.ts';
import { tracePath } from '../kit/names.ts';
import { suiteTrialSampling } from '../kit/sampling.ts';
import type { RunContext } from '../kit/types.ts';
import type { ModelClient } from '../model/client.ts';
import type { Sandbox } from '../sandbox/index.ts';
import type { DatasetEntry } from '../toolhop/dataset.ts';
import { singlePrompt } from '../toolhop/run-instance.ts';
import type { ToolhopSettings } from '../toolhop/settings.ts';
import { toolhopSuite } from '../toolhop/suite.ts';
import { planToolhopTeam } from '../toolhop/team.ts';
import { toolhopFeedback } from './feedback.ts';
import type { Candidate, RolePrompts, RolloutResult, RolloutRunner } from './types.ts';

/**
 * The bridge between the optimizer and the ToolHop suite: which roles a topology has and which one answers, the
 * seed prompts, and a rollout = one call of the suite's own `run` (the same code `toolgauge toolhop` runs, in
 * process) with the candidate's prompts written as files in the seed layout (`<dir>/<topology>/<role>.txt`) and
 * handed over as the suite's prompts folder.
 */
export interface ToolhopTarget {
  topology: ToolhopSettings['topology'];
  /** Mutable roles: the answering role first, then the others in team order. */
  roles: string[];
  /** The role whose final message is scored. */
  answerer: string;
  seedPrompts: RolePrompts;
  /** Where each seed prompt was read from. */
  seedSources: Record<string, string>;
}

export function toolhopTarget(settings: ToolhopSettings): ToolhopTarget {
  if (settings.topology === 'single') {
    const p = singlePrompt(settings.promptsDir);
    return { topology: 'single', roles: ['solver'], answerer: 'solver', seedPrompts: p.text, seedSources: p.source };
  }
  const plan = planToolhopTeam({
    topology: settings.topology,
    comm: settings.comm,
    ...(settings.teamSize !== undefined ? { agents: settings.teamSize } : {}),
    ...(settings.rounds !== undefined ? { rounds: settings.rounds } : {}),
    ...(settings.promptsDir ? { promptsDir: settings.promptsDir } : {}),
    maxTurns: settings.maxTurns,
  });
  const members = plan.options.lead ? [plan.options.lead, ...plan.options.roles] : plan.options.roles;
  // The vote's winner (one role), the manager, or the last pipeline stage; it is mutated first, since its message
  // is the one scored, then the others in team order.
  const answerer = plan.options.lead ?? members[members.length - 1]!;
  const roles = [answerer, ...members.filter((r) => r !== answerer)];
  return {
    topology: settings.topology,
    roles,
    answerer,
    seedPrompts: plan.prompts.text,
    seedSources: plan.prompts.source,
  };
}

/** Write a prompt set as files in the seed layout (idempotent: a candidate's files never change). */
export function writePrompts(dir: string, topology: string, prompts: RolePrompts): string {
  mkdirSync(join(dir, topology), { recursive: true });
  for (const [role, text] of Object.entries(prompts)) {
    const file = join(dir, topology, `${role}.txt`);
    if (!existsSync(file)) writeFileSync(file, text.trimEnd() + '\n');
  }
  return dir;
}

export interface ToolhopRunnerOptions {
  run: RunConfig;
  settings: ToolhopSettings;
  entries: ReadonlyMap<string, DatasetEntry>;
  /** Candidate prompt folders go here: `<candidatesDir>/<id>/<topology>/<role>.txt`. */
  candidatesDir: string;
  client: () => ModelClient;
  sandbox: () => Sandbox;
  outDir: string;
}

export function toolhopRunner(o: ToolhopRunnerOptions): RolloutRunner {
  return async (c: Candidate, rowId: string): Promise<RolloutResult> => {
    const entry = o.entries.get(rowId);
    if (!entry) throw new Error(`no row '${rowId}' in the data`);
    const promptsDir = writePrompts(join(o.candidatesDir, c.id), o.settings.topology, c.prompts);
    const settings = { ...o.settings, promptsDir };
    const ctx: RunContext<ToolhopSettings> = {
      run: o.run,
      settings,
      trial: 0,
      outDir: o.outDir,
      client: o.client,
      sampling: suiteTrialSampling(toolhopSuite, o.run, settings, 0),
      sandbox: o.sandbox,
      tracePath,
    };
    const done = await toolhopSuite.run(entry, ctx);
    const m = done.meta;
    const written = m.trace ? done.files?.[m.trace] : undefined;
    const trace: unknown = typeof written === 'string' ? JSON.parse(written) : (written ?? {});
    return {
      score: m.correct && !m.error ? 1 : 0,
      error: m.error,
      tokens: { prompt: m.usage.prompt_tokens, completion: m.usage.completion_tokens, total: m.usage.total_tokens },
      feedback: toolhopFeedback(m, trace),
    };
  };
}
