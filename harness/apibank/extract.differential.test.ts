// Differential test of the reply reader against the reference runner's own extract_api_call/parse_api_call, run
// by python3 from a MAS-PromptBench checkout named by TOOLGAUGE_APIBANK_REF (outside the repository). Without it
// the suite skips and says so. TOOLGAUGE_APIBANK_DIFF_RUNS sets the number of generated replies (default 3000).
import { execa } from 'execa';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { JSON_LINES_CHILD, JsonLinesChild } from '../core/json-lines-child.ts';
import { pyRepr } from '../core/pyliteral/index.ts';
import { pythonCommand } from '../core/pyliteral/python-oracle.ts';
import { reply } from './arbitraries.ts';
import { extractApiCall, parseApiCall } from './extract.ts';

const REF = process.env.TOOLGAUGE_APIBANK_REF;
const SCRIPT = fileURLToPath(new URL('../../fixtures/apibank/ref_parse.py', import.meta.url));
const RUNS = Number(process.env.TOOLGAUGE_APIBANK_DIFF_RUNS || 3000);
const skip = !REF
  ? 'set TOOLGAUGE_APIBANK_REF to a MAS-PromptBench checkout'
  : !existsSync(join(REF, 'topologies/single/apibank/langgraph_apibank.py'))
    ? `no reference runner under ${REF}`
    : '';
if (skip) console.warn(`[apibank extract differential] skipped: ${skip}`);

class RefParser extends JsonLinesChild {
  static start(dir: string): RefParser {
    return new RefParser(execa(pythonCommand(), ['-X', 'utf8', SCRIPT, dir], JSON_LINES_CHILD), 'reference parser');
  }
}
type RefOut =
  | { extracted: string; ok: true; name: string; repr: string }
  | { extracted: string; ok: false; error: string };

const ref = skip ? undefined : RefParser.start(REF!);
afterAll(async () => ref?.close());

/** The reference's error kind: its message up to the first ':' (syntax-error details differ in wording). */
const kind = (msg: string) => msg.split(':')[0]!.trim();

function ours(text: string): RefOut {
  const extracted = extractApiCall(text);
  try {
    const p = parseApiCall(text);
    return {
      extracted,
      ok: true,
      name: p.name,
      repr: pyRepr({ t: 'list', items: p.params.map(([k, v]) => ({ t: 'tuple', items: [{ t: 'str', v: k }, v] })) }),
    };
  } catch (err) {
    return { extracted, ok: false, error: (err as Error).message };
  }
}

describe.skipIf(!!skip)(
  `API-Bank reply reading agrees with the reference runner${skip ? ` — SKIPPED: ${skip}` : ''}`,
  () => {
    it(`${RUNS} generated replies: same extracted call, same verdict, same name and arguments`, async () => {
      const texts = fc.sample(reply, { numRuns: RUNS, seed: 24 });
      const answers: RefOut[] = [];
      for (let i = 0; i < texts.length; i += 250)
        answers.push(...(await ref!.ask<RefOut[]>({ texts: texts.slice(i, i + 250) })));
      const diffs: string[] = [];
      texts.forEach((t, i) => {
        const r = answers[i]!;
        const o = ours(t);
        const same =
          o.extracted === r.extracted &&
          o.ok === r.ok &&
          (o.ok && r.ok ? o.name === r.name && o.repr === r.repr : !o.ok && !r.ok && kind(o.error) === kind(r.error));
        if (!same) diffs.push(`${JSON.stringify(t)}\n  ours ${JSON.stringify(o)}\n  ref  ${JSON.stringify(r)}`);
      });
      const agree = texts.length - diffs.length;
      console.info(
        `[apibank extract differential] ${agree}/${texts.length} replies agree (${((100 * agree) / texts.length).toFixed(2)}%); parsed by the reference: ${answers.filter((a) => a.ok).length}`,
      );
      expect(diffs.slice(0, 5)).toEqual([]);
    }, 120_000);
  },
);
