import { describe, expect, it } from 'vitest';
import { DataError } from '../../core/errors.ts';
import { sha256 } from '../../core/hash.ts';
import { pairedCompare } from '../../stats/index.ts';
import { compareAttribution, toolhoundVerdict, type TreeRecord } from './attribution-tree.ts';
import { compareArms } from './compare-tables.ts';
import { changeWord, describeChange, directionOf } from './direction.ts';
import {
  checkQuantizationPair,
  identityFromLlamaCpp,
  lineupFromModels,
  lineupTable,
  parseLineup,
  quantizationPairs,
} from '../../calls/lineup/lineup.ts';
import { layerOutcomes, layerRates, type LayerRecord } from './rates.ts';

const ids = (n: number, p = 'c') => Array.from({ length: n }, (_, i) => `${p}${String(i).padStart(2, '0')}`);
const map = (keys: string[], f: (i: number) => number) => new Map(keys.map((k, i) => [k, f(i)]));

describe('metric directions and wording', () => {
  it('a credibly rising no_call or false_trigger rate is "worse", a falling one "improved" — never a gain', () => {
    const k = ids(40);
    const up = pairedCompare(
      map(k, () => 0),
      map(k, (i) => (i < 20 ? 1 : 0)),
      { metric: 'no_call', resamples: 2000 },
    );
    expect(up.verdict).toBe('credible gain'); // the statistics say B > A …
    expect(changeWord('no_call', up.verdict)).toBe('worse'); // … which for a failure rate is worse
    expect(changeWord('false_trigger', up.verdict)).toBe('worse');
    expect(changeWord('lenient.false_trigger', up.verdict)).toBe('worse');
    expect(describeChange(up)).toMatch(/: worse \(lower is better\)$/);
    expect(describeChange(up)).not.toMatch(/gain/);
    const down = pairedCompare(
      map(k, (i) => (i < 20 ? 1 : 0)),
      map(k, () => 0),
      { metric: 'no_call', resamples: 2000 },
    );
    expect(changeWord('no_call', down.verdict)).toBe('improved');
    expect(changeWord('parse_ok', up.verdict)).toBe('improved');
    expect(changeWord('no_call', 'no credible change')).toBe('no credible change');
  });

  it('every metric name a report uses has a direction; an undeclared one is an error', () => {
    for (const m of [
      'accuracy',
      'lenient.args_correct',
      'schema_valid.over_call_expected',
      'args_correct.given_tool_correct',
      'attribution.strict.model_format_failure',
      'abstained',
      'repetition',
      'truncated',
    ])
      expect(() => directionOf(m)).not.toThrow();
    expect(directionOf('abstained')).toBe('higher_is_better');
    expect(directionOf('attribution.lenient.framework_parser_gap')).toBe('lower_is_better');
    expect(() => directionOf('mystery_metric')).toThrow(/declares no direction/);
  });
});

describe('layer rates under both readings', () => {
  // 10 call cases: 5 parse; of those 4 schema-valid, 4 right tool; of those 3 right arguments. 2 abstention cases.
  const rec = (id: string, s: [0 | 1, 0 | 1 | null, 0 | 1 | null, 0 | 1 | null] | null): LayerRecord => ({
    id,
    error: null,
    expects_call: s !== null,
    scores: s
      ? {
          strict: { parse_ok: s[0], schema_valid: s[1], tool_correct: s[2], args_correct: s[3] },
          lenient: { parse_ok: s[0], schema_valid: s[1], tool_correct: s[2], args_correct: s[3] },
        }
      : null,
  });
  const records = [
    rec('a', [1, 1, 1, 1]),
    rec('b', [1, 1, 1, 1]),
    rec('c', [1, 1, 1, 1]),
    rec('d', [1, 1, 1, 0]),
    rec('e', [1, 0, 0, null]),
    ...ids(5, 'n').map((i) => rec(i, [0, null, null, null])),
    rec('x', null),
    rec('y', null),
    { ...rec('z', [1, 1, 1, 1]), error: 'endpoint down' },
  ];
  it('hand-computed values and denominators', () => {
    const r = layerRates(records);
    expect(r['parse_ok.over_call_expected']).toMatchObject({ value: 0.5, n: 10 });
    expect(r['schema_valid.over_call_expected']).toMatchObject({ value: 0.4, n: 10 });
    expect(r['tool_correct.over_call_expected']).toMatchObject({ value: 0.4, n: 10 });
    expect(r['args_correct.over_call_expected']).toMatchObject({ value: 0.3, n: 10 });
    expect(r['schema_valid.given_parse_ok']).toMatchObject({ value: 0.8, n: 5 });
    expect(r['tool_correct.given_parse_ok']).toMatchObject({ value: 0.8, n: 5 });
    expect(r['args_correct.given_tool_correct']).toMatchObject({ value: 0.75, n: 4 });
    expect(r['parse_ok.given_call_expected']!.value).toBe(r['parse_ok.over_call_expected']!.value);
  });
  it('trials of one case are averaged into one outcome', () => {
    const o = layerOutcomes([rec('a', [1, 1, 1, 1]), rec('a', [0, null, null, null])]);
    expect(o['parse_ok.over_call_expected']!.get('a')).toBe(0.5);
    expect(o['args_correct.given_tool_correct']!.get('a')).toBe(1);
  });
});

describe('attribution: Toolhound tree with toolgauge refinements', () => {
  const base = (over: Partial<TreeRecord>): TreeRecord => ({
    id: 'x',
    error: null,
    expects_call: true,
    parse: {
      strict: { calls: [], attempted: false, truncated: false },
      lenient: { calls: [], attempted: false, truncated: false },
    },
    passed: { strict: false, lenient: false },
    cause: { strict: { cause: null, kind: 'pass' }, lenient: { cause: null, kind: 'pass' } },
    counterfactual: null,
    ...over,
  });
  const call = [{ name: 'f', arguments: {} }];
  it('where the trees agree and where they differ', () => {
    // no attempt at all: Toolhound says format failure, toolgauge decision/no_call_attempted
    const none = toolhoundVerdict(
      base({
        cause: {
          strict: { cause: 'model_decision_failure', kind: 'no_call_attempted' },
          lenient: { cause: 'model_decision_failure', kind: 'no_call_attempted' },
        },
      }),
      true,
    )!;
    expect(none.toolhound).toBe('model_format_failure');
    expect(none.refinements.no_call_attempted).toBe(true);
    expect(none.toolgauge).toBe('model_decision_failure');
    // truncated attempt: both format failure, refinement column set
    const cut = toolhoundVerdict(
      base({
        parse: {
          strict: { calls: [], attempted: true, truncated: true },
          lenient: { calls: [], attempted: true, truncated: true },
        },
      }),
      true,
    )!;
    expect(cut).toMatchObject({ toolhound: 'model_format_failure', refinements: { truncated: true } });
    // rescued and right: parser gap; rescued and wrong: decision failure, flagged
    const gap = toolhoundVerdict(
      base({
        parse: {
          strict: { calls: [], attempted: true, truncated: false },
          lenient: { calls: call, attempted: true, truncated: false },
        },
        passed: { strict: false, lenient: true },
      }),
      true,
    )!;
    expect(gap.toolhound).toBe('framework_parser_gap');
    const wrong = toolhoundVerdict(
      base({
        parse: {
          strict: { calls: [], attempted: true, truncated: false },
          lenient: { calls: call, attempted: true, truncated: false },
        },
      }),
      true,
    )!;
    expect(wrong).toMatchObject({ toolhound: 'model_decision_failure', refinements: { rescued_but_wrong: true } });
    // template: Toolhound blames every unparsed case when the sanity render fails, whatever the output
    expect(toolhoundVerdict(base({}), false)!.toolhound).toBe('framework_template_bug');
    // an unparseable attempt on an abstention case: Toolhound sees no call → pass
    expect(
      toolhoundVerdict(
        base({
          expects_call: false,
          parse: {
            strict: { calls: [], attempted: true, truncated: false },
            lenient: { calls: [], attempted: true, truncated: false },
          },
        }),
        true,
      )!.toolhound,
    ).toBe('pass');
    // harness errors are left out
    expect(toolhoundVerdict(base({ error: 'boom' }), true)).toBeNull();
  });
  it('a case the template cannot render goes through the tree; a dropped prior call is a template break for that case only', () => {
    const unrendered = base({
      parse: null,
      error: 'the template cannot render this case',
      render_error: 'render_error: raised',
    });
    expect(toolhoundVerdict(unrendered, false)).toMatchObject({
      toolhound: 'framework_template_bug',
      refinements: { no_call_attempted: false },
    });
    expect(toolhoundVerdict(unrendered, true)!.toolhound).toBe('model_format_failure');
    const dropping = { template_findings: ['prior_tool_call_dropped'] };
    expect(toolhoundVerdict(base({ ...dropping, prior_calls: 1 }), true)!.toolhound).toBe('framework_template_bug');
    expect(toolhoundVerdict(base({ ...dropping, prior_calls: 0 }), true)!.toolhound).toBe('model_format_failure');
    // a framework call that passes is still a pass (step A comes first)
    expect(
      toolhoundVerdict(
        base({
          ...dropping,
          prior_calls: 1,
          parse: {
            strict: { calls: call, attempted: true, truncated: false },
            lenient: { calls: call, attempted: true, truncated: false },
          },
          passed: { strict: true, lenient: true },
        }),
        true,
      )!.toolhound,
    ).toBe('pass');
  });
  it('the table counts causes, refinements and the cross-table', () => {
    const records = [
      base({ id: 'a' }),
      base({
        id: 'b',
        parse: {
          strict: { calls: call, attempted: true, truncated: false },
          lenient: { calls: call, attempted: true, truncated: false },
        },
        passed: { strict: true, lenient: true },
      }),
    ];
    const t = compareAttribution(records, true);
    expect(t.toolhound).toMatchObject({ model_format_failure: 1, pass: 1 });
    expect(t.refinements.no_call_attempted).toBe(1);
    expect(t.markdown).toContain('| model_format_failure | 1 | 0 | 1 | 0 | 0 |');
  });
});

describe('lineups and the quantization guard', () => {
  const yaml = `models:
  - {label: qwen-bf16, model: Qwen/Qwen2.5-7B-Instruct, base_url: "http://127.0.0.1:8000/v1", server: vllm, family: hermes}
  - {label: qwen-q4, model: qwen-q4, base_url: "http://127.0.0.1:8080/v1", quantization: Q4_K_M, quantization_of: qwen-bf16}
  - {label: llama, model: meta-llama/Llama-3.1-8B-Instruct}
`;
  it('parses, and refuses bad files with the entry and field named', () => {
    expect(parseLineup(yaml, 'l.yaml').models).toHaveLength(3);
    expect(() => parseLineup(yaml.replace('quantization_of: qwen-bf16', 'quantization_of: nope'), 'l.yaml')).toThrow(
      /l\.yaml: row models\[1\]: field models\[1\]\.quantization_of: no entry labelled 'nope'/,
    );
    expect(() => parseLineup(yaml.replace('label: llama', 'label: qwen-q4'), 'l.yaml')).toThrow(/duplicate label/);
    expect(() => parseLineup('models: [{label: a, model: m, colour: red}]', 'l.yaml')).toThrow(DataError);
    expect(() => parseLineup('models: [{label: a\n', 'l.yaml')).toThrow(/^l\.yaml: not valid YAML: /);
    expect(() => parseLineup('models: []', 'l.json')).toThrow(/^l\.json: not valid JSON: /);
    expect(lineupFromModels(['sim:oracle', 'sim:wrong']).models.map((m) => m.label)).toEqual([
      'sim:oracle',
      'sim:wrong',
    ]);
  });

  const tpl = '{% for m in messages %}{{ m.content }}{% endfor %}';
  const props = (t: string) => ({ chat_template: t, build_info: 'b1-x' });
  const models = (n: number) => ({ data: [{ id: 'm', meta: { vocab_type: 2, n_vocab: n } }] });
  it('a quantization compare with different template hashes is refused, with the reason', () => {
    const a = identityFromLlamaCpp('qwen-bf16', props(tpl), models(151936));
    const b = identityFromLlamaCpp('qwen-q4', props(`${tpl}\n`), models(151936));
    const r = checkQuantizationPair(a, b);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toMatch(/chat templates differ.*sha256/);
    expect(checkQuantizationPair(a, identityFromLlamaCpp('qwen-q4', props(tpl), models(151936)))).toEqual({ ok: true });
    const tok = checkQuantizationPair(a, identityFromLlamaCpp('qwen-q4', props(tpl), models(32000)));
    expect(tok.ok).toBe(false);
    const unknown = checkQuantizationPair(a, identityFromLlamaCpp('qwen-q4', {}, null));
    expect(!unknown.ok && unknown.reason).toMatch(/unknown.*--template/);
    expect(a.template!.sha256).toBe(sha256(tpl));
  });
  it('the lineup names the pairs to check', () => {
    const l = parseLineup(yaml, 'l.yaml');
    const id = (label: string) => identityFromLlamaCpp(label, props(label === 'qwen-q4' ? 'other' : tpl), models(1));
    expect(quantizationPairs(l, id)).toEqual([
      { reference: 'qwen-bf16', quantized: 'qwen-q4', check: expect.objectContaining({ ok: false }) },
    ]);
  });
  it('three models render as one table', () => {
    const e = (v: number) => ({ value: v, lo: v - 0.1, hi: v + 0.1, n: 30 });
    const md = lineupTable(
      [
        { label: 'sim:oracle', metrics: { accuracy: e(1) } },
        { label: 'sim:coin', metrics: { accuracy: e(0.6) } },
        { label: 'sim:wrong', metrics: {} },
      ],
      ['accuracy'],
    );
    expect(md.split('\n').filter((l) => l.startsWith('| sim:'))).toHaveLength(3);
    expect(md).toContain('| sim:wrong | — |');
  });
});

describe('comparison tables', () => {
  it('rows carry the direction-aware verdict and Holm over the table', () => {
    const k = ids(40);
    const a = {
      label: 'free',
      outcomes: {
        parse_ok: map(k, (i) => (i < 10 ? 1 : 0)),
        no_call: map(k, (i) => (i < 30 ? 1 : 0)),
        tool_correct: map(k, (i) => i % 2),
      },
    };
    const b = {
      label: 'constrained',
      outcomes: {
        parse_ok: map(k, () => 1),
        no_call: map(k, (i) => (i < 30 ? 1 : 0)),
        tool_correct: map(k, (i) => i % 2),
      },
    };
    const t = compareArms(a, b, {
      title: 'Decode comparison',
      resamples: 2000,
      note: 'simulator: calibration, not a model result',
    });
    expect(t.rows.map((r) => [r.metric, r.word])).toEqual([
      ['parse_ok', 'improved'],
      ['no_call', 'no credible change'],
      ['tool_correct', 'no credible change'],
    ]);
    expect(t.markdown).toContain('McNemar 30↑/0↓');
    expect(t.markdown).toContain('simulator: calibration');
  });
});
