import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { fromRoot } from '../../harness/core/paths.ts';
import { cleanEnv, readJson, readLines, tempDir } from '../helpers/cli.ts';

// describeEval.skip / .only / .each, an eval's own trials and timeout, and an eval whose tools come from an MCP server
// named in the run's --config file, through `toolgauge eval` (one process, three eval files). The tasks are the
// files' own (no model requests) except the MCP eval's, which sim:oracle answers: what is asserted is which tests
// ran, with which trial and seed, where the output went, and that the server answered and was closed at the end —
// politely (its stdin ended, which the server itself writes down), not left running.
const API = JSON.stringify(fromRoot('harness', 'api', 'index.ts'));
const COMMON = `import { describeEval, type TaskOutput } from ${API};
const answer = (text: string): TaskOutput => ({
  output: text, answer: text, toolCalls: [], messages: [],
  usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 }, turns: 0,
});
const pass = [{ name: 'ok', score: () => true }];
`;

const MODES = `${COMMON}
describeEval.skip('skipped', {
  data: () => { throw new Error('data() of a skipped eval ran'); },
  task: () => answer(''),
  scorers: pass,
});
describeEval.each([{ op: 'add' }, { op: 'mul' }])('calc-$op', (row) => ({
  data: () => [{ id: 'a', input: row.op }],
  task: (input, ctx) => answer(input + ':' + ctx.trial + ':' + ctx.sampling.seed),
  scorers: pass,
  trials: 2,
}));
describeEval('slow', {
  data: () => [{ id: 'hang', input: 'x' }],
  task: () => new Promise<TaskOutput>(() => {}),
  scorers: pass,
  timeout: 300,
});
`;

const SERVER = fromRoot('tests', 'fixtures', 'mcp', 'hostile-server.mjs');
const SERVED = `import { describeEval, mcp, scorers, toolLoop } from ${API};
describeEval('served', {
  data: () => [{ id: 'a', input: 'say hi', expected: 'hi', expectedTools: [{ name: 'echo', arguments: { text: 'hi' } }] }],
  tools: [mcp.fromConfig('hostile')],
  task: toolLoop({ maxTurns: 3 }),
  scorers: [scorers.toolCalls(), scorers.custom('echoed', ({ output }) => output.toolCalls[0]?.result === 'hi')],
});
`;

const ONLY = `${COMMON}
describeEval.only('picked', { data: () => [{ input: 'q' }], task: () => answer('x'), scorers: pass });
describeEval('unpicked', { data: () => [{ input: 'q' }], task: () => answer('x'), scorers: pass });
`;

describe('describeEval modifiers and per-eval options', () => {
  it('.skip loads nothing, .only skips the rest of its file (leaving its output), .each names one eval per row; trials and timeout are per eval', async () => {
    const dir = tempDir('eval-modes');
    writeFileSync(join(dir, 'modes.eval.ts'), MODES);
    writeFileSync(join(dir, 'only.eval.ts'), ONLY);
    writeFileSync(join(dir, 'served.eval.ts'), SERVED);
    const [pidFile, endFile] = [join(dir, 'pid'), join(dir, 'end')];
    const server = { command: process.execPath, args: [SERVER], env: { PID_FILE: pidFile, END_FILE: endFile } };
    writeFileSync(join(dir, 'mcp.json'), JSON.stringify({ mcpServers: { hostile: server } }));
    const r = await execa(
      'node',
      [
        fromRoot('bin', 'toolgauge.mjs'),
        'eval',
        'modes.eval.ts',
        'only.eval.ts',
        'served.eval.ts',
        '--config',
        'mcp.json',
        '--model',
        'sim:oracle',
        '--seed',
        '5',
      ],
      {
        cwd: dir,
        env: cleanEnv({ CI: '', GITHUB_ACTIONS: '', CONTINUOUS_INTEGRATION: '' }),
        extendEnv: false,
        reject: false,
        timeout: 120_000,
      },
    );
    const out = String(r.stdout) + String(r.stderr);
    // The hanging case fails at its own 300 ms timeout (the run's default is far longer): a harness error.
    expect(r.exitCode, out).toBe(1);
    expect(out).toContain('slow › hang: Test timed out in 300ms');
    expect(out).not.toContain('data() of a skipped eval ran');
    const results = join(dir, 'results');
    expect(existsSync(join(results, 'skipped'))).toBe(false);
    expect(existsSync(join(results, 'unpicked'))).toBe(false);
    expect(out).toContain('toolgauge: unpicked: every test was skipped; its output is left as it was');
    expect(readJson<{ counts: { runs: number } }>(join(results, 'picked', 'summary.json')).counts.runs).toBe(1);
    for (const op of ['add', 'mul']) {
      const s = readJson<{ header: { trials: number }; counts: Record<string, number> }>(
        join(results, `calc-${op}`, 'summary.json'),
      );
      expect(s.header.trials).toBe(2);
      expect(s.counts).toMatchObject({ instances: 1, runs: 2, passed: 2 });
      const answers = readLines<{ trial: number; trace: string }>(join(results, `calc-${op}`, 'instances.jsonl'))
        .sort((a, b) => a.trial - b.trial)
        .map((m) => readJson<{ output: { answer: string } }>(join(results, `calc-${op}`, m.trace)).output.answer);
      // Trial t is sent the run's seed + t.
      expect(answers).toEqual([`${op}:0:5`, `${op}:1:6`]);
    }
    // The MCP server named in mcp.json answered the call, and the eval's end closed it.
    const served = readJson<{ metrics: Record<string, { value: number }> }>(join(results, 'served', 'summary.json'));
    expect(served.metrics.echoed!.value).toBe(1);
    expect(served.metrics.tool_calls!.value).toBe(1);
    expect(readFileSync(endFile, 'utf8')).toBe('stdin ended');
    expect(() => process.kill(Number(readFileSync(pidFile, 'utf8')), 0)).toThrow();
  });
});
