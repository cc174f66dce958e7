// `npm run bench:eval`: a 10-case describeEval run — toolgauge as a user installs it (npm pack, in a fresh project)
// against vitest-evals, on the same endpoint (the installed package's `toolgauge sim`, the eval's cases registered
// with it, so vitest-evals' header-less requests are answered by their question; real HTTP): wall
// time, CPU seconds and peak RSS of each run's whole process tree. Sides alternate; medians over --reps (default 3).
//
//   --vitest-evals DIR   a folder where `npm install vitest-evals@0.16.1 vitest@4.1.12 ai zod tinyrainbow` was run
//                        (or TOOLGAUGE_BENCH_VITEST_EVALS); without it that side is skipped, and says so
//   --before DIR         an older toolgauge checkout (TypeScript sources, e.g. `git archive <commit>` unpacked, with
//                        its own node_modules): its `toolgauge eval` is measured too, the package linked as before
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { execa } from 'execa';
import { fromRoot } from '../harness/core/paths.ts';
import { writeFileAtomic } from '../harness/core/jsonl.ts';
// @ts-expect-error a plain JavaScript module (scripts/ is not type-checked)
import { freshProject, packToolgauge } from '../scripts/fresh-project.mjs';
import { accountedRun, quantiles, round } from './lib.ts';

const { values } = parseArgs({
  options: { reps: { type: 'string', default: '3' }, 'vitest-evals': { type: 'string' }, before: { type: 'string' } },
});
const reps = Number(values.reps);
const vitestEvalsDir = values['vitest-evals'] ?? process.env.TOOLGAUGE_BENCH_VITEST_EVALS;
const beforeDir = values.before ? resolve(values.before) : undefined;

// The 10 cases, the same for both harnesses.
const CASES = Array.from({ length: 10 }, (_, i) => {
  const [a, b] = [3 + i, 7 + 2 * i];
  return i % 2
    ? {
        id: `add-${i}`,
        input: `What is ${a} plus ${b}?`,
        expected: String(a + b),
        expectedTools: [{ name: 'add', arguments: { a, b } }],
      }
    : {
        id: `mul-${i}`,
        input: `What is ${a} times ${b}?`,
        expected: String(a * b),
        expectedTools: [{ name: 'multiply', arguments: { a, b } }],
      };
});
const SYSTEM = 'Use the tools for arithmetic. End with <answer>…</answer>.';
const TOOLS = `[
    { name: 'multiply', description: 'Multiply two numbers',
      parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
      run: ({ a, b }: any) => String(a * b) },
    { name: 'add', description: 'Add two numbers',
      parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
      run: ({ a, b }: any) => String(a + b) },
  ]`;

const TOOLGAUGE_EVAL = `import { describeEval, scorers, toolLoop } from 'toolgauge';

describeEval('arith', {
  data: async () => ${JSON.stringify(CASES)},
  tools: ${TOOLS},
  task: toolLoop({ system: ${JSON.stringify(SYSTEM)}, maxTurns: 5 }),
  scorers: [scorers.answerMatches()],
  threshold: 1,
});
`;

// vitest-evals has no tool loop of its own: the task is the same loop written with fetch (request, run the called
// tool, send its result, read the answer).
const VITEST_EVALS_EVAL = `import { describeEval } from 'vitest-evals/legacy';

const tools = ${TOOLS};
const schema = tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } }));

async function task(input: string): Promise<string> {
  const messages: any[] = [{ role: 'system', content: ${JSON.stringify(SYSTEM)} }, { role: 'user', content: input }];
  for (let turn = 0; turn < 5; turn++) {
    const res = await fetch(process.env.ARITH_URL + '/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'sim:oracle', messages, tools: schema, temperature: 0 }) });
    const msg = (await res.json()).choices[0].message;
    messages.push(msg);
    if (!msg.tool_calls?.length) return /<answer>([\\s\\S]*?)<\\/answer>/.exec(msg.content ?? '')?.[1]?.trim() ?? '';
    for (const c of msg.tool_calls) {
      const tool = tools.find((t) => t.name === c.function.name)!;
      messages.push({ role: 'tool', tool_call_id: c.id, content: tool.run(JSON.parse(c.function.arguments)) });
    }
  }
  return '';
}

describeEval('arith', {
  data: async () => ${JSON.stringify(CASES.map(({ input, expected }) => ({ input, expected })))},
  task,
  scorers: [({ output, expected }: any) => ({ score: output === expected ? 1 : 0 })],
  threshold: 1,
});
`;

const root = mkdtempSync(join(tmpdir(), 'bench-eval-'));
const { tarball } = packToolgauge(root);
const tg = freshProject(join(root, 'toolgauge'), { type: 'module', tarball }) as string;
writeFileSync(join(tg, 'arith10.eval.ts'), TOOLGAUGE_EVAL);
writeFileSync(join(tg, 'vitest.config.ts'), readFileSync(fromRoot('examples', 'arith', 'vitest.config.ts')));

// The endpoint: the installed package's simulator, outside the measured process trees, with the eval's cases
// registered (as a toolgauge run does itself) so every side's requests are answered.
const sim = execa(join(tg, 'node_modules', '.bin', 'toolgauge'), ['sim'], { cwd: tg, reject: false });
const baseUrl = await new Promise<string>((res) =>
  sim.stdout!.once('data', (d: Buffer) => res(/http:\/\/\S+\/v1/.exec(String(d))![0])),
);
const registered = await fetch(`${baseUrl}/toolgauge/evals/arith`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ cases: CASES }),
});
if (!registered.ok) throw new Error(`the simulator refused the cases: ${await registered.text()}`);

type Side = { name: string; cwd: string; cmd: string; args: string[]; env?: Record<string, string> };
const sides: Side[] = [
  {
    name: 'toolgauge: npx vitest run (evalConfig)',
    cwd: tg,
    cmd: join(tg, 'node_modules', '.bin', 'vitest'),
    args: ['run'],
    env: { OPENAI_BASE_URL: baseUrl, TOOLGAUGE_MODEL: 'sim:oracle' },
  },
  {
    name: 'toolgauge: npx toolgauge eval',
    cwd: tg,
    cmd: join(tg, 'node_modules', '.bin', 'toolgauge'),
    args: ['eval', 'arith10.eval.ts', '--base-url', baseUrl, '--model', 'sim:oracle'],
  },
];

if (vitestEvalsDir && existsSync(join(vitestEvalsDir, 'node_modules', 'vitest-evals'))) {
  const ve = join(root, 'vitest-evals');
  mkdirSync(join(ve, 'node_modules'), { recursive: true });
  writeFileSync(join(ve, 'package.json'), JSON.stringify({ name: 've', private: true, type: 'module' }));
  for (const n of readdirSync(join(vitestEvalsDir, 'node_modules')))
    if (!n.startsWith('.')) symlinkSync(join(vitestEvalsDir, 'node_modules', n), join(ve, 'node_modules', n));
  writeFileSync(join(ve, 'arith10.eval.ts'), VITEST_EVALS_EVAL);
  writeFileSync(
    join(ve, 'vitest.config.ts'),
    `import { defineConfig } from 'vitest/config';\nexport default defineConfig({ test: { include: ['**/*.eval.ts'] } });\n`,
  );
  sides.push({
    name: 'vitest-evals: npx vitest run',
    cwd: ve,
    cmd: join(vitestEvalsDir, 'node_modules', '.bin', 'vitest'),
    args: ['run'],
    env: { ARITH_URL: baseUrl },
  });
} else {
  console.log(
    'vitest-evals: SKIPPED (not installed: run `npm install vitest-evals@0.16.1 vitest@4.1.12 ai zod tinyrainbow` in a folder outside the repository and pass --vitest-evals DIR)',
  );
}

if (beforeDir) {
  // The package as it was used before it was built: the checkout linked into node_modules, its CLI from source.
  const old = join(root, 'before');
  mkdirSync(join(old, 'node_modules'), { recursive: true });
  writeFileSync(join(old, 'package.json'), JSON.stringify({ name: 'before', private: true, type: 'module' }));
  symlinkSync(beforeDir, join(old, 'node_modules', 'toolgauge'));
  writeFileSync(join(old, 'arith10.eval.ts'), TOOLGAUGE_EVAL);
  sides.push({
    name: 'toolgauge before: toolgauge eval (TypeScript sources)',
    cwd: old,
    cmd: join(beforeDir, 'bin', 'toolgauge.mjs'),
    args: ['eval', 'arith10.eval.ts', '--base-url', baseUrl, '--model', 'sim:oracle'],
  });
}

const runs = new Map<string, Array<{ wall_s: number; cpu_s: number | null; peak_tree_rss_mb: number }>>();
for (let rep = 0; rep < reps + 1; rep++) {
  // The first round warms each side's caches (a first run after an install is not what is measured).
  for (const s of rep % 2 ? [...sides].reverse() : sides) {
    const r = await accountedRun(
      s.cmd,
      s.args,
      { ...(process.env as Record<string, string>), FORCE_COLOR: '0', ...s.env },
      s.cwd,
    );
    const passed = /Tests\s+10 passed/.test(r.stdout.replace(/\x1b\[[0-9;]*m/g, ''));
    if (r.code !== 0 || !passed) throw new Error(`${s.name}: exit ${r.code}\n${r.stdout}\n${r.stderr}`);
    if (rep === 0) continue;
    runs.set(s.name, [
      ...(runs.get(s.name) ?? []),
      {
        wall_s: round(r.wallMs / 1000),
        cpu_s: r.cpuS === null ? null : round(r.cpuS),
        peak_tree_rss_mb: r.peakTreeRssMb,
      },
    ]);
  }
}
sim.kill();

const median = (xs: number[]) => round(quantiles(xs).median);
// CPU against vitest-evals', round by round (the load of a shared machine changes between rounds, not within one).
const baseline = runs.get('vitest-evals: npx vitest run');
const cpuRatio = (rs: Array<{ cpu_s: number | null }>) =>
  baseline && rs.every((r, i) => r.cpu_s !== null && baseline[i]?.cpu_s)
    ? median(rs.map((r, i) => r.cpu_s! / baseline[i]!.cpu_s!))
    : null;
const result = {
  node: process.version,
  cases: CASES.length,
  reps,
  sides: Object.fromEntries(
    [...runs].map(([name, rs]) => [
      name,
      {
        wall_s: median(rs.map((r) => r.wall_s)),
        cpu_s: rs.every((r) => r.cpu_s !== null) ? median(rs.map((r) => r.cpu_s!)) : null,
        peak_tree_rss_mb: median(rs.map((r) => r.peak_tree_rss_mb)),
        cpu_vs_vitest_evals: cpuRatio(rs),
        runs: rs,
      },
    ]),
  ),
};
writeFileAtomic(fromRoot('results', 'bench', 'eval.json'), JSON.stringify(result, null, 2) + '\n');
console.log(JSON.stringify(result, null, 2));
