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
import { charge, chargeDeep, checkSize, ExprError, isLambda, text, toNumber, type ExprFn } from './expr.ts';
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
/** A seeded value's label: a number as it is, anything else as its bounded text (a list as JavaScript joins it). */
const label = (x: unknown): string | number =>
  typeof x === 'number' ? x : x === null || x === undefined ? '' : text(x);

/** Working days from start (inclusive) to end (exclusive), skipping weekends and the country's holidays. */
function businessDays(start: string, end: string, country: string): number {
  const a = dayNumber(start)!;
  const b = dayNumber(end)!;
  const hol = new Set((HOLIDAYS[country] ?? []).map((md) => `${start.slice(0, 4)}-${md}`));
  charge(b - a);
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
  str: (x) => text(x),
  num: (x) => toNumber(x),
  upper: (s) => text(s).toUpperCase(),
  lower: (s) => text(s).toLowerCase(),
  trim: (s) => text(s).trim(),
  slice: (s, a, b) =>
    Array.isArray(s)
      ? s.slice(toNumber(a), b === undefined ? undefined : toNumber(b))
      : text(s).slice(toNumber(a), b === undefined ? undefined : toNumber(b)),
  pad_start: (s, n, ch) => {
    const width = toNumber(n);
    checkSize(width, 'pad_start: a width');
    return text(s).padStart(width, ch === undefined ? ' ' : text(ch));
  },
  starts_with: (s, p) => text(s).startsWith(text(p)),
  ends_with: (s, p) => text(s).endsWith(text(p)),
  is_digits: (s) => /^\d+$/.test(text(s)),
  is_letters: (s) => /^[A-Za-z]+$/.test(text(s)),
  len: (x) =>
    Array.isArray(x) || typeof x === 'string'
      ? x.length
      : x !== null && typeof x === 'object'
        ? Object.keys(x).length
        : 0,
  // numbers
  round: (x, d) => round(toNumber(x), toNumber(d ?? 0)),
  round2: (x) => round2(toNumber(x)),
  round6: (x) => round6(toNumber(x)),
  js_round: (x) => Math.round(toNumber(x)),
  abs: (x) => Math.abs(toNumber(x)),
  floor: (x) => Math.floor(toNumber(x)),
  ceil: (x) => Math.ceil(toNumber(x)),
  min: (...xs) => Math.min(...xs.map(toNumber)),
  max: (...xs) => Math.max(...xs.map(toNumber)),
  sqrt: (x) => Math.sqrt(toNumber(x)),
  sin: (x) => Math.sin(toNumber(x)),
  cos: (x) => Math.cos(toNumber(x)),
  asin: (x) => Math.asin(toNumber(x)),
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
  sum: (xs, f) =>
    list(xs, 'sum').reduce((t: number, x, i) => t + toNumber(f === undefined ? x : fn(f, 'sum')(x, i)), 0),
  range: (a, b) => {
    const from = toNumber(a);
    const length = Math.max(0, toNumber(b) - from);
    checkSize(length, 'range: a length');
    return Array.from({ length }, (_, i) => from + i);
  },
  includes: (xs, x) => (Array.isArray(xs) ? xs.includes(x) : text(xs).includes(text(x))),
  concat: (...xs) => {
    checkSize(
      xs.reduce((n: number, x) => n + list(x, 'concat').length, 0),
      'concat: a list',
    );
    return xs.flatMap((x) => list(x, 'concat'));
  },
  first: (xs) => orNull(list(xs, 'first')[0]),
  keys: (o) => (o !== null && typeof o === 'object' ? Object.keys(o) : []),
  has: (o, k) => o !== null && typeof o === 'object' && Object.hasOwn(o, text(k)),
  get: (o, k) =>
    o !== null && typeof o === 'object' && Object.hasOwn(o, text(k)) ? (o as Record<string, unknown>)[text(k)] : null,
  same: (a, b) => {
    chargeDeep(a);
    chargeDeep(b);
    return stableStringify(a) === stableStringify(b);
  },
  // seeded values and identifiers: functions of their labels only
  u: (...labels) => u(...labels.map(label)),
  hex8: (...labels) => hex8(...labels.map(label)),
  // dates (YYYY-MM-DD; invalid → null)
  day_number: (s) => dayNumber(text(s)),
  date_from_day: (n) => dateFromDay(toNumber(n)),
  weekday: (s) => weekday(text(s)),
  in_data_range: (s) => inDataRange(text(s)),
  hh: (h) => hh(toNumber(h)),
  business_days: (a, b, c) => businessDays(text(a), text(b), text(c)),
  // the seeded world's derived values (tools/data.ts)
  close_price: (c, d) => closePrice(c as Company, text(d)),
  units_per_usd: (cur, d) => unitsPerUsd(text(cur), text(d)),
  fx_rate: (b, q, d) => fxRate(text(b), text(q), text(d)),
  weather_for: (c, d) => weatherFor(c as City, text(d)),
  air_quality: (c) => airQuality(c as City),
  flight_for: (a, b, d) => flightFor(a as City, b as City, text(d)),
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
    booked_hours: (p, d) => [...bookedHours(p as Person, text(d), ctx.history)],
    free_hour: (p, d) => freeHour(p as Person, text(d), bookedHours(p as Person, text(d), ctx.history)),
    sent_messages: () => sentMessages(ctx.history),
  };
}

/** Every function name an expression may call, for the loader's check. */
export const FUNCTION_NAMES: ReadonlySet<string> = new Set([
  ...Object.keys(PURE_FUNCTIONS),
  ...Object.keys(contextFunctions('', {}, { history: [] })),
]);
