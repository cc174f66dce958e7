// The functions and tables a declarative tool's expressions can reach (docs/maze-tools.md, "Behaviour
// language"). Everything here is pure: a result depends on the arguments, the seeded tables of data.ts and the
// run's history of clean calls, never on the clock, the network or call order elsewhere.

import { stableStringify } from '../../core/hash.ts';
import {
  ACCOUNTS,
  CITIES,
  COMPANIES,
  CURRENCIES,
  HOLIDAYS,
  LIBRARY_TODAY,
  PEOPLE,
  PRODUCTS,
  SAVINGS_PRODUCTS,
  SHIPPING_ZONE,
  TAX_RATE_PCT,
  ZONE_DAYS,
  ZONE_RATES,
  airQuality,
  closePrice,
  dateFromDay,
  dayNumber,
  flightFor,
  freeHour,
  fxRate,
  hex8,
  hh,
  inDataRange,
  riskToken,
  round,
  round2,
  round6,
  routeId,
  u,
  unitsPerUsd,
  weatherFor,
  weekday,
  type Account,
  type City,
  type Company,
  type Person,
  type Product,
} from './data.ts';
import { ExprError, isLambda, type ExprFn } from './expr.ts';
import { availableOf, balanceOf, bookedHours, netMovements, priorSame, sentMessages } from './state.ts';
import type { ToolArgs, ToolContext } from './types.ts';

/** The seeded world every library file sees by name (a file's own `tables` are added beside these). */
export const WORLD_TABLES: Readonly<Record<string, unknown>> = {
  today: LIBRARY_TODAY,
  companies: COMPANIES,
  currencies: CURRENCIES,
  cities: CITIES,
  people: PEOPLE,
  accounts: ACCOUNTS,
  products: PRODUCTS,
  savings_products: SAVINGS_PRODUCTS,
  tax_rate_pct: TAX_RATE_PCT,
  shipping_zone: SHIPPING_ZONE,
  zone_rates: ZONE_RATES,
  zone_days: ZONE_DAYS,
  holidays: HOLIDAYS,
};

const fn = (f: unknown, name: string): ((...xs: unknown[]) => unknown) => {
  if (!isLambda(f)) throw new ExprError(`${name}: the last argument must be a lambda (x => …)`);
  return f;
};
const list = (xs: unknown, name: string): unknown[] => {
  if (!Array.isArray(xs)) throw new ExprError(`${name}: expected a list, got ${xs === null ? 'null' : typeof xs}`);
  return xs;
};
const orNull = <T>(x: T | undefined): T | null => (x === undefined ? null : x);

/** Working days from start (inclusive) to end (exclusive), skipping weekends and the country's holidays. */
function businessDays(start: string, end: string, country: string): number {
  const a = dayNumber(start)!;
  const b = dayNumber(end)!;
  const hol = new Set((HOLIDAYS[country] ?? []).map((md) => `${start.slice(0, 4)}-${md}`));
  let n = 0;
  for (let d = a; d < b; d++) {
    const s = dateFromDay(d);
    const w = (d + 4) % 7;
    if (w !== 0 && w !== 6 && !hol.has(s)) n++;
  }
  return n;
}

/** Functions that need nothing but their arguments. */
export const PURE_FUNCTIONS: Readonly<Record<string, ExprFn>> = {
  // conversions and text
  str: (x) => String(x),
  num: (x) => Number(x),
  upper: (s) => String(s).toUpperCase(),
  lower: (s) => String(s).toLowerCase(),
  trim: (s) => String(s).trim(),
  slice: (s, a, b) =>
    Array.isArray(s)
      ? s.slice(Number(a), b === undefined ? undefined : Number(b))
      : String(s).slice(Number(a), b === undefined ? undefined : Number(b)),
  pad_start: (s, n, ch) => String(s).padStart(Number(n), ch === undefined ? ' ' : String(ch)),
  starts_with: (s, p) => String(s).startsWith(String(p)),
  ends_with: (s, p) => String(s).endsWith(String(p)),
  is_digits: (s) => /^\d+$/.test(String(s)),
  is_letters: (s) => /^[A-Za-z]+$/.test(String(s)),
  len: (x) =>
    Array.isArray(x) || typeof x === 'string'
      ? x.length
      : x !== null && typeof x === 'object'
        ? Object.keys(x).length
        : 0,
  // numbers
  round: (x, d) => round(Number(x), Number(d ?? 0)),
  round2: (x) => round2(Number(x)),
  round6: (x) => round6(Number(x)),
  js_round: (x) => Math.round(Number(x)),
  abs: (x) => Math.abs(Number(x)),
  floor: (x) => Math.floor(Number(x)),
  ceil: (x) => Math.ceil(Number(x)),
  min: (...xs) => Math.min(...xs.map(Number)),
  max: (...xs) => Math.max(...xs.map(Number)),
  sqrt: (x) => Math.sqrt(Number(x)),
  sin: (x) => Math.sin(Number(x)),
  cos: (x) => Math.cos(Number(x)),
  asin: (x) => Math.asin(Number(x)),
  pi: () => Math.PI,
  is_number: (x) => typeof x === 'number' && Number.isFinite(x),
  // lists and records (the lambda is the last argument)
  map: (xs, f) => list(xs, 'map').map((x, i) => fn(f, 'map')(x, i)),
  filter: (xs, f) => list(xs, 'filter').filter((x, i) => fn(f, 'filter')(x, i)),
  find: (xs, f) => orNull(list(xs, 'find').find((x, i) => fn(f, 'find')(x, i))),
  some: (xs, f) => list(xs, 'some').some((x, i) => fn(f, 'some')(x, i)),
  every: (xs, f) => list(xs, 'every').every((x, i) => fn(f, 'every')(x, i)),
  count: (xs, f) =>
    f === undefined ? list(xs, 'count').length : list(xs, 'count').filter((x, i) => fn(f, 'count')(x, i)).length,
  // left to right from 0, so a sum of money matches a hand-written loop to the last bit
  sum: (xs, f) => list(xs, 'sum').reduce((t: number, x, i) => t + Number(f === undefined ? x : fn(f, 'sum')(x, i)), 0),
  range: (a, b) => Array.from({ length: Math.max(0, Number(b) - Number(a)) }, (_, i) => Number(a) + i),
  includes: (xs, x) => (Array.isArray(xs) ? xs.includes(x) : String(xs).includes(String(x))),
  concat: (...xs) => xs.flatMap((x) => list(x, 'concat')),
  first: (xs) => orNull(list(xs, 'first')[0]),
  keys: (o) => (o !== null && typeof o === 'object' ? Object.keys(o) : []),
  has: (o, k) => o !== null && typeof o === 'object' && Object.hasOwn(o, String(k)),
  get: (o, k) =>
    o !== null && typeof o === 'object' && Object.hasOwn(o, String(k))
      ? (o as Record<string, unknown>)[String(k)]
      : null,
  same: (a, b) => stableStringify(a) === stableStringify(b),
  // seeded values and identifiers: functions of their labels only
  u: (...labels) => u(...(labels as Array<string | number>)),
  hex8: (...labels) => hex8(...(labels as Array<string | number>)),
  // dates (YYYY-MM-DD; invalid → null)
  day_number: (s) => dayNumber(String(s)),
  date_from_day: (n) => dateFromDay(Number(n)),
  weekday: (s) => weekday(String(s)),
  in_data_range: (s) => inDataRange(String(s)),
  hh: (h) => hh(Number(h)),
  business_days: (a, b, c) => businessDays(String(a), String(b), String(c)),
  // the seeded world's derived values (tools/data.ts)
  close_price: (c, d) => closePrice(c as Company, String(d)),
  units_per_usd: (cur, d) => unitsPerUsd(String(cur), String(d)),
  fx_rate: (b, q, d) => fxRate(String(b), String(q), String(d)),
  weather_for: (c, d) => weatherFor(c as City, String(d)),
  air_quality: (c) => airQuality(c as City),
  flight_for: (a, b, d) => flightFor(a as City, b as City, String(d)),
  route_id: (a, b) => routeId(a as City, b as City),
  risk_token: (a) => riskToken(a as Account),
};

/** Functions that read the run's history or the call itself. */
export function contextFunctions(tool: string, args: ToolArgs, ctx: ToolContext): Record<string, ExprFn> {
  return {
    prior_same: () => priorSame(ctx, tool, args),
    balance_of: (a) => balanceOf(a as Account, ctx.history),
    net_movements: (a) => netMovements(a as Account, ctx.history),
    available_of: (p) => availableOf(p as Product, ctx.history),
    booked_hours: (p, d) => [...bookedHours(p as Person, String(d), ctx.history)],
    free_hour: (p, d) => freeHour(p as Person, String(d), bookedHours(p as Person, String(d), ctx.history)),
    sent_messages: () => sentMessages(ctx.history),
  };
}

/** Every function name an expression may call, for the loader's check. */
export const FUNCTION_NAMES: ReadonlySet<string> = new Set([
  ...Object.keys(PURE_FUNCTIONS),
  ...Object.keys(contextFunctions('', {}, { history: [] })),
]);
