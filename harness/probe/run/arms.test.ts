import { describe, expect, it } from 'vitest';
import { UsageError } from '../../core/errors.ts';
import { fromRoot } from '../../core/paths.ts';
import { loadCases } from '../cases/load.ts';
import { armsOf, checkAxes, familyFor, instancesOf, instanceTestName, serverFor, varyingAxes } from './arms.ts';
import { readProbeEnv, type ProbeSettings } from './env.ts';

const cases = loadCases(fromRoot('cases', 'probe', 'cases.jsonl'), { dateContext: '2026-01-15' }).cases.slice(0, 3);
const settings = (env: Record<string, string>, model = 'sim:oracle'): ProbeSettings => readProbeEnv(env, model);

describe('arms as instance dimensions', () => {
  it('a run without axes keeps its case ids and test names', () => {
    const s = settings({});
    const inst = instancesOf(cases, s);
    expect(inst.map((i) => i.id)).toEqual(cases.map((c) => c.id));
    expect(varyingAxes(s)).toEqual([]);
    expect(instanceTestName(inst[0]!, [])).toBe(`probe › ${cases[0]!.cat} › ${cases[0]!.id}`);
  });

  it('each case × arm is one instance, the varying axes in its id and name; paired arms of a case sit together', () => {
    const s = settings({ TOOLGAUGE_PROBE_DECODE: 'free,constrained', TOOLGAUGE_PROBE_MODELS: 'sim:oracle,sim:wrong' });
    expect(armsOf(s)).toHaveLength(4);
    const inst = instancesOf(cases, s);
    expect(inst).toHaveLength(cases.length * 4);
    expect(new Set(inst.map((i) => i.id)).size).toBe(inst.length);
    const c = cases[0]!;
    expect(inst.slice(0, 4).map((i) => i.id)).toEqual([
      `${c.id}|decode=free|model=sim:oracle`,
      `${c.id}|decode=constrained|model=sim:oracle`,
      `${c.id}|decode=free|model=sim:wrong`,
      `${c.id}|decode=constrained|model=sim:wrong`,
    ]);
    expect(instanceTestName(inst[1]!, varyingAxes(s))).toBe(
      `probe › ${c.cat} › ${c.id} › decode=constrained › model=sim:oracle`,
    );
    expect(inst.every((i) => i.case.id === i.id.split('|')[0])).toBe(true);
  });

  it('bad axis values are one-line usage errors naming the variable', () => {
    expect(() => settings({ TOOLGAUGE_PROBE_DECODE: 'free,greedy' })).toThrow(
      /TOOLGAUGE_PROBE_DECODE.*free, constrained/,
    );
    expect(() => settings({ TOOLGAUGE_PROBE_DECODE: 'free,free' })).toThrow(/twice/);
    expect(() => settings({ TOOLGAUGE_PROBE_METHOD: 'baseline,magic' })).toThrow(UsageError);
    expect(() => settings({ TOOLGAUGE_PROBE_MODELS: 'a,a' })).toThrow(/names 'a' twice/);
  });
});

describe('which server and family a constraint is written for, and the refusals', () => {
  const sim = { usesSimulator: true };
  const real = { usesSimulator: false };
  it('the simulator plays llama.cpp on completions and vLLM on chat; a real endpoint needs --server or detection', () => {
    const chat = settings({ TOOLGAUGE_PROBE_DECODE: 'free,constrained' });
    const m = chat.models[0]!;
    expect(serverFor(m, chat, true)).toBe('vllm');
    expect(serverFor(m, settings({ TOOLGAUGE_PROBE_TRANSPORT: 'completions' }), true)).toBe('llamacpp');
    expect(serverFor(m, chat, false)).toBeNull();
    expect(
      serverFor(
        m,
        {
          ...chat,
          endpoints: {
            [m.label]: {
              server: 'sglang',
              server_version: null,
              model_revision: null,
              template_sha256: null,
              tokenizer: null,
              sources: [],
            },
          },
        },
        false,
      ),
    ).toBe('sglang');
    expect(serverFor(m, settings({ TOOLGAUGE_PROBE_SERVER: 'openai' }), false)).toBe('openai');
    // the simulated server's chat template is the reference Hermes one
    expect(familyFor(m, chat, null, true)).toBe('hermes');
    expect(familyFor(m, chat, null, false)).toBeNull();
    expect(familyFor(m, settings({ TOOLGAUGE_PROBE_FAMILY: 'mistral' }), 'hermes', false)).toBe('mistral');
  });

  it('refuses before anything runs: unknown server, llama.cpp chat, SGLang and OpenAI completions, no family', () => {
    const refuse = (
      env: Record<string, string>,
      run: { usesSimulator: boolean },
      templateFamily: 'hermes' | null = null,
    ) => {
      try {
        checkAxes(
          settings(
            { TOOLGAUGE_PROBE_DECODE: 'free,constrained', ...env },
            run.usesSimulator ? 'sim:oracle' : 'real-model',
          ),
          run,
          () => templateFamily,
        );
        return null;
      } catch (e) {
        expect(e).toBeInstanceOf(UsageError);
        return (e as Error).message;
      }
    };
    expect(refuse({}, real)).toMatch(/cannot tell which server.*pass --server/);
    expect(refuse({ TOOLGAUGE_PROBE_SERVER: 'llamacpp', TOOLGAUGE_PROBE_FAMILY: 'hermes' }, real)).toMatch(
      /--server llamacpp: llama-server refuses a custom grammar together with tools/,
    );
    expect(
      refuse(
        {
          TOOLGAUGE_PROBE_SERVER: 'sglang',
          TOOLGAUGE_PROBE_FAMILY: 'hermes',
          TOOLGAUGE_PROBE_TRANSPORT: 'completions',
        },
        real,
      ),
    ).toMatch(/SGLang's completions constraints/);
    expect(refuse({ TOOLGAUGE_PROBE_SERVER: 'openai', TOOLGAUGE_PROBE_TRANSPORT: 'completions' }, real)).toMatch(
      /OpenAI's completions endpoint/,
    );
    expect(refuse({ TOOLGAUGE_PROBE_SERVER: 'vllm' }, real)).toMatch(/needs the model family/);
    // what can constrain passes
    expect(refuse({ TOOLGAUGE_PROBE_SERVER: 'openai' }, real)).toBeNull();
    expect(refuse({ TOOLGAUGE_PROBE_SERVER: 'vllm', TOOLGAUGE_PROBE_FAMILY: 'hermes' }, real)).toBeNull();
    expect(refuse({}, sim)).toBeNull();
    // completions on the simulator: the family is the (reference) template's
    expect(refuse({ TOOLGAUGE_PROBE_TRANSPORT: 'completions' }, sim, 'hermes')).toBeNull();
    // free decoding needs no server at all
    expect(() => checkAxes(settings({}, 'real-model'), real, () => null)).not.toThrow();
  });
});
