// The multi-turn executor against a hostile endpoint and hostile class code, with real CPython. A model's tool
// name is checked against the case's function docs and never evaluated; what an instance's process can do is
// bounded by the worker's confinement (private /proc, no process creation, the sandbox's audit hook); and
// nothing one instance does survives into the next.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { loadCategory } from './data.ts';
import { PythonBfclExecutor } from './executor.ts';
import { pyJsonLoads } from '../core/pyliteral/pyjson.ts';
import { checkMultiTurn } from './score.ts';
import { FIXTURE_DATA } from './testkit.ts';

const TOY = fileURLToPath(new URL('../../fixtures/bfcl/classes', import.meta.url));
const HOSTILE = fileURLToPath(new URL('../../fixtures/bfcl/hostile-classes', import.meta.url));
// A folder any uid may write to and read from, as /tmp is: what stops the worker must be its own confinement.
const open = mkdtempSync(join(tmpdir(), 'tg-bfcl-iso-'));
chmodSync(open, 0o777);
const toyExec = new PythonBfclExecutor({ sourceDir: TOY });
const hostileExec = new PythonBfclExecutor({ sourceDir: HOSTILE });
afterAll(async () => {
  await Promise.all([toyExec.dispose(), hostileExec.dispose()]);
  rmSync(open, { recursive: true, force: true });
});

/** An FC result (BFCL's `[[[{name: arguments-json}]]]`) with one step per turn. */
const fcResult = (turns: Array<Array<[string, Record<string, unknown>]>>) =>
  pyJsonLoads(JSON.stringify(turns.map((calls) => [calls.map(([name, args]) => ({ [name]: JSON.stringify(args) }))])));

describe("a model's tool names are checked against the case's docs, never evaluated", () => {
  const base = loadCategory(FIXTURE_DATA, 'multi_turn_base')[0]!;

  it('code in a tool name, a builtin, or a function the case does not document: refused, nothing runs', async () => {
    const shell = join(open, 'shell-marker');
    const opened = join(open, 'open-marker');
    const evaluated = join(open, 'eval-marker');
    const result = fcResult([
      [
        [`__import__('os').system('touch ${shell}') or print`, {}],
        ['open', { file: opened, mode: 'w' }],
        [`eval("open('${evaluated}', 'w')") or print`, {}],
        ['create_ticket', { title: 'Printer jam', priority: 2 }],
      ],
      [['close_ticket', { ticket_id: 1 }]],
    ]);
    const v = await checkMultiTurn(base, result, { format: 'fc', executor: toyExec });
    for (const marker of [shell, opened, evaluated]) expect(existsSync(marker), marker).toBe(false);
    const [first] = v.multiTurn!.execution[0]!.model;
    expect(first!.slice(0, 3).every((r) => r.startsWith('Error during execution: '))).toBe(true);
    expect(first![1]).toBe("Error during execution: name 'open' is not defined");
    // The documented calls still ran: the case passes as before.
    expect(v.valid, v.error_type).toBe(true);

    // Prompt mode: the same through BFCL's text decoder.
    const text = pyJsonLoads(
      JSON.stringify([
        [`[open(file='${opened}', mode='w'), create_ticket(title='Printer jam', priority=2)]`],
        ['[close_ticket(ticket_id=1)]'],
      ]),
    );
    const p = await checkMultiTurn(base, text, { format: 'pythonic', executor: toyExec });
    expect(existsSync(opened)).toBe(false);
    expect(p.multiTurn!.execution[0]!.model[0]![0]).toBe("Error during execution: name 'open' is not defined");
  });

  it("a method the instance has but the case's docs leave out does not run", async () => {
    const narrowed = {
      ...base,
      entry: { ...base.entry, functions: base.entry.functions.filter((f) => f.name !== 'get_ticket') },
    };
    const result = fcResult([
      [
        ['create_ticket', { title: 'Printer jam', priority: 2 }],
        ['get_ticket', { ticket_id: 1 }],
      ],
      [['close_ticket', { ticket_id: 1 }]],
    ]);
    const v = await checkMultiTurn(narrowed, result, { format: 'fc', executor: toyExec });
    expect(v.multiTurn!.execution[0]!.model[0]![1]).toMatch(
      /^Error during execution: "get_ticket" is not one of this case's functions/,
    );
  });

  it('a ground truth that rewrites the checker runs nothing, and the verdicts of later cases stand', async () => {
    // Replaces the old worker's compare function and every call's result: with it, any later case would pass.
    const code =
      "import sys;m=sys.modules['__main__'];m.compare=lambda a,b:{'valid':True,'differences':{}};m.Handle.run=lambda s,c:'ok'";
    const poisoned = {
      ...base,
      groundTruth: [[`(lambda g={}: exec(${JSON.stringify(code)}, g) or 'ok')()`], ...base.groundTruth!.slice(1)],
    };
    const wrong = fcResult([
      [['create_ticket', { title: 'Wrong', priority: 3 }]],
      [['close_ticket', { ticket_id: 9 }]],
    ]);
    const first = await checkMultiTurn(poisoned, wrong, { format: 'fc', executor: toyExec });
    for (let i = 0; i < 3; i++) {
      const later = await checkMultiTurn(base, wrong, { format: 'fc', executor: toyExec });
      expect(later.valid).toBe(false);
      expect(later.error_type).toBe('multi_turn:instance_state_mismatch');
    }
    expect(first.multiTurn!.execution[0]!.ground_truth[0]).toMatch(/^Error during execution: /);
  });
});

const ROOT_LINUX =
  process.platform === 'linux' && process.getuid?.() === 0 && process.env.TOOLGAUGE_SANDBOX_CONFINE !== '0';

describe('inside the worker: what an instance can reach (hostile class code)', () => {
  const functions = [
    'read_file',
    'list_proc',
    'proc_has',
    'fork',
    'process_limit',
    'connect',
    'plant',
    'stash',
    'open_fds',
  ];
  const start = (label: string) =>
    hostileExec.start({ classes: ['TicketAPI'], initialConfigJson: '{}', longContext: false, label, functions });

  it('files outside the allowed folders cannot be read, nor files planted', async () => {
    const secretDir = join(open, 'readable');
    mkdirSync(secretDir, { mode: 0o755 });
    const secret = join(secretDir, 'secret.txt');
    writeFileSync(secret, 'host secret', { mode: 0o644 });
    const planted = join(open, 'planted');
    const h = await start('m_files');
    const [read, plant] = await hostileExec.call(h, [
      `read_file(path=${JSON.stringify(secret)})`,
      `plant(path=${JSON.stringify(planted)})`,
    ]);
    expect(read).toMatch(/^blocked: PermissionError/);
    expect(read).not.toContain('host secret');
    expect(plant).toMatch(/^blocked: PermissionError/);
    expect(existsSync(planted)).toBe(false);
  });

  it('no process can be created: fork is refused and the process limit is 0', async () => {
    const h = await start('m_fork');
    const [fork, limit] = await hostileExec.call(h, ['fork()', 'process_limit()']);
    expect(fork).toMatch(/^blocked: PermissionError: os\.fork/);
    expect(limit).toBe('done: (0, 0)');
  });

  it('a world-writable Unix socket of the host cannot be reached', async () => {
    const path = join(open, 'host.sock');
    let connections = 0;
    const server = createServer((s) => {
      connections++;
      s.destroy();
    });
    await new Promise<void>((resolve) => server.listen(path, resolve));
    chmodSync(path, 0o777);
    try {
      const h = await start('m_sock');
      const [r] = await hostileExec.call(h, [`connect(path=${JSON.stringify(path)})`]);
      expect(r).toMatch(/^blocked: PermissionError/);
      expect(connections).toBe(0);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it.skipIf(!ROOT_LINUX)(
    "/proc lists only the worker's own processes (private /proc; needs root on Linux)",
    async () => {
      const h = await start('m_proc');
      const [list, host] = await hostileExec.call(h, ['list_proc()', `proc_has(pid=${process.pid})`]);
      // stat is not audited: this is the mount namespace's own /proc, where the host's pids do not exist.
      expect(host).toBe('done: False');
      expect(list).toMatch(/^blocked: PermissionError/);
    },
  );

  it("an instance holds no descriptor but its own two pipes (none of the worker's protocol, none of another instance's)", async () => {
    const others = [await start('m_o1'), await start('m_o2')];
    const h = await start('m_fds');
    expect(await hostileExec.call(h, ['open_fds()'])).toEqual(['done: 2']);
    for (const o of others) await hostileExec.close(o);
  });

  it("batched cases: a case's model run, its ground-truth run and the next case each see only what they left themselves", async () => {
    // Each run's process holds its own class attribute: shared by two runs, one would list the other's values.
    const specs = ['m_c1', 'g_c1', 'm_c2', 'g_c2'].map((label) => ({
      classes: ['TicketAPI'],
      initialConfigJson: '{}',
      longContext: false,
      label,
      functions,
    }));
    const handles = await hostileExec.startMany(specs);
    const [m1, g1, m2, g2] = handles.map((h) => {
      if (typeof h !== 'string') throw h;
      return h;
    });
    const turns = (c: string) => [
      { steps: [[`stash(value='${c} model')`]], groundTruth: [`stash(value='${c} truth')`], compare: true },
      { steps: [[`stash(value='${c} model again')`]], groundTruth: [`stash(value='${c} truth again')`], compare: true },
    ];
    const outcomes = await hostileExec.runCases([
      { model: m1!, groundTruth: g1!, turns: turns('c1') },
      { model: m2!, groundTruth: g2!, turns: turns('c2') },
    ]);
    expect(
      outcomes.map((o) => {
        if (!('turns' in o)) throw o;
        return o.turns.map((t) => [t.model, t.ground_truth, t.state?.valid]);
      }),
    ).toEqual(
      ['c1', 'c2'].map((c) => [
        [[[`['${c} model']`]], [`['${c} truth']`], true],
        [[[`['${c} model', '${c} model again']`]], [`['${c} truth', '${c} truth again']`], true],
      ]),
    );
  });

  it('nothing an instance leaves behind in its interpreter is seen by the next one', async () => {
    const a = await start('m_a');
    expect(await hostileExec.call(a, ["stash(value='left by a')"])).toEqual(["['left by a']"]);
    await hostileExec.close(a);
    const b = await start('m_b');
    expect(await hostileExec.call(b, ["stash(value='b')"])).toEqual(["['b']"]);
  });
});
