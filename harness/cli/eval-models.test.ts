import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyConfig } from '../kit/flags/config-file.ts';
import { parseFlags } from '../kit/flags/flags.ts';
import { CONFIG_OPTIONS, EVAL_FLAGS } from './commands/eval.ts';
import type { RunConfig } from '../core/config.ts';
import { evalSuite } from '../kit/eval/suite.ts';
import { modelFolders, modelListOf, runEachModel } from './eval-models.ts';

describe('--model a,b', () => {
  it('a comma list is the models (flag first, then TOOLGAUGE_MODEL); one name is no list', () => {
    expect(modelListOf({ model: 'a, b ,c' }, {})).toEqual(['a', 'b', 'c']);
    expect(modelListOf({}, { TOOLGAUGE_MODEL: 'x,y' })).toEqual(['x', 'y']);
    expect(modelListOf({ model: 'a' }, { TOOLGAUGE_MODEL: 'x,y' })).toBeNull();
    expect(() => modelListOf({ model: 'a,b,a' }, {})).toThrow(/^toolgauge eval: --model 'a,b,a': 'a' is named twice$/);
    expect(() => modelListOf({ model: ',a' }, {})).toThrow(/an empty model name/);
  });

  it("a configuration file's `models: [a, b]` or `model: [a, b]` is the list", () => {
    for (const key of ['models', 'model']) {
      const argv = applyConfig(
        'eval',
        ['--config', 'c.yaml'],
        EVAL_FLAGS,
        CONFIG_OPTIONS,
        {},
        () => `${key}: [a, b]\n`,
      );
      expect(modelListOf(parseFlags('eval', argv, EVAL_FLAGS, true).values, {}), key).toEqual(['a', 'b']);
    }
  });

  it('folders are safe names, distinct even where two names differ only in case or in their punctuation', () => {
    expect(modelFolders(['sim:oracle', 'Qwen/Qwen2.5-7B', 'gguf:../m.gguf', '..', 'comparison.md'])).toEqual([
      'sim_oracle',
      'Qwen_Qwen2.5-7B',
      'gguf_.._m.gguf',
      'model',
      expect.stringMatching(/^comparison\.md-[0-9a-f]{8}$/),
    ]);
    const clash = modelFolders(['a/b', 'a:b', 'A_B', 'c']);
    expect(new Set(clash.map((f) => f.toLowerCase())).size).toBe(4);
    expect(clash[3]).toBe('c');
    for (const f of clash.slice(0, 3)) expect(f).toMatch(/^(a_b|A_B)-[0-9a-f]{8}$/);
    // a model keeps its folder whatever the list's order
    expect(modelFolders(['c', 'A_B', 'a:b', 'a/b']).reverse()).toEqual(clash);
  });

  it("an eval's run with a model folder writes inside the eval's directory, with or without --out-dir", () => {
    const def = evalSuite('e1', { data: () => [], task: () => null, scorers: [] });
    const run = (o: Partial<RunConfig>) => ({ outDir: undefined, ...o }) as RunConfig;
    expect(def.outDir(run({ modelFolder: 'm' }), { threshold: 1 })).toBe(resolve('results', 'e1', 'm'));
    expect(def.outDir(run({ outDir: '/tmp/x', modelFolder: 'm' }), { threshold: 1 })).toBe('/tmp/x/m');
    expect(def.outDir(run({}), { threshold: 1 })).toBe(resolve('results', 'e1'));
  });

  it('a model whose run is refused (exit 2) is the last run: the models after it would be refused the same way', async () => {
    for (const [codes, ran, exit] of [
      [[0, 2, 0], ['a', 'b'], 2],
      [[2, 0, 0], ['a'], 2],
      [[1, 0, 0], ['a', 'b', 'c'], 1],
    ] as const) {
      const models: string[] = [];
      const said: string[] = [];
      const write = process.stdout.write;
      process.stdout.write = ((t: string) => said.push(t)) as never;
      let code: number;
      try {
        code = await runEachModel(['a', 'b', 'c'], {}, async (values) => {
          models.push(values.model as string);
          return { exitCode: codes[models.length - 1]!, ended: [] };
        });
      } finally {
        process.stdout.write = write;
      }
      expect([models, code], codes.join(',')).toEqual([ran, exit]);
    }
  });
});
