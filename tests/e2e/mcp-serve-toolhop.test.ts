import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromRoot } from '../../harness/core/paths.ts';
import { cleanEnv, readLines, tempDir } from '../helpers/cli.ts';

// `toolgauge mcp serve toolhop --row ID` over stdio, driven by the SDK's client: the row's Python tools run in the
// sandbox (the CPython backend, as the other end-to-end ToolHop tests use). The oracle is the row itself: its tool
// names and the answers its sub-questions record.

const ROW = (
  JSON.parse(readFileSync(fromRoot('cases', 'toolhop', 'sample.json'), 'utf8')) as Array<{
    id: number;
    tools: Record<string, { name: string }>;
    sub_task: Record<string, string>;
  }>
)[0]!;

describe('toolgauge mcp serve toolhop', () => {
  const log = join(tempDir('mcp-toolhop'), 'calls.jsonl');
  const client = new Client({ name: 'test', version: '1' });
  beforeAll(async () => {
    const args = ['mcp', 'serve', 'toolhop', '--row', String(ROW.id), '--sandbox', 'python', '--call-log', log];
    await client.connect(
      new StdioClientTransport({
        command: 'node',
        args: [fromRoot('bin', 'toolgauge.mjs'), ...args],
        env: cleanEnv({ TOOLHOP_ALLOW_DATASET_EXEC: '1' }),
        stderr: 'ignore',
      }),
    );
  });
  afterAll(async () => {
    await client.close();
  });

  it("lists the row's tools and runs them in the sandbox", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(
      Object.values(ROW.tools)
        .map((t) => t.name)
        .sort(),
    );
    const r = await client.callTool({
      name: 'building_architect_lookup',
      arguments: { building_name: 'Lindqvist Observatory' },
    });
    expect(r.isError).toBe(false);
    expect(JSON.parse((r.content as Array<{ text: string }>)[0]!.text)).toBe(
      ROW.sub_task['Who designed the Lindqvist Observatory?'],
    );
    const unknown = await client.callTool({ name: 'no_such_tool', arguments: {} });
    expect(unknown.isError).toBe(true);
    expect(readLines(log).map((l) => [l.tool, l.outcome, l.is_error])).toEqual([
      ['building_architect_lookup', 'ok', false],
      ['no_such_tool', 'unknown_tool', true],
    ]);
  });
});
