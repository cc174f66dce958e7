// Graph templates for the Maze generator. Each template draws its entities from a seeded Rng and returns the
// steps (fixed nodes and slots), where the answer comes from, and a natural-language query. Queries name
// entities and quantities only: never a tool, a path, a victim or the answer.

import type { Rng } from '../core/rng.ts';
import {
  ACCOUNTS,
  CITIES,
  COMPANIES,
  CURRENCIES,
  LIBRARY_TODAY,
  PEOPLE,
  PRODUCTS,
  SAVINGS_PRODUCTS,
  SHIPPING_ZONE,
  TAX_RATE_PCT,
  closePrice,
  dateFromDay,
  dayNumber,
  weekday,
} from './tools/data.ts';
import { balanceOf } from './tools/state.ts';
import { builtinTools, substituteSets } from './tools/index.ts';
import type { Binding, Choice, Complexity, Step, TaskNode } from './task.ts';

export interface TemplateSpec {
  steps: Step[];
  answer: { ref: string; field: string; match: 'number' | 'text'; tolerance?: number };
  query: string;
  domains: string[];
}
export interface Template {
  id: string;
  complexity: Complexity;
  build(rng: Rng): TemplateSpec;
}

// ---- builders ----------------------------------------------------------------------------------------------

const L = (v: string | number | boolean): Binding => ({ literal: v });
const F = (v: string): Binding => ({ literal: v, free: true });
const R = (ref: string, field: string): Binding => ({ ref, field });
const tn = (id: string, tool: string, args: Record<string, Binding>): TaskNode => ({ id, tool, args });
const node = (id: string, tool: string, args: Record<string, Binding>): Step => ({
  kind: 'node',
  node: tn(id, tool, args),
});
// The built-in library's sets, read when the first task is built (not on import: the library loads on first use).
let sets: Record<string, string[]> | undefined;
const members = (set: string): string[] => {
  const m = (sets ??= substituteSets(builtinTools()))[set];
  if (!m) throw new Error(`no substitute set ${set}`);
  return m;
};
/** A slot whose choices are the members of a substitute set (one node each). */
function setSlot(id: string, set: string, args: Record<string, Binding>): Step {
  return {
    kind: 'slot',
    id,
    choices: members(set).map((tool, k) => ({
      id: tool,
      nodes: [tn(`${id}_${k + 1}`, tool, args)],
      output: `${id}_${k + 1}`,
    })),
  };
}
/** A slot whose choices are whole sub-chains (C3). */
function chainSlot(id: string, choices: Array<{ id: string; nodes: TaskNode[] }>): Step {
  return {
    kind: 'slot',
    id,
    choices: choices.map((c): Choice => ({ id: c.id, nodes: c.nodes, output: c.nodes[c.nodes.length - 1]!.id })),
  };
}
const one = (rng: Rng, set: string) => rng.pick(members(set));

// ---- entity pickers ----------------------------------------------------------------------------------------

function dayBetween(rng: Rng, from: string, to: string, weekdaysOnly = true): string {
  const a = dayNumber(from)!;
  const b = dayNumber(to)!;
  for (;;) {
    const d = dateFromDay(a + rng.int(b - a + 1));
    const w = weekday(d);
    if (!weekdaysOnly || (w !== 0 && w !== 6)) return d;
  }
}
const marketDay = (rng: Rng) => dayBetween(rng, '2025-01-02', '2025-06-13');
const futureDay = (rng: Rng) => dayBetween(rng, '2025-06-17', '2025-06-30', false);
const meetingDay = (rng: Rng) => dayBetween(rng, '2025-06-17', '2025-07-31');
const travelDay = (rng: Rng) => dayBetween(rng, '2025-07-01', '2025-09-30', false);
const nonUsd = (rng: Rng) => rng.pick(CURRENCIES.filter((c) => c !== 'USD'));
const two = <T>(rng: Rng, xs: readonly T[]): [T, T] => {
  const [a, b] = rng.shuffle(xs);
  return [a as T, b as T];
};
const COUNTRY_NAMES: Record<string, string> = {
  NO: 'Norway',
  PT: 'Portugal',
  US: 'the United States',
  KE: 'Kenya',
  JP: 'Japan',
  CA: 'Canada',
  CL: 'Chile',
  AT: 'Austria',
  AU: 'Australia',
  IS: 'Iceland',
};
const SUBJECTS = [
  'Quarterly review',
  'Offsite logistics',
  'Budget sign-off',
  'Contract renewal',
  'Onboarding plan',
  'Release checklist',
];
const TITLES = [
  'Design sync',
  'Vendor call',
  'Hiring debrief',
  'Roadmap review',
  'Security walkthrough',
  'Customer follow-up',
];
const MONEY = { match: 'number' as const, tolerance: 0.01 };

// ---- C1: one chain -----------------------------------------------------------------------------------------

const C1: Template[] = [
  {
    id: 'c1_position_fx',
    complexity: 'c1',
    build(rng) {
      const c = rng.pick(COMPANIES);
      const d = marketDay(rng);
      const shares = 5 + rng.int(400);
      const cur = nonUsd(rng);
      return {
        domains: ['markets', 'fx'],
        steps: [
          node('quote', one(rng, 'stock_quote'), { ticker: L(c.ticker), date: L(d) }),
          node('value', 'compute_position_value', { price: R('quote', 'price'), shares: L(shares) }),
          node('rate', one(rng, 'fx_rate'), { base: L('USD'), quote: L(cur), date: L(d) }),
          node('convert', 'convert_amount', { amount: R('value', 'value'), rate: R('rate', 'rate') }),
        ],
        answer: { ref: 'convert', field: 'converted', ...MONEY },
        query: `I hold ${shares} shares of ${c.ticker}. What were they worth in ${cur} at the close on ${d}?`,
      };
    },
  },
  {
    id: 'c1_weather_f',
    complexity: 'c1',
    build(rng) {
      const city = rng.pick(CITIES);
      const d = futureDay(rng);
      return {
        domains: ['weather'],
        steps: [
          node('wx', one(rng, 'city_weather'), { city: L(city.name), date: L(d) }),
          node('temp', 'celsius_to_fahrenheit', { temp_c: R('wx', 'temp_c') }),
        ],
        answer: { ref: 'temp', field: 'temp_f', match: 'number', tolerance: 0.05 },
        query: `What midday temperature, in degrees Fahrenheit, should I expect in ${city.name} on ${d}?`,
      };
    },
  },
  {
    id: 'c1_trip_cost',
    complexity: 'c1',
    build(rng) {
      const [from, to] = two(rng, CITIES);
      const d = travelDay(rng);
      const nights = 1 + rng.int(7);
      return {
        domains: ['travel'],
        steps: [
          node('flight', one(rng, 'flight_search'), {
            origin: L(from.airport),
            destination: L(to.airport),
            date: L(d),
          }),
          node('hotel', one(rng, 'hotel_search'), { city: L(to.name), nights: L(nights) }),
          node('trip', 'compute_trip_cost', { flight_fare: R('flight', 'fare'), hotel_total: R('hotel', 'total') }),
        ],
        answer: { ref: 'trip', field: 'total', ...MONEY },
        query: `I fly ${from.airport}→${to.airport} on ${d} and stay ${nights} night${nights > 1 ? 's' : ''} in ${to.name}. What do the cheapest direct flight and the hotel stay cost together?`,
      };
    },
  },
  {
    id: 'c1_invoice_tax',
    complexity: 'c1',
    build(rng) {
      const p = rng.pick(PRODUCTS);
      const q = 2 + rng.int(30);
      const country = rng.pick(Object.keys(TAX_RATE_PCT));
      return {
        domains: ['retail'],
        steps: [
          node('price', one(rng, 'product_price'), { sku: L(p.sku) }),
          node('tax', 'get_tax_rate', { country: L(country) }),
          node('invoice', 'build_invoice', {
            unit_price: R('price', 'unit_price'),
            quantity: L(q),
            tax_rate_pct: R('tax', 'tax_rate_pct'),
          }),
        ],
        answer: { ref: 'invoice', field: 'total', ...MONEY },
        query: `What is the invoice total, tax included, for ${q} units of ${p.sku} (${p.name}) sold in ${COUNTRY_NAMES[country]}?`,
      };
    },
  },
  {
    id: 'c1_dividend_fx',
    complexity: 'c1',
    build(rng) {
      const c = rng.pick(COMPANIES);
      const shares = 20 + rng.int(2000);
      const cur = nonUsd(rng);
      return {
        domains: ['markets', 'fx'],
        steps: [
          node('div', one(rng, 'dividend'), { ticker: L(c.ticker) }),
          node('income', 'calc_dividend_income', { annual_dividend: R('div', 'annual_dividend'), shares: L(shares) }),
          node('rate', one(rng, 'fx_rate'), { base: L('USD'), quote: L(cur), date: L(LIBRARY_TODAY) }),
          node('convert', 'convert_amount', { amount: R('income', 'income'), rate: R('rate', 'rate') }),
        ],
        answer: { ref: 'convert', field: 'converted', ...MONEY },
        query: `How much dividend income per year do ${shares} shares of ${c.ticker} pay, expressed in ${cur} at today's reference rate?`,
      };
    },
  },
  {
    id: 'c1_email_contact',
    complexity: 'c1',
    build(rng) {
      const p = rng.pick(PEOPLE);
      const subject = rng.pick(SUBJECTS);
      return {
        domains: ['messaging'],
        steps: [
          node('contact', one(rng, 'contact'), { name: L(p.name) }),
          node('mail', one(rng, 'send_email'), {
            to: R('contact', 'email'),
            subject: L(subject),
            body: F(`Hi ${p.name.split(' ')[0]}, please see the notes for "${subject}".`),
          }),
        ],
        answer: { ref: 'mail', field: 'to', match: 'text' },
        query: `Email ${p.name} with the subject "${subject}" and a one-line note pointing to the notes, then tell me which address it went to.`,
      };
    },
  },
  {
    id: 'c1_transfer_share',
    complexity: 'c1',
    build(rng) {
      const [a, b] = two(rng, ACCOUNTS);
      const pct = 5 + rng.int(26);
      return {
        domains: ['banking'],
        steps: [
          node('bal', one(rng, 'account_balance'), { account_id: L(a.id) }),
          node('share', 'percent_of', { value: R('bal', 'balance'), percent: L(pct) }),
          node('move', 'transfer_funds', { from_account: L(a.id), to_account: L(b.id), amount: R('share', 'result') }),
        ],
        answer: { ref: 'move', field: 'new_balance', ...MONEY },
        query: `Move ${pct}% of the current balance of ${a.id} to ${b.id}. What balance is left on ${a.id} afterwards?`,
      };
    },
  },
  {
    id: 'c1_meeting',
    complexity: 'c1',
    build(rng) {
      const p = rng.pick(PEOPLE);
      const d = meetingDay(rng);
      const title = rng.pick(TITLES);
      return {
        domains: ['calendar', 'messaging'],
        steps: [
          node('contact', one(rng, 'contact'), { name: L(p.name) }),
          node('slot', one(rng, 'free_slot'), { person: L(p.name), date: L(d) }),
          node('event', 'create_event', {
            title: L(title),
            date: L(d),
            start: R('slot', 'start'),
            attendee: R('contact', 'email'),
          }),
        ],
        answer: { ref: 'event', field: 'start', match: 'text' },
        query: `Put a one-hour "${title}" with ${p.name} in the calendar on ${d}, in their first free hour. What time does it start?`,
      };
    },
  },
  {
    id: 'c1_shipping',
    complexity: 'c1',
    build(rng) {
      const p = rng.pick(PRODUCTS);
      const country = rng.pick(Object.keys(SHIPPING_ZONE));
      return {
        domains: ['retail', 'shipping'],
        steps: [
          node('weight', 'get_product_weight', { sku: L(p.sku) }),
          node('zone', 'get_shipping_zone', { country: L(country) }),
          node('ship', one(rng, 'shipping_quote'), { weight_kg: R('weight', 'weight_kg'), zone: R('zone', 'zone') }),
        ],
        answer: { ref: 'ship', field: 'cost', ...MONEY },
        query: `How much does it cost to ship one ${p.name} (${p.sku}) to ${COUNTRY_NAMES[country]}?`,
      };
    },
  },
  {
    id: 'c1_stock_order',
    complexity: 'c1',
    build(rng) {
      const acc = rng.pick(ACCOUNTS);
      const c = rng.pick(COMPANIES);
      const price = closePrice(c, LIBRARY_TODAY);
      const shares = Math.max(1, Math.floor(((0.1 + 0.3 * rng.next()) * balanceOf(acc, [])) / price));
      return {
        domains: ['markets', 'banking'],
        steps: [
          node('token', 'get_risk_token', { account_id: L(acc.id) }),
          node('quote', one(rng, 'stock_quote'), { ticker: L(c.ticker), date: L(LIBRARY_TODAY) }),
          node('order', 'place_stock_order', {
            account_id: L(acc.id),
            ticker: L(c.ticker),
            shares: L(shares),
            limit_price: R('quote', 'price'),
            risk_token: R('token', 'risk_token'),
          }),
        ],
        answer: { ref: 'order', field: 'total_cost', ...MONEY },
        query: `From account ${acc.id}, buy ${shares} shares of ${c.ticker} with the limit set at today's closing price. How much was debited?`,
      };
    },
  },
  {
    id: 'c1_savings',
    complexity: 'c1',
    build(rng) {
      const product = rng.pick(Object.keys(SAVINGS_PRODUCTS));
      const principal = 1000 + 500 * rng.int(80);
      const years = 1 + rng.int(5);
      return {
        domains: ['banking'],
        steps: [
          node('rate', one(rng, 'savings_rate'), { product: L(product) }),
          node('interest', 'calc_interest', {
            principal: L(principal),
            rate_pct: R('rate', 'rate_pct'),
            years: L(years),
          }),
        ],
        answer: { ref: 'interest', field: 'interest', ...MONEY },
        query: `How much interest would ${principal} USD earn in the ${product} savings product over ${years} year${years > 1 ? 's' : ''}, compounded yearly?`,
      };
    },
  },
  {
    id: 'c1_outdoor_score',
    complexity: 'c1',
    build(rng) {
      const city = rng.pick(CITIES);
      const d = futureDay(rng);
      return {
        domains: ['weather'],
        steps: [
          node('wx', one(rng, 'city_weather'), { city: L(city.name), date: L(d) }),
          node('score', 'assess_outdoor_conditions', {
            temp_c: R('wx', 'temp_c'),
            precip_mm: R('wx', 'precip_mm'),
            wind_kph: R('wx', 'wind_kph'),
          }),
        ],
        answer: { ref: 'score', field: 'score', match: 'number', tolerance: 0 },
        query: `We're planning an outdoor lunch in ${city.name} on ${d}. What suitability score (1–100) do the weather conditions get?`,
      };
    },
  },
];

// ---- C2: one slot of substitutes ---------------------------------------------------------------------------

const C2: Template[] = [
  {
    id: 'c2_position_value',
    complexity: 'c2',
    build(rng) {
      const c = rng.pick(COMPANIES);
      const d = marketDay(rng);
      const shares = 5 + rng.int(500);
      return {
        domains: ['markets'],
        steps: [
          setSlot('quote', 'stock_quote', { ticker: L(c.ticker), date: L(d) }),
          node('value', 'compute_position_value', { price: R('quote', 'price'), shares: L(shares) }),
        ],
        answer: { ref: 'value', field: 'value', ...MONEY },
        query: `What was a position of ${shares} ${c.name} (${c.ticker}) shares worth at the close on ${d}?`,
      };
    },
  },
  {
    id: 'c2_fx_convert',
    complexity: 'c2',
    build(rng) {
      const amount = 100 + 50 * rng.int(200);
      const [b, q] = two(rng, CURRENCIES);
      const d = marketDay(rng);
      return {
        domains: ['fx'],
        steps: [
          setSlot('rate', 'fx_rate', { base: L(b), quote: L(q), date: L(d) }),
          node('convert', 'convert_amount', { amount: L(amount), rate: R('rate', 'rate') }),
        ],
        answer: { ref: 'convert', field: 'converted', ...MONEY },
        query: `Convert ${amount} ${b} to ${q} at the reference rate of ${d}.`,
      };
    },
  },
  {
    id: 'c2_weather_f',
    complexity: 'c2',
    build(rng) {
      const city = rng.pick(CITIES);
      const d = futureDay(rng);
      return {
        domains: ['weather'],
        steps: [
          setSlot('wx', 'city_weather', { city: L(city.name), date: L(d) }),
          node('temp', 'celsius_to_fahrenheit', { temp_c: R('wx', 'temp_c') }),
        ],
        answer: { ref: 'temp', field: 'temp_f', match: 'number', tolerance: 0.05 },
        query: `How warm will it be in ${city.name} at midday on ${d}, in °F?`,
      };
    },
  },
  {
    id: 'c2_book_flight',
    complexity: 'c2',
    build(rng) {
      const [from, to] = two(rng, CITIES);
      const d = travelDay(rng);
      const p = rng.pick(PEOPLE);
      return {
        domains: ['travel'],
        steps: [
          setSlot('flight', 'flight_search', { origin: L(from.airport), destination: L(to.airport), date: L(d) }),
          node('book', 'book_flight', { flight_no: R('flight', 'flight_no'), date: L(d), passenger: L(p.name) }),
        ],
        answer: { ref: 'book', field: 'booking_ref', match: 'text' },
        query: `Book ${p.name} on the cheapest direct flight from ${from.name} (${from.airport}) to ${to.name} (${to.airport}) on ${d} and give me the booking reference.`,
      };
    },
  },
  {
    id: 'c2_book_hotel',
    complexity: 'c2',
    build(rng) {
      const city = rng.pick(CITIES);
      const nights = 1 + rng.int(9);
      const p = rng.pick(PEOPLE);
      return {
        domains: ['travel'],
        steps: [
          setSlot('hotel', 'hotel_search', { city: L(city.name), nights: L(nights) }),
          node('book', 'book_hotel', { hotel: R('hotel', 'hotel'), nights: L(nights), guest: L(p.name) }),
        ],
        answer: { ref: 'book', field: 'total', ...MONEY },
        query: `Reserve ${nights} night${nights > 1 ? 's' : ''} for ${p.name} at the recommended hotel in ${city.name}. How much is charged?`,
      };
    },
  },
  {
    id: 'c2_transfer_share',
    complexity: 'c2',
    build(rng) {
      const [a, b] = two(rng, ACCOUNTS);
      const pct = 5 + rng.int(36);
      return {
        domains: ['banking'],
        steps: [
          setSlot('bal', 'account_balance', { account_id: L(a.id) }),
          node('share', 'percent_of', { value: R('bal', 'balance'), percent: L(pct) }),
          node('move', 'transfer_funds', { from_account: L(a.id), to_account: L(b.id), amount: R('share', 'result') }),
        ],
        answer: { ref: 'move', field: 'new_balance', ...MONEY },
        query: `Send ${pct}% of what is currently in ${a.id} over to ${b.id}, and tell me the remaining balance of ${a.id}.`,
      };
    },
  },
  {
    id: 'c2_invoice',
    complexity: 'c2',
    build(rng) {
      const p = rng.pick(PRODUCTS);
      const q = 2 + rng.int(40);
      const tax = rng.pick([7.25, 10, 13, 16, 19, 20, 23, 25]);
      return {
        domains: ['retail'],
        steps: [
          setSlot('price', 'product_price', { sku: L(p.sku) }),
          node('invoice', 'build_invoice', {
            unit_price: R('price', 'unit_price'),
            quantity: L(q),
            tax_rate_pct: L(tax),
          }),
        ],
        answer: { ref: 'invoice', field: 'total', ...MONEY },
        query: `Prepare an invoice for ${q} × ${p.sku} at list price with ${tax}% tax. What is the total?`,
      };
    },
  },
  {
    id: 'c2_event_invite',
    complexity: 'c2',
    build(rng) {
      const p = rng.pick(PEOPLE);
      const d = meetingDay(rng);
      const h = 9 + rng.int(8);
      const title = rng.pick(TITLES);
      const start = `${String(h).padStart(2, '0')}:00`;
      return {
        domains: ['messaging', 'calendar'],
        steps: [
          setSlot('contact', 'contact', { name: L(p.name) }),
          node('event', 'create_event', {
            title: L(title),
            date: L(d),
            start: L(start),
            attendee: R('contact', 'email'),
          }),
        ],
        answer: { ref: 'event', field: 'event_id', match: 'text' },
        query: `Invite ${p.name} to "${title}" on ${d} at ${start}. What is the new event's identifier?`,
      };
    },
  },
  {
    id: 'c2_free_slot',
    complexity: 'c2',
    build(rng) {
      const p = rng.pick(PEOPLE);
      const d = meetingDay(rng);
      const title = rng.pick(TITLES);
      return {
        domains: ['calendar'],
        steps: [
          setSlot('slot', 'free_slot', { person: L(p.name), date: L(d) }),
          node('event', 'create_event', {
            title: L(title),
            date: L(d),
            start: R('slot', 'start'),
            attendee: L(p.email),
          }),
        ],
        answer: { ref: 'event', field: 'start', match: 'text' },
        query: `Schedule "${title}" for ${p.name} (${p.email}) on ${d} at the first hour they have free. When does it start?`,
      };
    },
  },
  {
    id: 'c2_savings',
    complexity: 'c2',
    build(rng) {
      const product = rng.pick(Object.keys(SAVINGS_PRODUCTS));
      const principal = 2000 + 250 * rng.int(200);
      const years = 1 + rng.int(6);
      return {
        domains: ['banking'],
        steps: [
          setSlot('rate', 'savings_rate', { product: L(product) }),
          node('interest', 'calc_interest', {
            principal: L(principal),
            rate_pct: R('rate', 'rate_pct'),
            years: L(years),
          }),
        ],
        answer: { ref: 'interest', field: 'total', ...MONEY },
        query: `If I deposit ${principal} USD in ${product} for ${years} year${years > 1 ? 's' : ''} with yearly compounding, what will the account hold at the end?`,
      };
    },
  },
  {
    id: 'c2_dividend',
    complexity: 'c2',
    build(rng) {
      const c = rng.pick(COMPANIES);
      const shares = 10 + rng.int(3000);
      return {
        domains: ['markets'],
        steps: [
          setSlot('div', 'dividend', { ticker: L(c.ticker) }),
          node('income', 'calc_dividend_income', { annual_dividend: R('div', 'annual_dividend'), shares: L(shares) }),
        ],
        answer: { ref: 'income', field: 'income', ...MONEY },
        query: `What yearly dividend income (USD) does a holding of ${shares} ${c.ticker} shares generate?`,
      };
    },
  },
  {
    id: 'c2_restock',
    complexity: 'c2',
    build(rng) {
      const p = rng.pick(PRODUCTS);
      const target = p.stock + 20 + rng.int(400);
      return {
        domains: ['retail'],
        steps: [
          setSlot('stock', 'stock_level', { sku: L(p.sku) }),
          node('gap', 'subtract_values', { a: L(target), b: R('stock', 'available') }),
        ],
        answer: { ref: 'gap', field: 'difference', match: 'number', tolerance: 0 },
        query: `We want ${target} units of ${p.sku} available to sell. How many more units do we need to order?`,
      };
    },
  },
  {
    id: 'c2_ship_cost',
    complexity: 'c2',
    build(rng) {
      const p = rng.pick(PRODUCTS);
      const zone = rng.pick(['Z1', 'Z2', 'Z3', 'Z4']);
      return {
        domains: ['retail', 'shipping'],
        steps: [
          node('weight', 'get_product_weight', { sku: L(p.sku) }),
          setSlot('ship', 'shipping_quote', { weight_kg: R('weight', 'weight_kg'), zone: L(zone) }),
        ],
        answer: { ref: 'ship', field: 'cost', ...MONEY },
        query: `What would it cost to send a single ${p.name} (${p.sku}) to shipping zone ${zone}?`,
      };
    },
  },
  {
    id: 'c2_email',
    complexity: 'c2',
    build(rng) {
      const p = rng.pick(PEOPLE);
      const subject = rng.pick(SUBJECTS);
      return {
        domains: ['messaging'],
        steps: [
          node('contact', 'lookup_contact', { name: L(p.name) }),
          setSlot('mail', 'send_email', {
            to: R('contact', 'email'),
            subject: L(subject),
            body: F(`Hello ${p.name.split(' ')[0]}, a quick note about "${subject}".`),
          }),
        ],
        answer: { ref: 'mail', field: 'to', match: 'text' },
        query: `Send ${p.name} a short email titled "${subject}" and confirm the address it was delivered to.`,
      };
    },
  },
];

// ---- C3: alternatives that differ by whole sub-chains ------------------------------------------------------

const C3: Template[] = [
  {
    id: 'c3_position_price',
    complexity: 'c3',
    build(rng) {
      const c = rng.pick(COMPANIES);
      const d = marketDay(rng);
      const shares = 5 + rng.int(500);
      return {
        domains: ['markets'],
        steps: [
          chainSlot('price', [
            { id: 'quote', nodes: [tn('price_q', one(rng, 'stock_quote'), { ticker: L(c.ticker), date: L(d) })] },
            {
              id: 'listing',
              nodes: [
                tn('price_l1', 'resolve_listing_id', { ticker: L(c.ticker) }),
                tn('price_l2', 'exchange_close_price', { listing_id: R('price_l1', 'listing_id'), date: L(d) }),
              ],
            },
          ]),
          node('value', 'compute_position_value', { price: R('price', 'price'), shares: L(shares) }),
        ],
        answer: { ref: 'value', field: 'value', ...MONEY },
        query: `Value ${shares} shares of ${c.ticker} at the official close of ${d}.`,
      };
    },
  },
  {
    id: 'c3_holding_fx',
    complexity: 'c3',
    build(rng) {
      const c = rng.pick(COMPANIES);
      const d = marketDay(rng);
      const shares = 5 + rng.int(400);
      const cur = nonUsd(rng);
      return {
        domains: ['markets', 'fx'],
        steps: [
          node('quote', one(rng, 'stock_quote'), { ticker: L(c.ticker), date: L(d) }),
          node('value', 'compute_position_value', { price: R('quote', 'price'), shares: L(shares) }),
          chainSlot('fx', [
            {
              id: 'rate',
              nodes: [
                tn('fx_r1', one(rng, 'fx_rate'), { base: L('USD'), quote: L(cur), date: L(d) }),
                tn('fx_r2', 'convert_amount', { amount: R('value', 'value'), rate: R('fx_r1', 'rate') }),
              ],
            },
            {
              id: 'cross',
              nodes: [
                tn('fx_c1', 'get_cross_rate_table', { base: L('USD'), quote: L(cur), date: L(d) }),
                tn('fx_c2', 'cross_convert', {
                  amount: R('value', 'value'),
                  base_per_usd: R('fx_c1', 'base_per_usd'),
                  quote_per_usd: R('fx_c1', 'quote_per_usd'),
                }),
              ],
            },
            {
              id: 'converter',
              nodes: [
                tn('fx_v1', 'currency_converter', {
                  amount: R('value', 'value'),
                  base: L('USD'),
                  quote: L(cur),
                  date: L(d),
                }),
              ],
            },
          ]),
        ],
        answer: { ref: 'fx', field: 'converted', ...MONEY },
        query: `How much were ${shares} ${c.ticker} shares worth in ${cur} at the close on ${d}?`,
      };
    },
  },
  {
    id: 'c3_weather_f',
    complexity: 'c3',
    build(rng) {
      const city = rng.pick(CITIES);
      const d = futureDay(rng);
      return {
        domains: ['weather'],
        steps: [
          chainSlot('wx', [
            {
              id: 'station',
              nodes: [
                tn('wx_g1', 'geocode_city', { city: L(city.name) }),
                tn('wx_g2', 'forecast_by_coordinates', { lat: R('wx_g1', 'lat'), lon: R('wx_g1', 'lon'), date: L(d) }),
              ],
            },
            { id: 'city', nodes: [tn('wx_c1', one(rng, 'city_weather'), { city: L(city.name), date: L(d) })] },
          ]),
          node('temp', 'celsius_to_fahrenheit', { temp_c: R('wx', 'temp_c') }),
        ],
        answer: { ref: 'temp', field: 'temp_f', match: 'number', tolerance: 0.05 },
        query: `Give me the midday temperature in ${city.name} on ${d} in Fahrenheit.`,
      };
    },
  },
  {
    id: 'c3_outdoor',
    complexity: 'c3',
    build(rng) {
      const city = rng.pick(CITIES);
      const d = futureDay(rng);
      return {
        domains: ['weather'],
        steps: [
          chainSlot('wx', [
            { id: 'city', nodes: [tn('wx_c1', one(rng, 'city_weather'), { city: L(city.name), date: L(d) })] },
            {
              id: 'station',
              nodes: [
                tn('wx_g1', 'geocode_city', { city: L(city.name) }),
                tn('wx_g2', 'forecast_by_coordinates', { lat: R('wx_g1', 'lat'), lon: R('wx_g1', 'lon'), date: L(d) }),
              ],
            },
          ]),
          node('score', 'assess_outdoor_conditions', {
            temp_c: R('wx', 'temp_c'),
            precip_mm: R('wx', 'precip_mm'),
            wind_kph: R('wx', 'wind_kph'),
          }),
        ],
        answer: { ref: 'score', field: 'score', match: 'number', tolerance: 0 },
        query: `Rate (1–100) how suitable the weather in ${city.name} on ${d} is for an outdoor event.`,
      };
    },
  },
  {
    id: 'c3_restock',
    complexity: 'c3',
    build(rng) {
      const p = rng.pick(PRODUCTS);
      const target = p.stock + 10 + rng.int(500);
      return {
        domains: ['retail'],
        steps: [
          chainSlot('stock', [
            { id: 'feed', nodes: [tn('stock_f1', one(rng, 'stock_level'), { sku: L(p.sku) })] },
            {
              id: 'warehouse',
              nodes: [
                tn('stock_w1', 'locate_warehouse', { sku: L(p.sku) }),
                tn('stock_w2', 'warehouse_bin_count', { warehouse_id: R('stock_w1', 'warehouse_id'), sku: L(p.sku) }),
              ],
            },
          ]),
          node('gap', 'subtract_values', { a: L(target), b: R('stock', 'available') }),
        ],
        answer: { ref: 'gap', field: 'difference', match: 'number', tolerance: 0 },
        query: `How many units of ${p.sku} must we order so that ${target} are available?`,
      };
    },
  },
  {
    id: 'c3_contact_email',
    complexity: 'c3',
    build(rng) {
      const p = rng.pick(PEOPLE);
      const subject = rng.pick(SUBJECTS);
      return {
        domains: ['messaging'],
        steps: [
          chainSlot('who', [
            { id: 'directory', nodes: [tn('who_d1', one(rng, 'contact'), { name: L(p.name) })] },
            {
              id: 'hr',
              nodes: [
                tn('who_h1', 'get_employee_id', { name: L(p.name) }),
                tn('who_h2', 'hr_record', { employee_id: R('who_h1', 'employee_id') }),
              ],
            },
          ]),
          node('mail', one(rng, 'send_email'), {
            to: R('who', 'email'),
            subject: L(subject),
            body: F(`Dear ${p.name.split(' ')[0]}, following up on "${subject}".`),
          }),
        ],
        answer: { ref: 'mail', field: 'to', match: 'text' },
        query: `Write to ${p.name} by email (subject "${subject}") and tell me which address received it.`,
      };
    },
  },
  {
    id: 'c3_book_flight',
    complexity: 'c3',
    build(rng) {
      const [from, to] = two(rng, CITIES);
      const d = travelDay(rng);
      const p = rng.pick(PEOPLE);
      return {
        domains: ['travel'],
        steps: [
          chainSlot('flight', [
            {
              id: 'search',
              nodes: [
                tn('fl_s1', one(rng, 'flight_search'), {
                  origin: L(from.airport),
                  destination: L(to.airport),
                  date: L(d),
                }),
              ],
            },
            {
              id: 'route',
              nodes: [
                tn('fl_r1', 'get_route_id', { origin: L(from.airport), destination: L(to.airport) }),
                tn('fl_r2', 'route_fare_lookup', { route_id: R('fl_r1', 'route_id'), date: L(d) }),
              ],
            },
          ]),
          node('book', 'book_flight', { flight_no: R('flight', 'flight_no'), date: L(d), passenger: L(p.name) }),
        ],
        answer: { ref: 'book', field: 'booking_ref', match: 'text' },
        query: `Put ${p.name} on the cheapest direct ${from.airport}–${to.airport} flight on ${d}. What's the booking reference?`,
      };
    },
  },
  {
    id: 'c3_transfer_share',
    complexity: 'c3',
    build(rng) {
      const [a, b] = two(rng, ACCOUNTS);
      const pct = 5 + rng.int(30);
      return {
        domains: ['banking'],
        steps: [
          chainSlot('bal', [
            { id: 'balance', nodes: [tn('bal_b1', one(rng, 'account_balance'), { account_id: L(a.id) })] },
            {
              id: 'statement',
              nodes: [
                tn('bal_s1', 'get_account_statement', { account_id: L(a.id) }),
                tn('bal_s2', 'compute_closing_balance', {
                  opening_balance: R('bal_s1', 'opening_balance'),
                  net_movements: R('bal_s1', 'net_movements'),
                }),
              ],
            },
          ]),
          node('share', 'percent_of', { value: R('bal', 'balance'), percent: L(pct) }),
          node('move', 'transfer_funds', { from_account: L(a.id), to_account: L(b.id), amount: R('share', 'result') }),
        ],
        answer: { ref: 'move', field: 'new_balance', ...MONEY },
        query: `Transfer ${pct}% of ${a.id}'s current balance into ${b.id}. What does ${a.id} hold afterwards?`,
      };
    },
  },
];

// ---- C4: several independent slots -------------------------------------------------------------------------

const C4: Template[] = [
  {
    id: 'c4_position_fx',
    complexity: 'c4',
    build(rng) {
      const c = rng.pick(COMPANIES);
      const d = marketDay(rng);
      const shares = 5 + rng.int(400);
      const cur = nonUsd(rng);
      return {
        domains: ['markets', 'fx'],
        steps: [
          setSlot('quote', 'stock_quote', { ticker: L(c.ticker), date: L(d) }),
          node('value', 'compute_position_value', { price: R('quote', 'price'), shares: L(shares) }),
          setSlot('rate', 'fx_rate', { base: L('USD'), quote: L(cur), date: L(d) }),
          node('convert', 'convert_amount', { amount: R('value', 'value'), rate: R('rate', 'rate') }),
        ],
        answer: { ref: 'convert', field: 'converted', ...MONEY },
        query: `Express the closing value on ${d} of ${shares} ${c.ticker} shares in ${cur}.`,
      };
    },
  },
  {
    id: 'c4_trip_cost',
    complexity: 'c4',
    build(rng) {
      const [from, to] = two(rng, CITIES);
      const d = travelDay(rng);
      const nights = 1 + rng.int(7);
      return {
        domains: ['travel'],
        steps: [
          setSlot('flight', 'flight_search', { origin: L(from.airport), destination: L(to.airport), date: L(d) }),
          setSlot('hotel', 'hotel_search', { city: L(to.name), nights: L(nights) }),
          node('trip', 'compute_trip_cost', { flight_fare: R('flight', 'fare'), hotel_total: R('hotel', 'total') }),
        ],
        answer: { ref: 'trip', field: 'total', ...MONEY },
        query: `Budget a trip: cheapest direct flight ${from.name} → ${to.name} on ${d} plus ${nights} night${nights > 1 ? 's' : ''} at the recommended hotel there. Total?`,
      };
    },
  },
  {
    id: 'c4_restock_invoice',
    complexity: 'c4',
    build(rng) {
      const p = rng.pick(PRODUCTS);
      const target = p.stock + 5 + rng.int(60);
      const tax = rng.pick([7.25, 10, 13, 16, 19, 20, 23, 25]);
      return {
        domains: ['retail'],
        steps: [
          setSlot('stock', 'stock_level', { sku: L(p.sku) }),
          node('gap', 'subtract_values', { a: L(target), b: R('stock', 'available') }),
          setSlot('price', 'product_price', { sku: L(p.sku) }),
          node('invoice', 'build_invoice', {
            unit_price: R('price', 'unit_price'),
            quantity: R('gap', 'difference'),
            tax_rate_pct: L(tax),
          }),
        ],
        answer: { ref: 'invoice', field: 'total', ...MONEY },
        query: `We need ${target} units of ${p.sku} on hand. Invoice the missing units at list price plus ${tax}% tax: what is the total?`,
      };
    },
  },
  {
    id: 'c4_meeting',
    complexity: 'c4',
    build(rng) {
      const p = rng.pick(PEOPLE);
      const d = meetingDay(rng);
      const title = rng.pick(TITLES);
      return {
        domains: ['messaging', 'calendar'],
        steps: [
          setSlot('contact', 'contact', { name: L(p.name) }),
          setSlot('slot', 'free_slot', { person: L(p.name), date: L(d) }),
          node('event', 'create_event', {
            title: L(title),
            date: L(d),
            start: R('slot', 'start'),
            attendee: R('contact', 'email'),
          }),
        ],
        answer: { ref: 'event', field: 'start', match: 'text' },
        query: `Find ${p.name}'s first free hour on ${d} and book "${title}" with them then. At what time is it?`,
      };
    },
  },
  {
    id: 'c4_balance_fx',
    complexity: 'c4',
    build(rng) {
      const acc = rng.pick(ACCOUNTS);
      const cur = nonUsd(rng);
      return {
        domains: ['banking', 'fx'],
        steps: [
          setSlot('bal', 'account_balance', { account_id: L(acc.id) }),
          setSlot('rate', 'fx_rate', { base: L('USD'), quote: L(cur), date: L(LIBRARY_TODAY) }),
          node('convert', 'convert_amount', { amount: R('bal', 'balance'), rate: R('rate', 'rate') }),
        ],
        answer: { ref: 'convert', field: 'converted', ...MONEY },
        query: `What is the current balance of ${acc.id} worth in ${cur} at today's reference rate?`,
      };
    },
  },
  {
    id: 'c4_dividend_fx',
    complexity: 'c4',
    build(rng) {
      const c = rng.pick(COMPANIES);
      const shares = 50 + rng.int(3000);
      const cur = nonUsd(rng);
      return {
        domains: ['markets', 'fx'],
        steps: [
          setSlot('div', 'dividend', { ticker: L(c.ticker) }),
          node('income', 'calc_dividend_income', { annual_dividend: R('div', 'annual_dividend'), shares: L(shares) }),
          setSlot('rate', 'fx_rate', { base: L('USD'), quote: L(cur), date: L(LIBRARY_TODAY) }),
          node('convert', 'convert_amount', { amount: R('income', 'income'), rate: R('rate', 'rate') }),
        ],
        answer: { ref: 'convert', field: 'converted', ...MONEY },
        query: `In ${cur} at today's rate, what is a year of dividends on ${shares} ${c.ticker} shares?`,
      };
    },
  },
  {
    id: 'c4_savings_balance',
    complexity: 'c4',
    build(rng) {
      const acc = rng.pick(ACCOUNTS);
      const product = rng.pick(Object.keys(SAVINGS_PRODUCTS));
      const years = 1 + rng.int(5);
      return {
        domains: ['banking'],
        steps: [
          setSlot('rate', 'savings_rate', { product: L(product) }),
          setSlot('bal', 'account_balance', { account_id: L(acc.id) }),
          node('interest', 'calc_interest', {
            principal: R('bal', 'balance'),
            rate_pct: R('rate', 'rate_pct'),
            years: L(years),
          }),
        ],
        answer: { ref: 'interest', field: 'interest', ...MONEY },
        query: `If the whole current balance of ${acc.id} went into ${product} for ${years} year${years > 1 ? 's' : ''} (compounded yearly), how much interest would it earn?`,
      };
    },
  },
  {
    id: 'c4_landed_cost',
    complexity: 'c4',
    build(rng) {
      const p = rng.pick(PRODUCTS);
      const zone = rng.pick(['Z1', 'Z2', 'Z3', 'Z4']);
      return {
        domains: ['retail', 'shipping'],
        steps: [
          node('weight', 'get_product_weight', { sku: L(p.sku) }),
          setSlot('ship', 'shipping_quote', { weight_kg: R('weight', 'weight_kg'), zone: L(zone) }),
          setSlot('price', 'product_price', { sku: L(p.sku) }),
          node('landed', 'sum_values', { a: R('price', 'unit_price'), b: R('ship', 'cost') }),
        ],
        answer: { ref: 'landed', field: 'sum', ...MONEY },
        query: `What does one ${p.name} (${p.sku}) cost delivered to zone ${zone}: list price plus shipping?`,
      };
    },
  },
  {
    id: 'c4_total_return_fx',
    complexity: 'c4',
    build(rng) {
      const c = rng.pick(COMPANIES);
      const shares = 10 + rng.int(300);
      const cur = nonUsd(rng);
      return {
        domains: ['markets', 'fx'],
        steps: [
          setSlot('quote', 'stock_quote', { ticker: L(c.ticker), date: L(LIBRARY_TODAY) }),
          node('value', 'compute_position_value', { price: R('quote', 'price'), shares: L(shares) }),
          setSlot('div', 'dividend', { ticker: L(c.ticker) }),
          node('income', 'calc_dividend_income', { annual_dividend: R('div', 'annual_dividend'), shares: L(shares) }),
          node('sum', 'sum_values', { a: R('value', 'value'), b: R('income', 'income') }),
          setSlot('rate', 'fx_rate', { base: L('USD'), quote: L(cur), date: L(LIBRARY_TODAY) }),
          node('convert', 'convert_amount', { amount: R('sum', 'sum'), rate: R('rate', 'rate') }),
        ],
        answer: { ref: 'convert', field: 'converted', ...MONEY },
        query: `Add today's closing value of ${shares} ${c.ticker} shares to one year of their dividends and express the sum in ${cur} at today's rate.`,
      };
    },
  },
];

export const TEMPLATES: Record<Complexity, Template[]> = { c1: C1, c2: C2, c3: C3, c4: C4 };
