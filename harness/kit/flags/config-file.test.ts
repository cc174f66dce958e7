// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are configuration values with ${VAR} placeholders, not templates
import { resolve } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { UsageError } from '../../core/errors.ts';
import { applyConfig, configTokens, interpolate, kebabKey } from './config-file.ts';
import { didYouMean } from './did-you-mean.ts';
import { flagSchemas, parseFlags, type FlagSpecs } from './flags.ts';

const SPECS: FlagSpecs = {
  model: { type: 'string' },
  'base-url': { type: 'string', schema: z.string().url('must be a URL') },
  judge: { type: 'string', values: ['compat', 'strict'] },
  'max-turns': { type: 'string', schema: flagSchemas.positiveInt },
  only: { type: 'string', multiple: true },
  categories: { type: 'string', schema: flagSchemas.idList },
  resume: { type: 'boolean' },
  filter: { type: 'string', short: 't' },
  models: { type: 'string' },
};

/** argv with `--config run.yaml` read from an in-memory file. */
function withFile(text: string, argv: string[], env: Record<string, string> = {}, file = 'run.yaml', o = {}): string[] {
  return applyConfig('maze', ['--config', file, ...argv], SPECS, o, env, (f) => {
    if (f !== file) throw Object.assign(new Error('nope'), { code: 'ENOENT' });
    return text;
  });
}
const parsed = (argv: string[]) => parseFlags('maze', argv, SPECS).values;

describe('interpolate', () => {
  const name = fc.stringMatching(/^[A-Z_][A-Z0-9_]{0,8}$/);
  const text = fc.string().filter((s) => !s.includes('$'));
  it('leaves text without a placeholder alone', () => {
    fc.assert(fc.property(text, (s) => interpolate(s, {}, 'w') === s));
  });
  it('puts the value of a set variable in, around any text', () => {
    fc.assert(
      fc.property(
        name,
        fc.string(),
        text,
        text,
        (n, v, a, b) => interpolate(`${a}\${${n}}${b}`, { [n]: v }, 'w') === a + v + b,
      ),
    );
  });
  it('takes the default of ${VAR:-d} when the variable is unset or empty, and of ${VAR-d} only when unset', () => {
    fc.assert(
      fc.property(
        name,
        text.filter((s) => !s.includes('}')),
        (n, d) => {
          expect(interpolate(`\${${n}:-${d}}`, {}, 'w')).toBe(d);
          expect(interpolate(`\${${n}:-${d}}`, { [n]: '' }, 'w')).toBe(d);
          expect(interpolate(`\${${n}-${d}}`, { [n]: '' }, 'w')).toBe('');
          expect(interpolate(`\${${n}-${d}}`, {}, 'w')).toBe(d);
          expect(interpolate(`\${${n}:-${d}}`, { [n]: 'set' }, 'w')).toBe('set');
        },
      ),
    );
  });
  it('reads $${ as a literal ${ and never interpolates a value twice', () => {
    expect(interpolate('$${HOME}', { HOME: '/h' }, 'w')).toBe('${HOME}');
    expect(interpolate('${A}', { A: '${B}', B: 'no' }, 'w')).toBe('${B}');
  });
  it('refuses an unset variable without default and a malformed placeholder, naming where', () => {
    expect(() => interpolate('http://${HOST}/v1', {}, "run.yaml: key 'base-url'")).toThrow(
      "run.yaml: key 'base-url': environment variable HOST is not set (give a default with ${HOST:-…})",
    );
    expect(() => interpolate('${HOST', {}, 'w')).toThrow(/malformed placeholder/);
    expect(() => interpolate('${1X}', {}, 'w')).toThrow(/malformed placeholder/);
    expect(() => interpolate('${X:?e}', { X: 'a' }, 'w')).toThrow(/malformed placeholder/);
  });
});

describe('keys', () => {
  it('reads camelCase and snake_case as the kebab-case flag name', () => {
    expect(kebabKey('baseUrl')).toBe('base-url');
    expect(kebabKey('max_turns')).toBe('max-turns');
    expect(kebabKey('maxStringLength')).toBe('max-string-length');
    expect(kebabKey('top-p')).toBe('top-p');
  });
  it('suggests a near key', () => {
    expect(didYouMean('modle', ['model', 'judge'])).toBe('model');
    expect(didYouMean('max-turn', ['max-turns'])).toBe('max-turns');
    expect(didYouMean('zzz', ['model'])).toBeUndefined();
  });
});

describe('--config FILE', () => {
  it('gives the same values as the flags, with every spelling of a key', () => {
    const argv = withFile(
      'model: m1\nbaseUrl: http://127.0.0.1:9/v1\nmax_turns: 4\nresume: true\njudge: strict\ncategories: [c1, c2]\nonly: [a, b]\n',
      [],
    );
    expect(parsed(argv)).toEqual(
      parsed([
        '--model',
        'm1',
        '--base-url',
        'http://127.0.0.1:9/v1',
        '--max-turns',
        '4',
        '--resume',
        '--judge',
        'strict',
        '--categories',
        'c1,c2',
        '--only',
        'a',
        '--only',
        'b',
      ]),
    );
  });
  it('lets the command line win, a repeatable flag included, and keeps the rest of the file', () => {
    const argv = withFile('model: m1\nonly: [a, b]\nmax-turns: 4\nfilter: x\n', [
      '--model',
      'm2',
      '--only',
      'c',
      '-t',
      'y',
    ]);
    expect(parsed(argv)).toEqual({ model: 'm2', only: ['c'], 'max-turns': 4, filter: 'y' });
  });
  it("applies the command's own section over the top level and skips other commands' sections", () => {
    const argv = withFile('model: m1\nmax-turns: 3\nmaze:\n  maxTurns: 9\nprobe:\n  decode: free\n', []);
    expect(parsed(argv)).toEqual({ model: 'm1', 'max-turns': 9 });
  });
  it('interpolates the environment into values, and a missing variable is one line naming file and key', () => {
    expect(parsed(withFile('base-url: ${URL:-http://127.0.0.1:8000/v1}\nmodel: ${M}\n', [], { M: 'qwen' }))).toEqual({
      'base-url': 'http://127.0.0.1:8000/v1',
      model: 'qwen',
    });
    expect(() => withFile('maze:\n  model: ${MODEL_NAME}\n', [])).toThrow(
      "toolgauge maze: run.yaml: key 'maze.model': environment variable MODEL_NAME is not set (give a default with ${MODEL_NAME:-…})",
    );
  });
  it('refuses an unknown key, naming the file and the key, with a suggestion', () => {
    expect(() => withFile('modle: x\n', [])).toThrow(
      "toolgauge maze: run.yaml: unknown key 'modle' (did you mean 'model'?)",
    );
    expect(() => withFile('maze:\n  nothing_like_it: 1\n', [])).toThrow(
      "toolgauge maze: run.yaml: unknown key 'maze.nothing_like_it'",
    );
    expect(() => withFile('config: other.yaml\n', [])).toThrow(/unknown key 'config'/);
  });
  it('refuses a bad value as the flag would, naming file and key', () => {
    expect(() => withFile('judge: loose\n', [])).toThrow(
      "toolgauge maze: run.yaml: key 'judge' must be one of compat|strict (got 'loose')",
    );
    expect(() => withFile('max-turns: 0\n', [])).toThrow(
      "toolgauge maze: run.yaml: key 'max-turns' must be >= 1 (got '0')",
    );
    expect(() => withFile('base-url: nope\n', [])).toThrow(/key 'base-url' must be a URL/);
    expect(() => withFile('resume: "yes"\n', [])).toThrow("key 'resume' must be true or false");
    expect(() => withFile('model:\n', [])).toThrow("key 'model' has no value");
    expect(() => withFile('model: {a: 1}\n', [])).toThrow(/key 'model' must be a string, number, boolean or a list/);
    expect(() => withFile('base-url: http://a/v1\nbase_url: http://b/v1\n', [])).toThrow(
      "keys 'base-url' and 'base_url' both set 'base-url'",
    );
  });
  it('refuses a file that is not a mapping, is not valid YAML or JSON, or does not exist', () => {
    expect(() => withFile('- a\n- b\n', [])).toThrow(
      'toolgauge maze: run.yaml: the file must be a mapping of flag names to values',
    );
    expect(() => withFile('model: [a\n', [])).toThrow(/run\.yaml: not valid YAML/);
    expect(() => withFile('model: a\nmodel: b\n', [])).toThrow(/not valid YAML/);
    expect(() => withFile('{"model": ', [], {}, 'run.json')).toThrow(/run\.json: not valid JSON/);
    expect(() => applyConfig('maze', ['--config', '/nonexistent/x.yaml'], SPECS, {}, {})).toThrow(
      "toolgauge maze: --config '/nonexistent/x.yaml' does not exist",
    );
    expect(() => applyConfig('maze', ['--config'], SPECS, {}, {})).toThrow(UsageError);
  });
  it('reads JSON and returns a command line without --config unchanged', () => {
    expect(parsed(withFile('{"model": "m", "maxTurns": 2}', [], {}, 'run.json'))).toEqual({
      model: 'm',
      'max-turns': 2,
    });
    expect(applyConfig('maze', ['--model', 'x'], SPECS, {}, {})).toEqual(['--model', 'x']);
  });
  it('applies several files in order (a later one wins)', () => {
    const files: Record<string, string> = { 'a.yaml': 'model: a\nmax-turns: 2\n', 'b.yaml': 'model: b\n' };
    const argv = applyConfig('maze', ['--config', 'a.yaml', '--config=b.yaml'], SPECS, {}, {}, (f) => files[f]!);
    expect(parsed(argv)).toEqual({ model: 'b', 'max-turns': 2 });
  });
  it('takes aliases (models: → --model a,b) and positionals (eval files) when the command line has none', () => {
    const o = { aliases: { models: 'model' }, hidden: ['models'] };
    expect(parsed(withFile('models: [a, b]\n', [], {}, 'run.yaml', o))).toEqual({ model: 'a,b' });
    expect(() => withFile('models: [a]\nmodel: b\n', [], {}, 'run.yaml', o)).toThrow(
      "keys 'models' and 'model' both set 'model'",
    );
    const p = { positionals: 'files' };
    expect(
      parseFlags('eval', withFile('files: [a.eval.ts, b.eval.ts]\nmodel: m\n', [], {}, 'run.yaml', p), SPECS, true)
        .positionals,
    ).toEqual(['a.eval.ts', 'b.eval.ts']);
    expect(
      parseFlags('eval', withFile('files: [a.eval.ts]\n', ['c.eval.ts'], {}, 'run.yaml', p), SPECS, true).positionals,
    ).toEqual(['c.eval.ts']);
  });
  it("passes a file holding a data key (eval's mcpServers) by its absolute path as the named flag", () => {
    const specs: FlagSpecs = { ...SPECS, 'mcp-config': { type: 'string' } };
    const o = { fileKeys: { mcpServers: 'mcp-config' } };
    const argv = applyConfig('eval', ['--config', 'mcp.json'], specs, o, {}, () =>
      JSON.stringify({ model: 'm', mcpServers: { memory: { command: 'node' } } }),
    );
    expect(parseFlags('eval', argv, specs).values).toEqual({ model: 'm', 'mcp-config': resolve('mcp.json') });
    // without the option the key is what it always was: unknown
    expect(() => applyConfig('eval', ['--config', 'mcp.json'], specs, {}, {}, () => '{"mcpServers": {}}')).toThrow(
      "unknown key 'mcpServers'",
    );
  });
  it('reads YAML 1.2: on/off and dates stay the strings the flags take; numbers are numbers unless quoted', () => {
    const specs: FlagSpecs = {
      thinking: { type: 'string', values: ['on', 'off'] },
      date: { type: 'string' },
      only: { type: 'string', multiple: true },
    };
    const argv = applyConfig(
      'toolhop',
      ['--config', 'f.yaml'],
      specs,
      {},
      {},
      () => 'thinking: off\ndate: 2025-06-01\nonly: [007, "007"]\n',
    );
    expect(parseFlags('toolhop', argv, specs).values).toEqual({
      thinking: 'off',
      date: '2025-06-01',
      only: ['7', '007'],
    });
  });
  it('a variable cannot add keys: values are interpolated after parsing', () => {
    expect(parsed(withFile('model: ${M}\n', [], { M: 'x\nresume: true' }))).toEqual({ model: 'x\nresume: true' });
  });
  it('configTokens of an empty document is nothing', () => {
    expect(configTokens('maze', 'f', null, SPECS, {})).toEqual({ tokens: [], positionals: [] });
  });
});

describe('docs/config.md', () => {
  it('each suite example is a valid configuration of its command', async () => {
    const { readFileSync } = await import('node:fs');
    const { fromRoot } = await import('../../core/paths.ts');
    const { MODEL_FLAGS } = await import('./model-flags.ts');
    const toolhop = await import('../../toolhop/command.ts');
    const maze = await import('../../maze/command.ts');
    const probe = await import('../../probe/command.ts');
    const bfcl = await import('../../bfcl/command.ts');
    const apibank = await import('../../apibank/command.ts');
    const evalCmd = await import('../../cli/commands/eval.ts');
    const commands: Record<string, [FlagSpecs, object]> = {
      toolhop: [{ ...MODEL_FLAGS, ...toolhop.FLAGS }, {}],
      maze: [{ ...MODEL_FLAGS, ...maze.FLAGS }, {}],
      probe: [{ ...MODEL_FLAGS, ...probe.FLAGS }, probe.CONFIG_OPTIONS],
      bfcl: [{ ...MODEL_FLAGS, ...bfcl.RUN_FLAGS }, {}],
      apibank: [{ ...MODEL_FLAGS, ...apibank.RUN_FLAGS }, {}],
      eval: [MODEL_FLAGS, evalCmd.CONFIG_OPTIONS],
    };
    const doc = readFileSync(fromRoot('docs', 'config.md'), 'utf8');
    const examples = [...doc.matchAll(/^`(\w+)\.yaml` —[^\n]*\n\n```yaml\n([\s\S]*?)```/gm)];
    expect(examples.map((m) => m[1]).sort()).toEqual(Object.keys(commands).sort());
    const env = {
      VLLM_URL: 'http://127.0.0.1:8000/v1',
      MODEL: 'm',
      BASE_URL: 'http://127.0.0.1:8000/v1',
      APIBANK_DATA: 'data',
    };
    for (const [, command, text] of examples) {
      const [specs, o] = commands[command!]!;
      const argv = applyConfig(command!, ['--config', `${command}.yaml`], specs, o, env, () => text!);
      expect(() => parseFlags(command!, argv, specs, command === 'eval'), command).not.toThrow();
      expect(argv.length, command).toBeGreaterThan(2);
    }
  });
});

describe('hostile configuration files', () => {
  it('a secret expanded into a key that a flag check refuses is named by its variable, never printed', () => {
    const secret = 'sk-live-0123456789abcdef';
    let message = '';
    try {
      withFile('max_turns: ${API_KEY}\n', [], { API_KEY: secret });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toBe(
      "toolgauge maze: run.yaml: key 'max_turns' must be a number (got '${API_KEY}') (the value came from ${API_KEY}; not shown)",
    );
    expect(() => withFile('judge: "x${API_KEY}"\n', [], { API_KEY: secret })).toThrow(
      /key 'judge' must be one of compat\|strict \(got 'x\$\{API_KEY\}'\) \(the value came from \$\{API_KEY\}; not shown\)$/,
    );
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z0-9_-]{8,30}$/), (key) => {
        try {
          withFile('max_turns: "${K}"\n', [], { K: key });
        } catch (err) {
          expect((err as Error).message).not.toContain(key);
        }
      }),
    );
  });

  it('a YAML alias bomb is one line, not a stack trace', () => {
    const lines = ['a0: &a0 [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 10; i++)
      lines.push(
        `a${i}: &a${i} [${Array(10)
          .fill(`*a${i - 1}`)
          .join(', ')}]`,
      );
    lines.push('model: *a9');
    let err: unknown;
    try {
      withFile(`${lines.join('\n')}\n`, []);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toBe(
      'toolgauge maze: run.yaml: not valid YAML: Excessive alias count indicates a resource exhaustion attack',
    );
  });
});
