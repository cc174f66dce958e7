import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { readConfig } from '../../harness/core/config.ts';
import { sandboxOptionsOf } from '../../harness/kit/sandbox-options.ts';
import { createSandbox, type Sandbox, type ToolOutcome } from '../../harness/sandbox/index.ts';
import { routeRow } from '../../harness/sandbox/route.ts';
import { loadDatasetFile } from '../../harness/toolhop/dataset.ts';
import { plausibleArguments } from '../../harness/toolhop/oracle-args.ts';
import type { ToolhopRow } from '../../harness/toolhop/row.ts';
import { toolEntries } from '../../harness/toolhop/tools.ts';
import { SHARED_TOOLHOP } from '../helpers/cli.ts';
import { canonicalResult } from '../helpers/set-order.ts';

// The 182 sample rows' gold tool chains (each hop called as sim:oracle calls it: the dataset's example call, else
// arguments from the hop's sub-question and the previous hop's gold answer) under the default sandbox (auto), against
// plain CPython running the same functions (the oracle below: a fresh namespace, real builtins, nothing of
// harness/sandbox). The routing of every row is checked always (cheap); the calls run for every row with
// TOOLGAUGE_SANDBOX_FULL=1 (about a minute), else for none — docs/toolhop.md has the figures.

const PYTHON = '/usr/bin/python3';
const full = process.env.TOOLGAUGE_SANDBOX_FULL === '1';
const rows: ToolhopRow[] = existsSync(SHARED_TOOLHOP)
  ? loadDatasetFile(SHARED_TOOLHOP, {}).entries.flatMap((e) => (e.ok ? [e.row] : []))
  : [];

interface GoldCall {
  row: string | number;
  index: number;
  name: string;
  sources: string[];
  args: string;
}

function goldCalls(row: ToolhopRow): GoldCall[] {
  const answers = Object.values(row.sub_task);
  return toolEntries(row).map((e) => ({
    row: row.id,
    index: e.index,
    name: e.name,
    sources: row.functions,
    args: JSON.stringify(
      plausibleArguments(e, row.functions[e.index] ?? '', e.index > 0 ? answers[e.index - 1] : undefined),
    ),
  }));
}

// Plain CPython: the sources' top-level functions (what the reference keeps), executed with the real builtins and
// the names the reference injects; the tool at a schema position from its own source, else from all the row's
// sources executed in order (rows reuse names across sources); the result as the reference serialises it, or the
// exception's type.
const ORACLE = `
import ast, json, math, re, sys
from datetime import date, datetime, timedelta
import pytz
from dateutil.relativedelta import relativedelta
from babel.dates import format_date
INJECTED = dict(date=date, datetime=datetime, timedelta=timedelta, math=math, re=re, pytz=pytz,
                relativedelta=relativedelta, format_date=format_date)

def kept(src):
    tree = ast.parse(src)
    tree.body = [n for n in tree.body if isinstance(n, ast.FunctionDef) or (isinstance(n, ast.ClassDef)
                 and all(isinstance(s, (ast.Pass, ast.Expr)) for s in n.body))]
    return compile(tree, "toolhop", "exec")

def namespace(row, sources):
    ns = {"__name__": "toolhop_%s" % row, **INJECTED}
    for src in sources:
        exec(kept(src), ns)
    return ns

out = []
for call in json.load(sys.stdin):
    try:
        own = namespace(call["row"], call["sources"][call["index"]:call["index"] + 1])
        fn = own.get(call["name"])
        if not callable(fn):
            fn = namespace(call["row"], call["sources"])[call["name"]]
        result = fn(**json.loads(call["args"]))
        out.append("ok " + json.dumps(result, ensure_ascii=False, default=str))
    except BaseException as exc:
        out.append("exception " + type(exc).__name__)
print(json.dumps(out))
`;

const summary = (o: ToolOutcome) =>
  o.kind === 'ok' ? `ok ${canonicalResult(o.content)}` : o.kind === 'exception' ? `exception ${o.excType}` : o.kind;

describe.skipIf(!rows.length || !existsSync(PYTHON))('the sample rows’ gold tool chains (needs ../shared/data)', () => {
  const run = readConfig({});
  let sandbox: Sandbox | undefined;
  afterAll(async () => sandbox?.close());

  it('the default sandbox is auto, and it routes every sample row (how many need CPython)', () => {
    expect(run.sandbox.backend).toBe('auto');
    const python = rows.filter((r) => routeRow(r.functions, run.sandbox.toolTimeoutMs).backend === 'python');
    console.info(`ToolHop sample: ${rows.length} rows, ${python.length} need CPython under --sandbox auto`);
    expect(rows).toHaveLength(182);
    expect(python.map((r) => r.id)).toEqual([]);
  });

  it.runIf(full)(
    'gives plain CPython’s result for every hop of every row (TOOLGAUGE_SANDBOX_FULL=1)',
    async () => {
      sandbox = createSandbox(sandboxOptionsOf(run));
      const calls = rows.flatMap(goldCalls);
      const expected = JSON.parse(
        execFileSync(PYTHON, ['-c', ORACLE], {
          input: JSON.stringify(calls),
          maxBuffer: 256 << 20,
          env: { TZ: 'UTC', LANG: 'C.UTF-8', PYTHONHASHSEED: '0' },
        }).toString(),
      ) as string[];
      const got: string[] = [];
      for (const c of calls)
        got.push(
          summary(await sandbox.call({ rowId: c.row, index: c.index, name: c.name, sources: c.sources }, c.args)),
        );
      const differences = calls.flatMap((c, i) =>
        canonicalLine(got[i]!) === canonicalLine(expected[i]!)
          ? []
          : [`row ${c.row} hop ${c.index} ${c.name}: ${got[i]} | ${expected[i]}`],
      );
      const ok = got.filter((g) => g.startsWith('ok ')).length;
      console.info(
        `gold chains: ${calls.length} calls in ${rows.length} rows (${ok} return, ${calls.length - ok} raise), ${differences.length} differ`,
        sandbox.stats(),
      );
      expect(differences).toEqual([]);
    },
    600_000,
  );
});

const canonicalLine = (s: string) => (s.startsWith('ok ') ? `ok ${canonicalResult(s.slice(3))}` : s);
