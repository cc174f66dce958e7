import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mazeOutDir, readMazeConfig } from './config.ts';

describe('mazeOutDir', () => {
  it('lays runs out as results/<model>/<fc|mcp>/ (ToolMaze: mcp = prompt-based tool calling), unless --out-dir says otherwise', () => {
    expect(mazeOutDir({ outDir: undefined, model: 'sim:oracle' }, { agent: 'fc' })).toBe(
      resolve('results', 'sim_oracle', 'fc'),
    );
    expect(mazeOutDir({ outDir: undefined, model: 'org/m-7b' }, { agent: 'prompt' })).toBe(
      resolve('results', 'org_m-7b', 'mcp'),
    );
    expect(mazeOutDir({ outDir: join('x', 'y'), model: 'm' }, { agent: 'prompt' })).toBe(resolve('x', 'y'));
  });
});

describe('--agent-type', () => {
  const cfg = (env: Record<string, string>) => readMazeConfig(env);
  const out = (env: Record<string, string>) => mazeOutDir({ outDir: undefined, model: 'm' }, cfg(env));
  it('names ToolMaze agents: openai, vllm and anthropic call tools natively (fc/), mcp in the prompt (mcp/)', () => {
    expect(cfg({})).toMatchObject({ agentType: 'openai', agent: 'fc' });
    for (const t of ['openai', 'vllm', 'anthropic']) {
      expect(cfg({ TOOLGAUGE_MAZE_AGENT_TYPE: t })).toMatchObject({ agentType: t, agent: 'fc' });
      expect(out({ TOOLGAUGE_MAZE_AGENT_TYPE: t })).toBe(resolve('results', 'm', 'fc'));
    }
    expect(cfg({ TOOLGAUGE_MAZE_AGENT_TYPE: 'mcp' })).toMatchObject({ agentType: 'mcp', agent: 'prompt' });
    expect(out({ TOOLGAUGE_MAZE_AGENT_TYPE: 'mcp' })).toBe(resolve('results', 'm', 'mcp'));
  });
  it('keeps --agent fc|prompt as an alias, and refuses one that disagrees', () => {
    expect(cfg({ TOOLGAUGE_MAZE_AGENT: 'prompt' })).toMatchObject({ agentType: 'mcp', agent: 'prompt' });
    expect(cfg({ TOOLGAUGE_MAZE_AGENT: 'fc', TOOLGAUGE_MAZE_AGENT_TYPE: 'anthropic' })).toMatchObject({
      agentType: 'anthropic',
    });
    expect(() => cfg({ TOOLGAUGE_MAZE_AGENT: 'prompt', TOOLGAUGE_MAZE_AGENT_TYPE: 'openai' })).toThrow(/disagree/);
  });
  it('an unknown agent needs --agent-module; a module needs --agent-type; a user agent writes to its own folder', () => {
    expect(() => cfg({ TOOLGAUGE_MAZE_AGENT_TYPE: 'gemini' })).toThrow(/not one of openai,vllm,mcp,anthropic/);
    expect(() => cfg({ TOOLGAUGE_MAZE_AGENT_MODULE: 'a.mjs' })).toThrow(/--agent-type NAME/);
    const c = cfg({ TOOLGAUGE_MAZE_AGENT_TYPE: 'mine', TOOLGAUGE_MAZE_AGENT_MODULE: 'a.mjs' });
    expect(c).toMatchObject({ agentType: 'mine', agentModule: resolve('a.mjs') });
    expect(mazeOutDir({ outDir: undefined, model: 'm' }, c)).toBe(resolve('results', 'm', 'mine'));
  });
});

describe('--verdict', () => {
  it('defaults to the rule judge; llm and both need the LLM judge they read, and anything else is refused', () => {
    expect(readMazeConfig({})).toMatchObject({ verdict: 'rules' });
    expect(readMazeConfig({ TOOLGAUGE_MAZE_VERDICT: 'both', TOOLGAUGE_MAZE_JUDGE_MODEL: 'sim:judge' })).toMatchObject({
      verdict: 'both',
      judgeModel: 'sim:judge',
    });
    expect(() => readMazeConfig({ TOOLGAUGE_MAZE_VERDICT: 'llm' })).toThrow(/^--verdict llm needs --judge-model/);
    expect(() => readMazeConfig({ TOOLGAUGE_MAZE_VERDICT: 'gpt' })).toThrow(/TOOLGAUGE_MAZE_VERDICT/);
  });
});
