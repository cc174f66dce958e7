import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fromRoot } from '../../harness/core/paths.ts';
import { probeSuite } from '../../harness/probe/suite.ts';
import { RENDER_V8_FLAGS } from '../../harness/templates/engine.ts';
import { execa } from 'execa';
import { cleanEnv, spawnToolgauge, tempDir, toolgauge } from '../helpers/cli.ts';

// The V8 flags a toolgauge command's own process sets, recorded by a `--require`d module that wraps V8's
// setFlagsFromString (and passes each flag on) before the command's modules import it, and writes the list when the
// process exits. It takes its settings out of the environment, so that the processes the command starts do not record
// over it. The commands that render templates in bulk set the template engine's flag; `parse`, which renders none,
// is the control: its own flag is recorded, the engine's is not.

const RECORDER = `const out = process.env.FLAGS_OUT;
delete process.env.FLAGS_OUT;
delete process.env.NODE_OPTIONS;
const v8 = require('node:v8');
const set = v8.setFlagsFromString;
const flags = [];
v8.setFlagsFromString = (f) => { flags.push(f); set(f); };
require('node:module').syncBuiltinESMExports();
process.on('exit', () => require('node:fs').writeFileSync(out, JSON.stringify(flags)));
`;

function recorder(name: string) {
  const dir = tempDir(`v8-flags-${name}`);
  const file = join(dir, 'recorder.cjs');
  writeFileSync(file, RECORDER);
  const out = join(dir, 'flags.json');
  return {
    // cleanEnv drops the test process's NODE_OPTIONS; these come after it.
    env: { NODE_OPTIONS: `--require ${file}`, FLAGS_OUT: out },
    flags: () => JSON.parse(readFileSync(out, 'utf8')) as string[],
  };
}

const TEMPLATE = fromRoot('harness', 'templates', 'reference', 'hermes.jinja');

describe("the template engine's V8 flag, set by the commands that render templates in bulk", () => {
  it('template check sets it', async () => {
    const r = recorder('template');
    const run = await toolgauge(['template', 'check', '--template', TEMPLATE, '--json'], r.env);
    expect(run.code, run.stderr).toBe(0);
    expect(r.flags()).toEqual([...RENDER_V8_FLAGS]);
    expect(JSON.parse(run.stdout).template).toBe(TEMPLATE);
  });

  it('sim sets it once it listens', async () => {
    const r = recorder('sim');
    const sim = spawnToolgauge(['sim'], r.env);
    await new Promise<void>((resolve) => {
      sim.stdout!.on('data', (chunk: Buffer) => {
        if (String(chunk).includes('listening on')) resolve();
      });
    });
    sim.kill('SIGTERM');
    const done = await sim;
    expect(done.exitCode, `${done.signal} ${String(done.stdout)} ${String(done.stderr)}`).toBe(0);
    expect(r.flags()).toEqual([...RENDER_V8_FLAGS]);
  });

  it("probe's process sets it (its simulator renders every chat request), and the probe suite asks its test worker for it", async () => {
    const r = recorder('probe');
    const out = tempDir('v8-flags-probe-out');
    const run = await toolgauge(
      ['probe', '--model', 'sim:oracle', '--only', 'c1_weather_dev_000', '--out-dir', out],
      r.env,
    );
    expect(run.code, run.stderr).toBe(0);
    expect(r.flags()).toEqual([...RENDER_V8_FLAGS]);
    expect(probeSuite.v8Flags).toEqual(RENDER_V8_FLAGS);
  });

  it("parse does not: its own flag is recorded, not the template engine's", async () => {
    const r = recorder('parse');
    const run = await execa('node', [fromRoot('bin', 'toolgauge.mjs'), 'parse'], {
      env: cleanEnv(r.env),
      extendEnv: false,
      reject: false,
      input: '<tool_call>\n{"name": "f", "arguments": {}}\n</tool_call>',
    });
    expect(run.exitCode, String(run.stderr)).toBe(0);
    expect(r.flags()).toEqual(['--no-turbo-inlining']);
  });
});
