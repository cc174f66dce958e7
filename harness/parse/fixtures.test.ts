import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { FAMILIES, parseToolCalls, type Family, type ToolSchema } from './index.ts';

const ROOT = fileURLToPath(new URL('../../fixtures/parse/', import.meta.url));

const Call = z.object({ name: z.string(), arguments: z.record(z.string(), z.unknown()) });
const Expected = z.object({
  about: z.string(),
  recover: z.enum(['strict', 'lenient', 'none']),
  format: z.string().optional(),
  calls: z.array(Call),
  /** the lenient tier's calls when they differ from the strict tier's (schema coercion) */
  lenient_calls: z.array(Call).optional(),
  lenient_tier: z.enum(['strict', 'lenient']).optional(),
  tools: z.array(z.unknown()).optional(),
  notes: z.array(z.string()).optional(),
  truncated: z.boolean().optional(),
  attempted: z.boolean().optional(),
  /** also expected from format 'auto' (default true) */
  auto: z.boolean().optional(),
});

function toolsOf(raw: unknown[] | undefined): ToolSchema[] | undefined {
  return raw?.map((t) => {
    const o = t as { function?: ToolSchema } & ToolSchema;
    return o.function ?? o;
  });
}

interface Fixture {
  id: string;
  dir: string;
  text: string;
  exp: z.infer<typeof Expected>;
}

function loadFixtures(): Fixture[] {
  const out: Fixture[] = [];
  for (const dir of readdirSync(ROOT).sort()) {
    for (const f of readdirSync(join(ROOT, dir)).sort()) {
      if (!f.endsWith('.txt')) continue;
      const base = f.slice(0, -4);
      const text = readFileSync(join(ROOT, dir, f), 'utf8');
      const raw: unknown = JSON.parse(readFileSync(join(ROOT, dir, `${base}.json`), 'utf8'));
      const parsed = Expected.safeParse(raw);
      if (!parsed.success) throw new Error(`${dir}/${base}.json: ${parsed.error.issues[0]?.message}`);
      out.push({ id: `${dir}/${base}`, dir, text, exp: parsed.data });
    }
  }
  return out;
}

const fixtures = loadFixtures();

describe('parse fixtures', () => {
  it('cover every family with strict, lenient and truncated cases', () => {
    for (const f of FAMILIES) {
      const mine = fixtures.filter((x) => x.dir === f);
      expect(mine.some((x) => x.exp.recover === 'strict'), `${f}: a strict fixture`).toBe(true);
      expect(mine.some((x) => x.exp.recover === 'lenient'), `${f}: a lenient fixture`).toBe(true);
      expect(mine.some((x) => x.exp.recover === 'none' && x.exp.truncated), `${f}: a truncated fixture`).toBe(true);
    }
  });

  for (const fx of fixtures) {
    const family = (FAMILIES as readonly string[]).includes(fx.dir) ? (fx.dir as Family) : null;
    const formats: Array<'auto' | Family> = [];
    if (family) formats.push(family);
    if (fx.exp.auto !== false) formats.push('auto');
    const tools = toolsOf(fx.exp.tools);

    for (const format of formats) {
      it(`${fx.id} [${format}] (${fx.exp.recover})`, () => {
        const strict = parseToolCalls(fx.text, { tier: 'strict', format, tools });
        const lenient = parseToolCalls(fx.text, { tier: 'lenient', format, tools });
        const wantFormat = fx.exp.format;
        if (fx.exp.recover === 'strict') {
          expect(strict.tier).toBe('strict');
          expect(strict.format).toBe(wantFormat);
          expect(strict.calls).toEqual(fx.exp.calls);
          expect(strict.attempted).toBe(true);
          expect(lenient.calls).toEqual(fx.exp.lenient_calls ?? fx.exp.calls);
          expect(lenient.tier).toBe(fx.exp.lenient_tier ?? 'strict');
        } else if (fx.exp.recover === 'lenient') {
          expect(strict.tier, 'strict must not recover a lenient-only fixture').toBe('none');
          expect(strict.calls).toEqual([]);
          expect(strict.attempted).toBe(true);
          expect(lenient.tier).toBe('lenient');
          expect(lenient.format).toBe(wantFormat);
          expect(lenient.calls).toEqual(fx.exp.calls);
        } else {
          for (const r of [strict, lenient]) {
            expect(r.tier).toBe('none');
            expect(r.format).toBeNull();
            expect(r.calls).toEqual([]);
          }
        }
        for (const note of fx.exp.notes ?? []) expect(lenient.notes).toContain(note);
        if (fx.exp.truncated !== undefined) {
          expect(lenient.truncated).toBe(fx.exp.truncated);
          if (fx.exp.recover !== 'strict') expect(strict.truncated).toBe(fx.exp.truncated);
        }
        if (fx.exp.attempted !== undefined) {
          expect(strict.attempted).toBe(fx.exp.attempted);
          expect(lenient.attempted).toBe(fx.exp.attempted);
        }
      });
    }
  }
});
