import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Ajv } from 'ajv';
import { findImplausibilities } from '../detectors.ts';
import {
  ACCOUNTS,
  ACCOUNT_IDS,
  AIRPORT_CODES,
  CITIES,
  CITY_NAMES,
  CURRENCIES,
  PERSON_NAMES,
  PRODUCTS,
  SAVINGS_PRODUCTS,
  SKUS,
  TICKERS,
  accountById,
  riskToken,
} from './data.ts';
import {
  DOMAINS,
  builtinTools,
  callTool,
  checkOutput,
  getTool,
  openAITool,
  substituteSets,
  type HistoryEntry,
  type ToolArgs,
} from './index.ts';

const day = fc.integer({ min: 0, max: 160 }).map((d) => new Date(Date.UTC(2025, 0, 2 + d)).toISOString().slice(0, 10));
const pick = <T>(xs: readonly T[]) => fc.constantFrom(...xs);

/** Argument generators for one member of each substitute set (all members share the parameters). */
const SET_ARGS: Record<string, fc.Arbitrary<ToolArgs>> = {
  stock_quote: fc.record({ ticker: pick(TICKERS), date: day }),
  dividend: fc.record({ ticker: pick(TICKERS) }),
  fx_rate: fc.record({ base: pick(CURRENCIES), quote: pick(CURRENCIES), date: day }),
  city_weather: fc.record({ city: pick(CITY_NAMES), date: day }),
  flight_search: fc.record({ origin: pick(AIRPORT_CODES), destination: pick(AIRPORT_CODES), date: day }),
  hotel_search: fc.record({ city: pick(CITY_NAMES), nights: fc.integer({ min: 1, max: 30 }) }),
  free_slot: fc.record({ person: pick(PERSON_NAMES), date: day }),
  account_balance: fc.record({ account_id: pick(ACCOUNT_IDS) }),
  savings_rate: fc.record({ product: pick(Object.keys(SAVINGS_PRODUCTS)) }),
  stock_level: fc.record({ sku: pick(SKUS) }),
  product_price: fc.record({ sku: pick(SKUS) }),
  shipping_quote: fc.record({
    weight_kg: fc.double({ min: 0.1, max: 60, noNaN: true }).map((x) => Math.round(x * 100) / 100),
    zone: pick(['Z1', 'Z2', 'Z3', 'Z4']),
  }),
  contact: fc.record({ name: pick(PERSON_NAMES) }),
  crypto_price: fc.record({
    symbol: fc.constantFrom('ORBT', 'NOVA', 'MOTH', 'QUIL', 'FERN', 'nova', 'XXXX'),
    date: day,
  }),
  city_distance: fc.record({ from_city: pick(CITY_NAMES), to_city: pick(CITY_NAMES) }),
  send_email: fc.record({
    to: pick(PERSON_NAMES.map((n) => `${n.toLowerCase().replace(' ', '.')}@example.org`)),
    subject: fc.constantFrom('Hi', 'Plan'),
    body: fc.string(),
  }),
};

describe('maze tool library', () => {
  it('has at least 60 tools over at least 8 domains, in all three categories', () => {
    expect(builtinTools().length).toBeGreaterThanOrEqual(60);
    const domains = new Set(builtinTools().map((t) => t.domain));
    expect(domains.size).toBeGreaterThanOrEqual(8);
    for (const d of domains) expect(DOMAINS).toContain(d);
    expect(new Set(builtinTools().map((t) => t.category))).toEqual(new Set(['source', 'processor', 'action']));
  });

  it('every tool has compilable JSON Schemas for parameters and output, and a visible description', () => {
    const ajv = new Ajv({ strict: true });
    for (const t of builtinTools()) {
      expect(() => ajv.compile(t.parameters), t.name).not.toThrow();
      expect(() => ajv.compile(t.output), t.name).not.toThrow();
      const o = openAITool(t);
      expect(o.function.name).toBe(t.name);
      expect(o.function.parameters).toEqual(t.parameters);
      expect(o.function.description).toContain('Returns:');
    }
  });

  it('every substitute set has ≥ 2 members sharing parameters and output schema', () => {
    const sets = substituteSets();
    expect(Object.keys(sets).length).toBeGreaterThanOrEqual(10);
    expect(Object.keys(SET_ARGS).sort()).toEqual(Object.keys(sets).sort());
    for (const members of Object.values(sets)) {
      expect(members.length).toBeGreaterThanOrEqual(2);
      const [a, ...rest] = members.map((n) => getTool(n)!);
      for (const b of rest) {
        expect(b.parameters).toEqual(a!.parameters);
        expect(b.output).toEqual(a!.output);
      }
    }
  });

  it('substitutes return identical, schema-valid, plausible outputs for the same arguments', () => {
    for (const [set, members] of Object.entries(substituteSets())) {
      fc.assert(
        fc.property(SET_ARGS[set]!, (args) => {
          const outs = members.map((m) => callTool(m, args, []));
          for (const o of outs) expect(o).toEqual(outs[0]);
          if (outs[0]!.kind === 'clean') {
            const tool = getTool(members[0]!)!;
            expect(checkOutput(tool, outs[0]!.result)).toBeNull();
            expect(findImplausibilities(tool, args, outs[0]!.result)).toEqual([]);
          }
        }),
        { numRuns: 60, seed: 11 },
      );
    }
  });

  it('the FX routes agree to the cent: rate×convert, cross table×cross_convert, one-shot converter', () => {
    fc.assert(
      fc.property(
        pick(CURRENCIES),
        pick(CURRENCIES),
        day,
        fc.integer({ min: 1, max: 10_000_000 }).map((c) => c / 100),
        (base, quote, date, amount) => {
          const rate = callTool('get_fx_rate', { base, quote, date }, []).result;
          const a = callTool('convert_amount', { amount, rate: rate.rate as number }, []).result;
          const t = callTool('get_cross_rate_table', { base, quote, date }, []).result;
          const b = callTool(
            'cross_convert',
            { amount, base_per_usd: t.base_per_usd as number, quote_per_usd: t.quote_per_usd as number },
            [],
          ).result;
          const c = callTool('currency_converter', { amount, base, quote, date }, []).result;
          expect(b.converted).toBe(a.converted);
          expect(c.converted).toBe(a.converted);
        },
      ),
      { numRuns: 200, seed: 5 },
    );
  });

  it('the geo distance sources agree with the flight tools to the kilometre', () => {
    fc.assert(
      fc.property(pick(CITIES), pick(CITIES), day, (a, b, date) => {
        const d = callTool('city_distance', { from_city: a.name, to_city: b.name }, []);
        if (a === b) {
          expect(d.kind).toBe('invalid_use');
          return;
        }
        const f = callTool('search_flights', { origin: a.airport, destination: b.airport, date }, []).result;
        expect(d.result.distance_km).toBe(f.distance_km);
      }),
      { numRuns: 100, seed: 9 },
    );
  });

  it('state comes from the run history: balances after transfers and orders', () => {
    const acc = ACCOUNTS[0]!;
    const other = ACCOUNTS[1]!;
    const h: HistoryEntry[] = [];
    const before = callTool('get_account_balance', { account_id: acc.id }, h).result.balance as number;
    const t = callTool('transfer_funds', { from_account: acc.id, to_account: other.id, amount: 100 }, h);
    expect(t.kind).toBe('clean');
    expect(t.result.new_balance).toBeCloseTo(before - 100, 2);
    h.push({
      name: 'transfer_funds',
      args: { from_account: acc.id, to_account: other.id, amount: 100 },
      result: t.result,
    });
    expect(callTool('check_balance', { account_id: acc.id }, h).result.balance).toBeCloseTo(before - 100, 2);
    expect(callTool('get_account_balance', { account_id: acc.id }, []).result.balance).toBe(before); // not global
    const st = callTool('get_account_statement', { account_id: acc.id }, h).result;
    expect(
      callTool(
        'compute_closing_balance',
        { opening_balance: st.opening_balance as number, net_movements: st.net_movements as number },
        h,
      ).result.balance,
    ).toBeCloseTo(before - 100, 2);
  });

  it('state comes from the run history: stock after reservations, outbox after sends', () => {
    const p = PRODUCTS[3]!;
    const h: HistoryEntry[] = [];
    const r = callTool('reserve_stock', { sku: p.sku, quantity: 7 }, h);
    expect(r.result.remaining).toBe(p.stock - 7);
    h.push({ name: 'reserve_stock', args: { sku: p.sku, quantity: 7 }, result: r.result });
    for (const n of ['get_stock_level', 'inventory_lookup', 'warehouse_stock'])
      expect(callTool(n, { sku: p.sku }, h).result.available).toBe(p.stock - 7);
    expect(callTool('reserve_stock', { sku: p.sku, quantity: p.stock }, h).result).toEqual({
      error: `only ${p.stock - 7} units available`,
    });
    const mail = callTool('send_email', { to: 'ada.lindqvist@example.org', subject: 'x', body: 'y' }, h);
    h.push({
      name: 'send_email',
      args: { to: 'ada.lindqvist@example.org', subject: 'x', body: 'y' },
      result: mail.result,
    });
    expect(callTool('list_sent_messages', {}, h).result).toMatchObject({ count: 1 });
    expect(callTool('list_sent_messages', {}, []).result).toMatchObject({ count: 0 });
  });

  it('invalid use returns { error } (unknown ticker, missing risk token, insufficient balance, bad arguments)', () => {
    expect(callTool('get_stock_quote', { ticker: 'NOPE', date: '2025-03-03' }, [])).toEqual({
      result: { error: 'unknown ticker "NOPE"' },
      kind: 'invalid_use',
    });
    const acc = accountById('ACC-1001')!;
    const order = { account_id: acc.id, ticker: 'ACME', shares: 1, limit_price: 10, risk_token: 'RK-WRONG' };
    expect(callTool('place_stock_order', order, []).result).toEqual({
      error: 'missing or invalid risk token for this account',
    });
    expect(
      callTool('place_stock_order', { ...order, risk_token: riskToken(acc), shares: 10_000_000 }, []).result,
    ).toEqual({ error: 'insufficient balance for this order' });
    expect(callTool('place_stock_order', { ...order, risk_token: riskToken(acc) }, []).kind).toBe('clean');
    expect(
      callTool('transfer_funds', { from_account: 'ACC-1001', to_account: 'ACC-1002', amount: 1e9 }, []).result,
    ).toEqual({ error: 'insufficient balance' });
    const missing = callTool('get_stock_quote', { ticker: 'ACME' }, []);
    expect(missing.kind).toBe('invalid_arguments');
    expect(String(missing.result.error)).toMatch(/date/);
    expect(callTool('get_stock_quote', { ticker: 'ACME', date: '2025-03-03', extra: 1 }, []).kind).toBe(
      'invalid_arguments',
    );
  });

  it('is deterministic and never throws on arbitrary argument objects', () => {
    const anyArgs = fc.dictionary(
      fc.constantFrom('ticker', 'date', 'city', 'sku', 'amount', 'rate', 'account_id', 'x'),
      fc.oneof(fc.string(), fc.double(), fc.integer(), fc.boolean()),
    );
    fc.assert(
      fc.property(pick(builtinTools().map((t) => t.name)), anyArgs, (name, args) => {
        const a = callTool(name, args, []);
        expect(callTool(name, args, [])).toEqual(a);
        if (a.kind !== 'clean') expect(typeof a.result.error).toBe('string');
      }),
      { numRuns: 500, seed: 3 },
    );
  });
});
