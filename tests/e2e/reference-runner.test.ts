import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromRoot } from '../../harness/core/paths.ts';
import { startSimServer, type SimServer } from '../../harness/sim/server.ts';
import { loadDatasetFile } from '../../harness/toolhop/dataset.ts';
import { toolhopResponder } from '../../harness/toolhop/sim-responder.ts';
import { inProcess, readLines, spawnToolgauge, tempDir, toolgauge } from '../helpers/cli.ts';

// toolgauge as a drop-in for the reference ToolHop runner (topologies/single/toolhop of the multi-agent framework):
// the same request, the same files, the same flags, and a simulator any runner can be tested against.

const SAMPLE = fromRoot('cases', 'toolhop', 'sample.json');

/**
 * The body the reference sends, written down from its code: `_completion_kwargs` for every turn
 * (temperature 0.2, top_p 0.9, seed 0, max_tokens 512 from TOOLHOP_MAX_TOKENS, extra_body repetition_penalty 1.05
 * and chat_template_kwargs.enable_thinking False), with `tools` and `tool_choice: "auto"`; and for the forced final
 * answer the same kwargs with temperature 0.0 and max_tokens 64 (TOOLHOP_FINAL_MAX_TOKENS), without tools.
 */
const REFERENCE_TURN = {
  temperature: 0.2,
  top_p: 0.9,
  seed: 0,
  max_tokens: 512,
  repetition_penalty: 1.05,
  chat_template_kwargs: { enable_thinking: false },
  tool_choice: 'auto',
};
const REFERENCE_FINAL = {
  temperature: 0,
  top_p: 0.9,
  seed: 0,
  max_tokens: 64,
  repetition_penalty: 1.05,
  chat_template_kwargs: { enable_thinking: false },
};

let server: Server;
let base: string;
const bodies: Array<Record<string, unknown>> = [];

beforeAll(async () => {
  // Answers the first turn without an <answer> tag, so the final-answer call is made too.
  server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c));
    req.on('end', () => {
      if (req.url?.includes('/models'))
        return void res
          .writeHead(200, { 'content-type': 'application/json' })
          .end('{"object":"list","data":[{"id":"Qwen/Qwen3-8B"}]}');
      const body = JSON.parse(raw) as Record<string, unknown>;
      bodies.push(body);
      const content = body.tools ? 'I think it is 7' : '<answer>7</answer>';
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: 'x',
          object: 'chat.completion',
          created: 0,
          model: 'm',
          choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 },
        }),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const pick = (b: Record<string, unknown>, keys: string[]) =>
  Object.fromEntries(keys.filter((k) => k in b).map((k) => [k, b[k]]));

describe('a drop-in for the reference ToolHop runner', () => {
  it("--preset reference sends the reference's request, field by field; its variables and files work unchanged", async () => {
    const out = tempDir('ref-request');
    bodies.length = 0;
    // Only the reference's own variables name the endpoint and the model. The model calls no tool: the CPython
    // sandbox, cheaper to start than pyodide, which the run starts all the same.
    const r = await toolgauge(
      [
        'toolhop',
        '--data',
        SAMPLE,
        '--only',
        '1',
        '--sandbox',
        'python',
        '--out-dir',
        out,
        '--out',
        join(out, 'ref-preds.jsonl'),
      ],
      { VLLM_BASE_URL: base, MODEL_ID: 'Qwen/Qwen3-8B', TOOLHOP_ALLOW_DATASET_EXEC: '1' },
    );
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(bodies).toHaveLength(2);
    const [turn, final] = bodies as [Record<string, unknown>, Record<string, unknown>];
    const turnKeys = ['model', 'messages', 'tools', ...Object.keys(REFERENCE_TURN)];
    expect(Object.keys(turn).sort()).toEqual([...turnKeys].sort());
    expect(pick(turn, Object.keys(REFERENCE_TURN))).toEqual(REFERENCE_TURN);
    expect(turn.model).toBe('Qwen/Qwen3-8B');
    expect(Object.keys(final).sort()).toEqual(['messages', 'model', ...Object.keys(REFERENCE_FINAL)].sort());
    expect(pick(final, Object.keys(REFERENCE_FINAL))).toEqual(REFERENCE_FINAL);
    expect((final.messages as Array<{ content: string }>)[0]!.content).toMatch(/^You are a strict answer extractor/);

    // A script written for the reference's files reads toolgauge's unchanged.
    const results = readLines<Record<string, unknown>>(join(out, 'results.jsonl'));
    const preds = readLines<Record<string, unknown>>(join(out, 'predictions.jsonl'));
    const row = results[0]!;
    expect(typeof row.id).toBe('number');
    for (const k of [
      'idx',
      'question',
      'gold_answer',
      'style',
      'solve_s',
      'predicted_answer',
      'answer_correct',
      'correct',
      'turns',
      'tool_calls',
      'n_agents',
      'prompt_tokens',
      'completion_tokens',
      'total_tokens',
      'n_llm_calls',
      'n_tool_calls',
    ])
      expect(row, k).toHaveProperty(k);
    expect(row).toMatchObject({ id: 1, idx: 1, n_agents: 1, n_llm_calls: 2, total_tokens: 24, predicted_answer: '7' });
    const accuracy = results.reduce((s, x) => s + Number(x.answer_correct), 0) / results.length;
    expect(accuracy).toBe(0);
    expect(preds[0]).toMatchObject({ idx: 1, id: 1, model_name_or_path: 'Qwen/Qwen3-8B', predicted_answer: '7' });
    expect(readLines(join(out, 'ref-preds.jsonl'))[0]).toEqual({
      idx: 1,
      id: 1,
      question: preds[0]!.question,
      predicted_answer: '7',
    });
    // The text transcript, where the reference writes it.
    expect(readFileSync(join(out, 'traces', '1.txt'), 'utf8')).toMatch(
      /^=== SYSTEM ===\n[\s\S]*=== ASSISTANT ===\n<answer>7<\/answer>/,
    );
  });

  it("rescore reads the reference's own folder: integer ids, null answers, transcripts for the final message", async () => {
    const dir = tempDir('ref-rescore');
    const rows = loadDatasetFile(SAMPLE).entries.flatMap((e) => (e.ok ? [e.row] : []));
    const [a, b, c] = rows as [(typeof rows)[0], (typeof rows)[0], (typeof rows)[0]];
    // As the reference writes them: predictions without the final message; results with the gold answer.
    writeFileSync(
      join(dir, 'predictions.jsonl'),
      [a, b, c]
        .map((r, i) =>
          JSON.stringify({
            idx: Number(r.id),
            id: Number(r.id),
            question: r.question,
            predicted_answer: i === 1 ? null : i === 0 ? r.answer : 'nope',
            model_name_or_path: 'm',
          }),
        )
        .join('\n') + '\n',
    );
    writeFileSync(
      join(dir, 'results.jsonl'),
      [a, b, c]
        .map((r) =>
          JSON.stringify({
            id: Number(r.id),
            idx: Number(r.id),
            gold_answer: r.answer,
            style: 'single_langgraph',
            correct: false,
            answer_correct: 0,
            total_tokens: 5,
          }),
        )
        .join('\n') + '\n',
    );
    mkdirSync(join(dir, 'traces'));
    // Row c's transcript: a wrong final answer after a tool result that holds the gold (the third rule credits it).
    writeFileSync(
      join(dir, 'traces', `${c.id}.txt`),
      `=== SYSTEM ===\ns\n\n=== USER ===\nq\n\n=== ASSISTANT ===\n[tool_call] {"id":"t"}\n\n=== TOOL ===\n"${c.answer}"\n\n=== ASSISTANT ===\n<answer>nope</answer>\n\n`,
    );
    // rescore reads and writes files only: through main() in this process.
    const r = await inProcess(['toolhop', 'rescore', '--out-dir', dir], {});
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/rescored 3 predictions .*: 2 correct, 2 changed/);
    const res = readLines<Record<string, unknown>>(join(dir, 'results.jsonl'));
    expect(res.map((x) => [x.id, x.correct, x.rule])).toEqual(
      [
        [Number(a.id), true, 'literal'],
        [Number(b.id), false, null],
        [Number(c.id), true, 'tool_result'],
      ].map(([id, ok, rule]) => [id, ok, rule === 'literal' ? expect.stringMatching(/literal|substring/) : rule]),
    );
    expect(res[0]).toMatchObject({ style: 'single_langgraph', total_tokens: 5 });
    // A malformed file is one line naming the file and the line.
    writeFileSync(join(dir, 'predictions.jsonl'), '{"id": 1, "predicted_answer": "x"}\n{"id": \n');
    const bad = await inProcess(['toolhop', 'rescore', '--out-dir', dir], {});
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).toMatch(/predictions\.jsonl: row line 2: not valid JSON/);
  });
});

describe('the simulator for other runners', () => {
  let sim: SimServer;
  beforeAll(async () => {
    sim = await startSimServer({ responders: { toolhop: toolhopResponder(async () => loadDatasetFile(SAMPLE)) } });
  });
  afterAll(() => sim.close());

  it('answers a request without toolgauge headers, recognising the row from its question', async () => {
    const row = loadDatasetFile(SAMPLE).entries.find((e) => e.ok && e.id === '5')!;
    if (!row.ok) throw new Error('row 5');
    const res = await fetch(`${sim.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'sim:oracle',
        messages: [
          { role: 'system', content: 'x' },
          { role: 'user', content: `Answer the question using the available tools.\n\nQuestion: ${row.row.question}` },
        ],
        tools: Object.values(row.row.tools).map((t) => ({ type: 'function', function: t })),
      }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      choices: Array<{ message: { tool_calls?: Array<{ function: { name: string } }> } }>;
    };
    expect(body.choices[0]!.message.tool_calls?.[0]?.function.name).toBe(Object.values(row.row.tools)[0]!.name);
    const unknown = await fetch(`${sim.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'sim:oracle',
        messages: [{ role: 'user', content: 'What is the capital of Mars?' }],
      }),
    });
    expect(unknown.status).toBe(422);
  });
});

describe('toolgauge sim on its own', () => {
  it('knows every row of --data (not the first five a run selects by default), and counts what it could not match', async () => {
    const rows = loadDatasetFile(SAMPLE).entries.flatMap((e) => (e.ok ? [e.row] : []));
    expect(rows.length).toBeGreaterThan(5);
    const last = rows.at(-1)!;
    const child = spawnToolgauge(['sim', '--data', SAMPLE, '--policy', 'sim:oracle']);
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout!.on('data', (c: Buffer) => {
          out += c;
          const m = /listening on (\S+)/.exec(out);
          if (m) resolve(m[1]!);
        });
        void child.then((r) => reject(new Error(`toolgauge sim ended: ${r.stderr}`)));
      });
      const ask = (content: string) =>
        fetch(`${url}/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            model: 'sim:oracle',
            messages: [{ role: 'user', content }],
            tools: Object.values(last.tools).map((t) => ({ type: 'function', function: t })),
          }),
        });
      const res = await ask(`Answer the question using the available tools.\n\nQuestion: ${last.question}`);
      expect(res.status).toBe(200);
      expect(
        ((await res.json()) as { choices: Array<{ message: { tool_calls: Array<{ function: { name: string } }> } }> })
          .choices[0]!.message.tool_calls[0]!.function.name,
      ).toBe(Object.values(last.tools)[0]!.name);
      expect((await ask('Question: What is the capital of Mars?')).status).toBe(422);
    } finally {
      child.kill('SIGTERM');
    }
    const r = await child;
    expect(r.stdout).toMatch(/stopped: 2 requests, 1 refused \(no known instance or responder\)/);
    expect(r.stderr).toMatch(
      /toolgauge sim: answered 422: .*first user message: "Question: What is the capital of Mars\?"/,
    );
  });
});
