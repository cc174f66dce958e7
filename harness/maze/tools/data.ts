// The library's world: seeded deterministic tables (no network, no clock). Values that vary by date are hash
// functions of (entity, date), so substitute tools computing the same quantity agree exactly.

import { Rng, hashString } from '../../core/rng.ts';

/** The library's "today". The agent is told this date in the system prompt; stale-timestamp checks use it. */
export const LIBRARY_TODAY = '2025-06-16';
const TABLE_SEED = 20250616;

export const round = (x: number, d: number): number => {
  const f = 10 ** d;
  return Math.round(x * f) / f;
};
export const round2 = (x: number): number => round(x, 2);
export const round6 = (x: number): number => round(x, 6);

/** Uniform [0,1) from labels, independent of call order. */
export function u(...labels: Array<string | number>): number {
  return hashString(`maze|${labels.join('|')}`) / 4294967296;
}

export function hex8(...labels: Array<string | number>): string {
  return hashString(`id|${labels.join('|')}`)
    .toString(16)
    .toUpperCase()
    .padStart(8, '0');
}

// ---- dates -------------------------------------------------------------------------------------------------

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
/** Days since 1970-01-01 for a valid YYYY-MM-DD, else null. */
export function dayNumber(s: string): number | null {
  const m = DATE_RE.exec(s);
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const t = Date.UTC(y, mo - 1, d);
  const back = new Date(t);
  if (back.getUTCFullYear() !== y || back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d) return null;
  return Math.round(t / 86_400_000);
}
export function dateFromDay(n: number): string {
  return new Date(n * 86_400_000).toISOString().slice(0, 10);
}
/** Market, FX and weather data exist for 2024-01-01 … 2025-12-31. */
export function inDataRange(s: string): boolean {
  const n = dayNumber(s);
  return n !== null && n >= dayNumber('2024-01-01')! && n <= dayNumber('2025-12-31')!;
}
export function weekday(s: string): number {
  return (dayNumber(s)! + 4) % 7; // 0 = Sunday; 1970-01-01 was a Thursday
}

// ---- markets -----------------------------------------------------------------------------------------------

export interface Company {
  ticker: string;
  name: string;
  sector: string;
  basePrice: number;
  shares: number;
  dividend: number;
  listingId: string;
  exchange: string;
}

const rng = new Rng(TABLE_SEED);
const COMPANY_NAMES: Array<[string, string, string]> = [
  ['ACME', 'Acme Robotics', 'industrials'],
  ['BORL', 'Borealis Energy', 'energy'],
  ['CYGN', 'Cygnus Biotech', 'health care'],
  ['DRFT', 'Driftwood Foods', 'consumer staples'],
  ['ELMS', 'Elmstone Financial', 'financials'],
  ['FJRD', 'Fjord Shipping', 'industrials'],
  ['GLYX', 'Glyph Software', 'technology'],
  ['HRBR', 'Harbor Retail', 'consumer discretionary'],
  ['IRNV', 'Ironvale Mining', 'materials'],
  ['JNPR', 'Juniper Health', 'health care'],
  ['KSTR', 'Kestrel Aerospace', 'industrials'],
  ['LUMN', 'Lumen Telecom', 'communication'],
];
export const COMPANIES: Company[] = COMPANY_NAMES.map(([ticker, name, sector], i) => ({
  ticker,
  name,
  sector,
  basePrice: round2(20 + rng.next() * 780),
  shares: 10_000_000 * (5 + rng.int(400)),
  dividend: round2(0.3 + rng.next() * 4.5),
  listingId: `LST-${4100 + i * 37}`,
  exchange: i % 2 === 0 ? 'NYSE' : 'NASDAQ',
}));
export const TICKERS = COMPANIES.map((c) => c.ticker);
export const companyByTicker = (t: string) => COMPANIES.find((c) => c.ticker === t.toUpperCase());

export function closePrice(c: Company, dateStr: string): number {
  return round2(c.basePrice * (0.92 + 0.16 * u('close', c.ticker, dateStr)));
}

// ---- FX ----------------------------------------------------------------------------------------------------

const UNITS_PER_USD: Record<string, number> = {
  USD: 1,
  EUR: 0.92,
  GBP: 0.79,
  JPY: 151.2,
  CHF: 0.88,
  CAD: 1.36,
  AUD: 1.52,
  SEK: 10.6,
  NOK: 10.8,
};
export const CURRENCIES = Object.keys(UNITS_PER_USD);
/** Units of `cur` per 1 USD on a date, already rounded to 6 decimals (every FX tool starts from this). */
export function unitsPerUsd(cur: string, dateStr: string): number {
  const base = UNITS_PER_USD[cur];
  if (base === undefined) throw new Error(`unknown currency ${cur}`);
  if (cur === 'USD') return 1;
  return round6(base * (0.985 + 0.03 * u('fx', cur, dateStr)));
}
/** Units of `quote` per 1 `base`. */
export function fxRate(base: string, quote: string, dateStr: string): number {
  return round6(unitsPerUsd(quote, dateStr) / unitsPerUsd(base, dateStr));
}

// ---- cities, weather, airports -----------------------------------------------------------------------------

export interface City {
  name: string;
  country: string;
  lat: number;
  lon: number;
  airport: string;
  baseTemp: number;
  hotel: string;
  nightly: number;
  cityTaxPct: number;
}
export const CITIES: City[] = [
  {
    name: 'Oslo',
    country: 'NO',
    lat: 59.91,
    lon: 10.75,
    airport: 'OSL',
    baseTemp: 14,
    hotel: 'Fjordlys Hotel',
    nightly: 0,
    cityTaxPct: 3,
  },
  {
    name: 'Lisbon',
    country: 'PT',
    lat: 38.72,
    lon: -9.14,
    airport: 'LIS',
    baseTemp: 24,
    hotel: 'Casa Alfama',
    nightly: 0,
    cityTaxPct: 4,
  },
  {
    name: 'Denver',
    country: 'US',
    lat: 39.74,
    lon: -104.99,
    airport: 'DEN',
    baseTemp: 22,
    hotel: 'Front Range Inn',
    nightly: 0,
    cityTaxPct: 5,
  },
  {
    name: 'Nairobi',
    country: 'KE',
    lat: -1.29,
    lon: 36.82,
    airport: 'NBO',
    baseTemp: 19,
    hotel: 'Acacia Lodge',
    nightly: 0,
    cityTaxPct: 2,
  },
  {
    name: 'Osaka',
    country: 'JP',
    lat: 34.69,
    lon: 135.5,
    airport: 'KIX',
    baseTemp: 25,
    hotel: 'Dotonbori Stay',
    nightly: 0,
    cityTaxPct: 3,
  },
  {
    name: 'Toronto',
    country: 'CA',
    lat: 43.65,
    lon: -79.38,
    airport: 'YYZ',
    baseTemp: 21,
    hotel: 'Harbourfront Suites',
    nightly: 0,
    cityTaxPct: 4,
  },
  {
    name: 'Santiago',
    country: 'CL',
    lat: -33.45,
    lon: -70.67,
    airport: 'SCL',
    baseTemp: 9,
    hotel: 'Andes View',
    nightly: 0,
    cityTaxPct: 2,
  },
  {
    name: 'Vienna',
    country: 'AT',
    lat: 48.21,
    lon: 16.37,
    airport: 'VIE',
    baseTemp: 21,
    hotel: 'Ringstrasse Palais',
    nightly: 0,
    cityTaxPct: 3,
  },
  {
    name: 'Perth',
    country: 'AU',
    lat: -31.95,
    lon: 115.86,
    airport: 'PER',
    baseTemp: 13,
    hotel: 'Swan River Rooms',
    nightly: 0,
    cityTaxPct: 2,
  },
  {
    name: 'Reykjavik',
    country: 'IS',
    lat: 64.15,
    lon: -21.94,
    airport: 'KEF',
    baseTemp: 10,
    hotel: 'Aurora Guesthouse',
    nightly: 0,
    cityTaxPct: 3,
  },
].map((c) => ({ ...c, nightly: round2(70 + rng.next() * 260) }));
export const CITY_NAMES = CITIES.map((c) => c.name);
export const AIRPORT_CODES = CITIES.map((c) => c.airport);
export const cityByName = (n: string) => CITIES.find((c) => c.name.toLowerCase() === n.trim().toLowerCase());
export const cityByAirport = (code: string) => CITIES.find((c) => c.airport === code.toUpperCase());
export const cityByCoords = (lat: number, lon: number) => CITIES.find((c) => c.lat === lat && c.lon === lon);

export interface Weather {
  temp_c: number;
  precip_mm: number;
  wind_kph: number;
}
export function weatherFor(c: City, dateStr: string): Weather {
  let temp = round(c.baseTemp + (u('t', c.name, dateStr) - 0.5) * 12, 1);
  if (Math.abs(temp) < 0.5) temp = 0.5; // keep temperatures away from 0 so a unit slip always shows
  return {
    temp_c: temp,
    precip_mm: round(u('p', c.name, dateStr) < 0.4 ? 0.2 + u('pp', c.name, dateStr) * 20 : 0.1, 1),
    wind_kph: round(3 + u('w', c.name, dateStr) * 45, 1),
  };
}
export function airQuality(c: City): number {
  return 15 + Math.floor(u('aqi', c.name) * 120);
}

function haversineKm(a: City, b: City): number {
  const rad = (x: number) => (x * Math.PI) / 180;
  const dLat = rad(b.lat - a.lat);
  const dLon = rad(b.lon - a.lon);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(rad(a.lat)) * Math.cos(rad(b.lat)) * Math.sin(dLon / 2) ** 2;
  return 2 * 6371 * Math.asin(Math.sqrt(h));
}
export interface Flight {
  flight_no: string;
  fare: number;
  distance_km: number;
}
export function flightFor(from: City, to: City, dateStr: string): Flight {
  const distance = Math.round(haversineKm(from, to));
  return {
    flight_no: `TG${1000 + (hashString(`fl|${from.airport}|${to.airport}|${dateStr}`) % 9000)}`,
    fare: round2((60 + 0.085 * distance) * (0.9 + 0.2 * u('fare', from.airport, to.airport, dateStr))),
    distance_km: distance,
  };
}
export const routeId = (from: City, to: City) => `RT-${from.airport}${to.airport}`;

// ---- people, calendars -------------------------------------------------------------------------------------

export interface Person {
  name: string;
  email: string;
  phone: string;
  employeeId: string;
}
export const PEOPLE: Person[] = [
  'Ada Lindqvist',
  'Bruno Costa',
  'Chioma Eze',
  'Dmitri Volkov',
  'Elena Marsh',
  'Farah Haddad',
  'Goran Petrov',
  'Hana Sato',
  'Ivan Rojas',
  'Julia Berg',
].map((name, i) => ({
  name,
  email: `${name.toLowerCase().replace(' ', '.')}@example.org`,
  phone: `+1-555-01${String(10 + i * 7).padStart(2, '0')}`,
  employeeId: `E${4200 + i * 13}`,
}));
export const PERSON_NAMES = PEOPLE.map((p) => p.name);
export const personByName = (n: string) => PEOPLE.find((p) => p.name.toLowerCase() === n.trim().toLowerCase());
export const personByEmail = (e: string) => PEOPLE.find((p) => p.email === e.trim().toLowerCase());
export const personByEmployeeId = (id: string) => PEOPLE.find((p) => p.employeeId === id.trim().toUpperCase());

/** First free hour (09–16) for a person on a date, skipping hours already booked in this run. */
export function freeHour(p: Person, dateStr: string, booked: ReadonlySet<number>): number | null {
  const first = 9 + Math.floor(u('slot', p.name, dateStr) * 8);
  for (let k = 0; k < 8; k++) {
    const h = 9 + ((first - 9 + k) % 8);
    if (!booked.has(h)) return h;
  }
  return null;
}
export const hh = (h: number) => `${String(h).padStart(2, '0')}:00`;

export const HOLIDAYS: Record<string, string[]> = {
  NO: ['01-01', '04-17', '04-18', '04-21', '05-01', '05-17', '05-29', '06-09', '12-25', '12-26'],
  PT: ['01-01', '04-18', '04-25', '05-01', '06-10', '08-15', '10-05', '12-01', '12-08', '12-25'],
  US: ['01-01', '01-20', '02-17', '05-26', '06-19', '07-04', '09-01', '11-27', '12-25'],
  JP: ['01-01', '01-13', '02-11', '03-20', '04-29', '05-03', '05-05', '07-21', '11-03', '11-23'],
  CA: ['01-01', '04-18', '05-19', '07-01', '09-01', '10-13', '12-25', '12-26'],
  AT: ['01-01', '01-06', '04-21', '05-01', '05-29', '06-09', '08-15', '10-26', '12-25', '12-26'],
};

// ---- banking -----------------------------------------------------------------------------------------------

export interface Account {
  id: string;
  owner: string;
  opening: number;
  transactions: Array<{ id: string; amount: number }>;
}
export const ACCOUNTS: Account[] = Array.from({ length: 8 }, (_, i) => {
  const id = `ACC-${1001 + i}`;
  const n = 3 + rng.int(3);
  return {
    id,
    owner: PEOPLE[i]!.name,
    opening: round2(4000 + rng.next() * 21000),
    transactions: Array.from({ length: n }, (_, k) => ({
      id: `TX-${1001 + i}-${k + 1}`,
      amount: round2((rng.chance(0.45) ? 1 : -1) * (20 + rng.next() * 900)),
    })),
  };
});
export const ACCOUNT_IDS = ACCOUNTS.map((a) => a.id);
export const accountById = (id: string) => ACCOUNTS.find((a) => a.id === id.trim().toUpperCase());
export const riskToken = (a: Account) => `RK-${hex8('risk', a.id)}`;

export const SAVINGS_PRODUCTS: Record<string, number> = {
  'flex-saver': 1.35,
  'fixed-12m': 3.1,
  'fixed-24m': 3.65,
  'youth-saver': 2.4,
  'premium-saver': 4.2,
};

// ---- retail, shipping --------------------------------------------------------------------------------------

export interface Product {
  sku: string;
  name: string;
  unitPrice: number;
  stock: number;
  weightKg: number;
  warehouse: string;
}
const PRODUCT_NAMES = [
  'trail backpack',
  'espresso grinder',
  'desk lamp',
  'wool blanket',
  'cast iron pan',
  'bike helmet',
  'noise-cancelling headset',
  'yoga mat',
  'garden hose',
  'standing desk',
  'thermal flask',
  'camping stove',
];
export const PRODUCTS: Product[] = PRODUCT_NAMES.map((name, i) => ({
  sku: `SKU-${2001 + i * 17}`,
  name,
  unitPrice: round2(4 + rng.next() * 380),
  stock: 30 + rng.int(450),
  weightKg: round(0.2 + rng.next() * 24, 2),
  warehouse: ['WH-NORTH', 'WH-SOUTH', 'WH-EAST'][i % 3]!,
}));
export const SKUS = PRODUCTS.map((p) => p.sku);
export const productBySku = (s: string) => PRODUCTS.find((p) => p.sku === s.trim().toUpperCase());

export const TAX_RATE_PCT: Record<string, number> = {
  NO: 25,
  PT: 23,
  US: 7.25,
  KE: 16,
  JP: 10,
  CA: 13,
  CL: 19,
  AT: 20,
  AU: 10,
  IS: 24,
};
export const SHIPPING_ZONE: Record<string, string> = {
  US: 'Z1',
  CA: 'Z1',
  NO: 'Z2',
  PT: 'Z2',
  AT: 'Z2',
  IS: 'Z2',
  JP: 'Z3',
  AU: 'Z3',
  KE: 'Z4',
  CL: 'Z4',
};
export const ZONE_RATES: Record<string, { base: number; perKg: number }> = {
  Z1: { base: 6.5, perKg: 1.1 },
  Z2: { base: 11, perKg: 2.4 },
  Z3: { base: 14.5, perKg: 3.2 },
  Z4: { base: 18, perKg: 4.05 },
};
export const ZONE_DAYS: Record<string, number> = { Z1: 2, Z2: 4, Z3: 6, Z4: 8 };
