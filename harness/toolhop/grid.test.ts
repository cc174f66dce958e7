import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readConfig } from '../core/config.ts';
import { outsideReferenceGrid, outsideReferenceRunners, resolveCell, styleOf } from './grid.ts';
import { readToolhopSettings } from './settings.ts';
import { toolhopSuite } from './suite.ts';
import { planToolhopTeam } from './team.ts';

const outDirOf = (env: Record<string, string>) => toolhopSuite.outDir(readConfig({}), readToolhopSettings(env));
const dir = (style: string) => resolve(join('results', 'toolhop', style));

describe("the default out dir names the cell's style as the reference names its folder", () => {
  // Oracle: the reference's STYLE constants (topologies/*/toolhop, teamsizes/*/toolhop) and its communications
  // study's `<STYLE>_communications_<format>`, written out here by hand.
  it.each([
    [{}, 'single_langgraph'],
    [{ TOOLHOP_TOPOLOGY: 'independent' }, 'independent_langgraph'],
    [{ TOOLHOP_TOPOLOGY: 'decentralized', TOOLHOP_TEAM_SIZE: '4', TOOLHOP_ROUNDS: '2' }, 'decentralized_langgraph'],
    [{ TOOLHOP_TOPOLOGY: 'centralized' }, 'centralized_langgraph'],
    [{ TOOLHOP_TOPOLOGY: 'sequential', TOOLHOP_TEAM_SIZE: '8' }, 'sequential_toolhop_r8'],
    [{ TOOLHOP_TOPOLOGY: 'decentralized', TOOLHOP_TEAM_SIZE: '10' }, 'decentralized_toolhop_r10'],
    [{ TOOLHOP_TOPOLOGY: 'centralized', TOOLHOP_TEAM_SIZE: '1' }, 'centralized_toolhop_r2'],
    [
      { TOOLHOP_TOPOLOGY: 'independent', TOOLHOP_COMM: 'structured' },
      'independent_langgraph_communications_structured_soft',
    ],
    [
      { TOOLHOP_TOPOLOGY: 'sequential', TOOLHOP_COMM: 'semi_structured' },
      'sequential_langgraph_communications_semi_structured',
    ],
  ])('%j → results/toolhop/%s', (env, style) => {
    expect(outDirOf(env as Record<string, string>)).toBe(dir(style));
  });

  it('a cell outside the grid gets a name in the same pattern, never the name of a grid cell', () => {
    expect(outDirOf({ TOOLHOP_TOPOLOGY: 'independent', TOOLHOP_TEAM_SIZE: '5' })).toBe(dir('independent_toolhop_r5'));
    expect(outDirOf({ TOOLHOP_TOPOLOGY: 'decentralized', TOOLHOP_ROUNDS: '3' })).toBe(
      dir('decentralized_toolhop_r4_rounds3'),
    );
    expect(outDirOf({ TOOLHOP_TOPOLOGY: 'sequential', TOOLHOP_TEAM_SIZE: '2', TOOLHOP_COMM: 'structured' })).toBe(
      dir('sequential_toolhop_r2_structured_soft'),
    );
  });
});

describe("the reference's experiment grid", () => {
  it('holds every team at 2, 4, 8, 10 (freeform), the formats at 4, single; and nothing else', () => {
    const grid: string[] = [];
    for (const topology of ['independent', 'decentralized', 'centralized', 'sequential'] as const)
      for (let agents = 1; agents <= 10; agents++)
        for (const comm of ['freeform', 'semi_structured', 'structured'] as const)
          for (const rounds of [1, 2, 3]) {
            const c = resolveCell({ topology, teamSize: agents, rounds, comm });
            if (!outsideReferenceGrid(c)) grid.push(styleOf(c));
          }
    // 4 topologies × (4 sizes + 2 other formats at the baseline): 24 cells, each with its own folder name.
    expect(new Set(grid).size).toBe(24);
    // independent and sequential have no rounds (all three settings give the same cell); the other two take only theirs.
    expect(grid).toHaveLength(6 * 3 + 6 * 3 + 6 + 6);
    expect(outsideReferenceGrid(resolveCell({ topology: 'single' }))).toBeNull();
  });

  it("ToolHop's default team is the reference's baseline cell", () => {
    for (const topology of ['independent', 'decentralized', 'centralized', 'sequential'] as const) {
      const plan = planToolhopTeam({ topology });
      expect(
        outsideReferenceGrid({
          topology,
          agents: plan.options.agents,
          rounds: plan.options.rounds,
          comm: plan.options.comm,
        }),
        topology,
      ).toBeNull();
      expect(styleOf({ topology, agents: plan.options.agents, rounds: plan.options.rounds, comm: 'freeform' })).toBe(
        `${topology}_langgraph`,
      );
    }
    expect(planToolhopTeam({ topology: 'independent' }).options.agents).toBe(4);
    expect(planToolhopTeam({ topology: 'decentralized' }).options).toMatchObject({ agents: 4, rounds: 2 });
    expect(planToolhopTeam({ topology: 'centralized' }).options.roles).toHaveLength(3);
  });
});

describe("the cells the reference's runners run", () => {
  it('independent and decentralized at any size, rounds and format (their runners read the team from the environment); centralized and sequential only on the grid', () => {
    for (const agents of [1, 3, 5, 7, 12])
      for (const comm of ['freeform', 'structured'] as const) {
        expect(outsideReferenceRunners(resolveCell({ topology: 'independent', teamSize: agents, comm }))).toBeNull();
        expect(
          outsideReferenceRunners(resolveCell({ topology: 'decentralized', teamSize: agents, rounds: 3, comm })),
        ).toBeNull();
      }
    expect(outsideReferenceRunners(resolveCell({ topology: 'sequential', teamSize: 5 }))).toMatch(/team size 5/);
    expect(outsideReferenceRunners(resolveCell({ topology: 'centralized', teamSize: 4 }))).toMatch(/team size 5/);
    expect(outsideReferenceRunners(resolveCell({ topology: 'centralized', teamSize: 7 }))).toBeNull();
    expect(outsideReferenceRunners(resolveCell({ topology: 'sequential', teamSize: 8, comm: 'structured' }))).toMatch(
      /format structured at team size 8/,
    );
  });
});

describe('the Agents SDK team (--framework openai-agents)', () => {
  it("is the reference's decentralized_openai_agents folder at the baseline, the LangGraph name plus _openai_agents elsewhere", () => {
    const sdk = (o: { teamSize?: number; rounds?: number; comm?: 'freeform' | 'structured' }) =>
      resolveCell({ topology: 'decentralized', framework: 'openai-agents', ...o });
    expect(styleOf(sdk({}))).toBe('decentralized_openai_agents');
    expect(styleOf(sdk({ teamSize: 8 }))).toBe('decentralized_toolhop_r8_openai_agents');
    expect(styleOf(sdk({ rounds: 3 }))).toBe('decentralized_toolhop_r4_rounds3_openai_agents');
    expect(styleOf(resolveCell({ topology: 'decentralized', framework: 'builtin' }))).toBe('decentralized_langgraph');
  });

  it('runs at any size and rounds, as its runner reads both; a report format is outside the reference', () => {
    const sdk = (o: { teamSize?: number; rounds?: number; comm?: 'freeform' | 'structured' }) =>
      resolveCell({ topology: 'decentralized', framework: 'openai-agents', ...o });
    expect(outsideReferenceRunners(sdk({ teamSize: 7, rounds: 3 }))).toBeNull();
    expect(outsideReferenceRunners(sdk({ comm: 'structured' }))).toMatch(/format structured on the OpenAI Agents SDK/);
  });
});
