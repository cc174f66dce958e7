import { loadMazeTasks, MODES } from './task.ts';
import { runLocal } from './run-local.ts';
import { judge } from './judge.ts';
const tasks = loadMazeTasks();
const agg: Record<string, {n:number; pass:number; strict:number; hit:number; rc:number; reasons: Record<string,number>}> = {};
for (const pol of ['oracle','naive'] as const) for (const t of tasks) for (const m of MODES) {
  const r = runLocal(t, m, pol);
  const v = judge(t, m, r.trace, r.finalAnswer, {mode:'compat'});
  const s = judge(t, m, r.trace, r.finalAnswer, {mode:'strict'});
  const k = `${pol} ${t.complexity} ${m}`;
  const a = agg[k] ??= {n:0,pass:0,strict:0,hit:0,rc:0,reasons:{}};
  a.n++; a.pass += +v.pass; a.strict += +s.pass; a.hit += +v.hit; a.rc += v.rc;
  const reason = v.failure_reason ?? (s.failure_reason ? 'strict:'+s.failure_reason : null);
  if (reason) a.reasons[reason] = (a.reasons[reason] ?? 0) + 1;
  if (pol === 'oracle' && (!v.pass || !s.pass) && Object.values(a.reasons).reduce((x,y)=>x+y,0) <= 1) console.log(k, t.id, JSON.stringify(s.trace_check.rules.filter(r=>!r.ok)), r.finalAnswer, r.trace.map(e=>`${e.name}:${e.status}`).join(' '));
}
for (const [k, a] of Object.entries(agg)) console.log(k.padEnd(18), `pass ${a.pass}/${a.n} strict ${a.strict} hit ${a.hit} rc ${(a.rc/a.n).toFixed(3)}`, JSON.stringify(a.reasons));
