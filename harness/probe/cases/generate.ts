import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { fromRoot } from '../../core/paths.ts';
import { deriveSeed, hashString, Rng } from '../../core/rng.ts';
import { strftime } from '../../templates/strftime.ts';
import { confusables, PALETTE } from './palette.ts';
import type { ArgRule, CaseRow, Category } from './types.ts';

/**
 * The generator of toolgauge's own probe cases (cases/probe/cases.jsonl). Deterministic from a seed:
 * families of cases per category (docs/probe.md), each with several phrasings that are all used in both splits,
 * slot values drawn from pools that are disjoint between dev and test, and the catalog (the case's tool list)
 * shuffled with a per-case seed so the correct tool sits anywhere. Run `npx tsx harness/probe/cases/generate.ts`
 * to rewrite the files; a unit test checks the committed files equal what this produces.
 */

export const GENERATOR_SEED = 20260115;
export type Split = 'dev' | 'test';
export const SPLIT_NAMES: readonly Split[] = ['dev', 'test'];

type Pool<T> = Record<Split, readonly T[]>;

// ---------------------------------------------------------------------------------------------------------
// Slot pools: every value appears in one split only (the leakage lint checks it).

const CITY: Pool<[string, string]> = {
  dev: [
    ['Tokyo', 'Japan'],
    ['Lisbon', 'Portugal'],
    ['Nairobi', 'Kenya'],
    ['Montreal', 'Canada'],
    ['Oslo', 'Norway'],
    ['Santiago', 'Chile'],
    ['Hanoi', 'Vietnam'],
    ['Krakow', 'Poland'],
    ['Auckland', 'New Zealand'],
    ['Marrakesh', 'Morocco'],
    ['Seville', 'Spain'],
    ['Busan', 'South Korea'],
    ['Edinburgh', 'United Kingdom'],
    ['Cusco', 'Peru'],
    ['Tbilisi', 'Georgia'],
    ['Reykjavik', 'Iceland'],
  ],
  test: [
    ['Osaka', 'Japan'],
    ['Porto', 'Portugal'],
    ['Accra', 'Ghana'],
    ['Vancouver', 'Canada'],
    ['Bergen', 'Norway'],
    ['Valparaiso', 'Chile'],
    ['Da Nang', 'Vietnam'],
    ['Gdansk', 'Poland'],
    ['Wellington', 'New Zealand'],
    ['Tunis', 'Tunisia'],
    ['Valencia', 'Spain'],
    ['Daegu', 'South Korea'],
    ['Cardiff', 'United Kingdom'],
    ['Quito', 'Ecuador'],
    ['Yerevan', 'Armenia'],
    ['Tallinn', 'Estonia'],
  ],
};
const TZ_CITY: Pool<[string, string]> = {
  dev: [
    ['Sydney', 'Australia/Sydney'],
    ['Dubai', 'Asia/Dubai'],
    ['Chicago', 'America/Chicago'],
    ['Cairo', 'Africa/Cairo'],
    ['Helsinki', 'Europe/Helsinki'],
    ['Manila', 'Asia/Manila'],
    ['Denver', 'America/Denver'],
    ['Kolkata', 'Asia/Kolkata'],
  ],
  test: [
    ['Perth', 'Australia/Perth'],
    ['Karachi', 'Asia/Karachi'],
    ['Phoenix', 'America/Phoenix'],
    ['Lagos', 'Africa/Lagos'],
    ['Athens', 'Europe/Athens'],
    ['Jakarta', 'Asia/Jakarta'],
    ['Halifax', 'America/Halifax'],
    ['Dhaka', 'Asia/Dhaka'],
  ],
};
const CURRENCY: Pool<string> = {
  dev: ['USD', 'EUR', 'GBP', 'JPY', 'CHF', 'INR'],
  test: ['CAD', 'AUD', 'SEK', 'NZD', 'MXN', 'ZAR'],
};
const AMOUNT: Pool<number> = {
  dev: [250, 40, 1200, 75.5, 18, 3000, 560, 99],
  test: [310, 65, 2400, 12.75, 880, 47, 150, 5000],
};
const TICKER: Pool<string> = {
  dev: ['AAPL', 'MSFT', 'NVDA', 'KO', 'NKE', 'IBM', 'SBUX', 'ADBE'],
  test: ['AMZN', 'GOOGL', 'TSLA', 'PEP', 'DIS', 'ORCL', 'INTC', 'CSCO'],
};
const COIN: Pool<string> = { dev: ['BTC', 'SOL', 'DOGE', 'XRP'], test: ['ETH', 'ADA', 'DOT', 'LTC'] };
const WORD: Pool<string> = {
  dev: ['ephemeral', 'laconic', 'quixotic', 'serendipity', 'ubiquitous', 'sonder'],
  test: ['sanguine', 'perfunctory', 'mellifluous', 'obsequious', 'pernicious', 'petrichor'],
};
const FLIGHT: Pool<[string, string]> = {
  dev: [
    ['BA117', 'BA 117'],
    ['LH400', 'LH 400'],
    ['AF1234', 'AF 1234'],
    ['UA902', 'UA 902'],
    ['QF12', 'QF 12'],
  ],
  test: [
    ['DL45', 'DL 45'],
    ['KL605', 'KL 605'],
    ['EK203', 'EK 203'],
    ['NH10', 'NH 10'],
    ['SQ318', 'SQ 318'],
  ],
};
/** name, email, phone (as said), phone digits */
const PERSON: Pool<[string, string, string, string]> = {
  dev: [
    ['Priya Shah', 'priya.shah@acme.example', '+1 415 555 0101', '+14155550101'],
    ['Tom Becker', 'tom.becker@acme.example', '+1 415 555 0102', '+14155550102'],
    ['Lena Fischer', 'lena.fischer@acme.example', '+49 30 5550 1003', '+493055501003'],
    ['Marco Rossi', 'marco.rossi@acme.example', '+39 02 5550 1004', '+390255501004'],
    ['Yuki Tanaka', 'yuki.tanaka@acme.example', '+81 3 5550 1005', '+81355501005'],
    ['Amara Okafor', 'amara.okafor@acme.example', '+234 1 555 0106', '+23415550106'],
  ],
  test: [
    ['Omar Haddad', 'omar.haddad@globex.example', '+1 212 555 0201', '+12125550201'],
    ['Ines Costa', 'ines.costa@globex.example', '+351 21 555 0202', '+351215550202'],
    ['Kofi Mensah', 'kofi.mensah@globex.example', '+233 30 555 0203', '+233305550203'],
    ['Sven Lund', 'sven.lund@globex.example', '+46 8 555 0204', '+4685550204'],
    ['Mei Chen', 'mei.chen@globex.example', '+65 6555 0205', '+6565550205'],
    ['Rosa Diaz', 'rosa.diaz@globex.example', '+52 55 5550 0206', '+525555500206'],
  ],
};
const CHANNEL: Pool<string> = {
  dev: ['#general', '#design', '#backend', '#support'],
  test: ['#random', '#ops', '#frontend', '#sales'],
};
const MESSAGE: Pool<string> = {
  dev: [
    'running ten minutes late',
    'the build is green again',
    'lunch is on me today',
    'the client call moved to Thursday',
    'I left the keys at the front desk',
    'the slides are in the shared folder',
  ],
  test: [
    'the train is delayed',
    'the deploy finished without errors',
    'the meeting room is booked',
    'the printer on floor two is fixed',
    'I picked up the parcel',
    'the report needs one more review',
  ],
};
const SUBJECT: Pool<string> = {
  dev: ['Quarterly numbers', 'Team offsite', 'Invoice question', 'Welcome aboard'],
  test: ['Project kickoff', 'Budget review', 'Holiday schedule', 'Contract renewal'],
};
const TASK: Pool<string> = {
  dev: [
    'call the dentist',
    'water the plants',
    'renew my passport',
    'send the rent',
    'back up my laptop',
    'buy a birthday card',
  ],
  test: [
    'pay the electricity bill',
    'pick up the dry cleaning',
    'book a haircut',
    'return the library books',
    'charge the camera',
    'order printer ink',
  ],
};
/** ISO datetime with offset */
const DATETIME: Pool<string> = {
  dev: [
    '2026-03-21T18:00:00+01:00',
    '2026-04-14T07:30:00+02:00',
    '2026-05-02T12:15:00-04:00',
    '2026-06-18T20:45:00+09:00',
    '2026-07-07T09:00:00+00:00',
    '2026-02-27T16:30:00-08:00',
  ],
  test: [
    '2026-03-28T08:45:00+01:00',
    '2026-04-23T19:00:00+02:00',
    '2026-05-11T06:30:00-05:00',
    '2026-06-29T13:20:00+05:30',
    '2026-08-03T10:10:00+00:00',
    '2026-09-15T21:00:00-03:00',
  ],
};
const DATE: Pool<string> = {
  dev: ['2026-03-19', '2026-04-10', '2026-05-21', '2026-06-05', '2026-07-16', '2026-08-27'],
  test: ['2026-03-25', '2026-04-17', '2026-05-29', '2026-06-12', '2026-07-24', '2026-09-03'],
};
const AIRPORT_PAIR: Pool<[string, string]> = {
  dev: [
    ['LIS', 'NRT'],
    ['YUL', 'OSL'],
    ['SCL', 'HAN'],
    ['EDI', 'KRK'],
    ['AKL', 'RAK'],
  ],
  test: [
    ['OPO', 'KIX'],
    ['YVR', 'BGO'],
    ['LIM', 'DAD'],
    ['CWL', 'GDN'],
    ['WLG', 'TUN'],
  ],
};
const LANGUAGE: Pool<[string, string]> = {
  dev: [
    ['French', 'fr'],
    ['German', 'de'],
    ['Spanish', 'es'],
    ['Swahili', 'sw'],
    ['Korean', 'ko'],
  ],
  test: [
    ['Italian', 'it'],
    ['Portuguese', 'pt'],
    ['Dutch', 'nl'],
    ['Turkish', 'tr'],
    ['Polish', 'pl'],
  ],
};
const PHRASE: Pool<string> = {
  dev: [
    'good morning',
    'where is the train station',
    'thank you very much',
    'the bill, please',
    'I am allergic to nuts',
  ],
  test: [
    'see you tomorrow',
    'how much does this cost',
    'I would like a coffee',
    'is this seat taken',
    'the museum opens at ten',
  ],
};
/** small whole numbers (passengers, guests, nights, days, quantities): disjoint too */
const SMALL: Pool<number> = { dev: [1, 2, 3, 7, 8], test: [4, 5, 6, 9, 10] };
/** passengers (a flight takes at most 9) */
const SEATS: Pool<number> = { dev: [1, 2, 3, 7, 8], test: [4, 5, 6, 9] };
const TEMP: Pool<[number, 'celsius' | 'fahrenheit']> = {
  dev: [
    [68, 'fahrenheit'],
    [21, 'celsius'],
    [72.5, 'fahrenheit'],
    [19.5, 'celsius'],
  ],
  test: [
    [70, 'fahrenheit'],
    [22.5, 'celsius'],
    [66, 'fahrenheit'],
    [17.5, 'celsius'],
  ],
};
const ROOM: Pool<string> = {
  dev: ['kitchen', 'bedroom', 'garage', 'study'],
  test: ['living room', 'hallway', 'office', 'nursery'],
};
const TIME_OF_DAY: Pool<[string, string]> = {
  dev: [
    ['06:45', '6:45'],
    ['07:15', '7:15'],
    ['05:30', '5:30'],
    ['08:05', '8:05'],
  ],
  test: [
    ['06:20', '6:20'],
    ['07:50', '7:50'],
    ['05:10', '5:10'],
    ['09:40', '9:40'],
  ],
};
const LANDMARK: Pool<string> = {
  dev: ['Central Station', 'City Museum', 'Harbor Market', 'North Park', 'Riverside Library', 'Airport Terminal 2'],
  test: ['Union Square', 'Botanical Garden', 'Old Lighthouse', 'Stadium Gate 4', 'Science Center', 'Ferry Pier'],
};
const MEETING: Pool<string> = {
  dev: ['design review', 'budget sync', 'sprint planning', 'vendor demo'],
  test: ['roadmap review', 'hiring debrief', 'launch retro', 'security briefing'],
};
const SERVICE: Pool<[string, number]> = {
  dev: [
    ['logo design', 450],
    ['website audit', 120.5],
    ['photo retouching', 80],
    ['translation services', 35],
  ],
  test: [
    ['copywriting', 600],
    ['SEO review', 95.25],
    ['video editing', 60],
    ['data cleanup', 42],
  ],
};
const PRODUCT: Pool<string> = {
  dev: ['running shoes', 'noise-cancelling headphones', 'camping tent', 'electric kettle'],
  test: ['espresso machine', 'standing desk', 'hiking backpack', 'robot vacuum'],
};
const BRAND: Pool<string> = { dev: ['Acme', 'Zenith', 'Nova', 'Apex'], test: ['Orbit', 'Nimbus', 'Vertex', 'Summit'] };
const MAX_PRICE: Pool<number> = { dev: [120, 300, 45, 999], test: [180, 640, 55.5, 1500] };
const GROCERY: Pool<string> = {
  dev: ['apples', 'lemons', 'avocados', 'bagels', 'eggs'],
  test: ['bananas', 'peaches', 'tomatoes', 'croissants', 'onions'],
};
const NUMBER_PAIR: Pool<[number, number]> = {
  dev: [
    [17, 23],
    [41, 38],
    [102, 127],
    [64, 46],
  ],
  test: [
    [19, 29],
    [37, 73],
    [211, 112],
    [53, 34],
  ],
};

// ---------------------------------------------------------------------------------------------------------
// Building blocks

interface Ctx {
  split: Split;
  /** index of the case within its family and split */
  i: number;
  phrasing: string;
  rng: Rng;
  /** value k of a pool for this case (distinct k give distinct values while the pool lasts) */
  pick<T>(pool: Pool<T>, k?: number): T;
}

type Call = { tool: string; args: Record<string, unknown>; arg_rules?: Record<string, ArgRule> };
type Turn = CaseRow['turns'][number];

interface Built {
  targets: string[];
  /** other tools offered (confusers); the catalog is targets + these, shuffled */
  others?: string[];
  turns: Turn[];
  expected: Call | Call[] | null;
  arg_rules?: Record<string, ArgRule>;
  slots: Record<string, string | number>;
}

export interface FamilySpec {
  id: string;
  cat: Category;
  /** cases per split */
  count: number;
  phrasings: readonly string[];
  /** C7: the catalog sizes cycled through */
  catalogSizes?: readonly number[];
  build(ctx: Ctx): Built;
}

function fill(template: string, vars: Record<string, string | number>): string {
  return template.replace(/\{(\w+)\}/g, (_, k: string) => {
    if (!(k in vars)) throw new Error(`generator: phrasing slot {${k}} has no value`);
    return String(vars[k]);
  });
}

const user = (content: string): Turn => ({ role: 'user', content });
const assistant = (tool: string, args: Record<string, unknown>): Turn => ({
  role: 'assistant',
  tool_call: { tool, args },
});
const toolResult = (content: string): Turn => ({ role: 'tool', content });

/** "21 March 2026" */
const sayDate = (iso: string): string => strftime(new Date(`${iso.slice(0, 10)}T00:00:00Z`), '%-d %B %Y');
/** "on 21 March 2026 at 18:00 (UTC+01:00)" */
function sayDatetime(iso: string): string {
  const off = iso.slice(19);
  return `on ${sayDate(iso)} at ${iso.slice(11, 16)} (UTC${off === '+00:00' ? '' : off})`;
}
function addDays(iso: string, n: number): string {
  const d = new Date(`${iso}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
}
const cityRule = (city: string, country: string): ArgRule => ({ equiv: [`${city}, ${country}`], casefold: true });
const CI: ArgRule = { casefold: true };
const FUZZY: ArgRule = { match: 'fuzzy' };
const AT_DAY: ArgRule = { datetime: 'day' };
const AT_MINUTE_TZ: ArgRule = { datetime: 'minute', timezone: 'required' };
const CABINS = ['business', 'premium', 'first'] as const;
const MODES: ReadonlyArray<[string, string]> = [
  ['driving', 'by car'],
  ['walking', 'on foot'],
  ['transit', 'by public transport'],
  ['cycling', 'by bike'],
];

// ---------------------------------------------------------------------------------------------------------
// Families

export const FAMILY_SPECS: readonly FamilySpec[] = [
  // C1 — single obvious tool
  {
    id: 'c1_weather',
    cat: 'C1',
    count: 5,
    phrasings: [
      "What's the weather in {city} right now?",
      "How's the weather looking in {city} at the moment?",
      'Is it raining in {city} right now?',
      'Tell me the current weather for {city}.',
      'Current conditions in {city}, please.',
    ],
    build: ({ pick, phrasing }) => {
      const [city, country] = pick(CITY);
      return {
        targets: ['get_weather'],
        turns: [user(fill(phrasing, { city }))],
        expected: { tool: 'get_weather', args: { location: city } },
        arg_rules: { location: cityRule(city, country) },
        slots: { city },
      };
    },
  },
  {
    id: 'c1_stock',
    cat: 'C1',
    count: 5,
    phrasings: [
      "What's the stock price of {ticker}?",
      'How is {ticker} trading today?',
      'Give me the latest quote for {ticker}.',
    ],
    build: ({ pick, phrasing }) => {
      const ticker = pick(TICKER);
      return {
        targets: ['get_stock_price'],
        turns: [user(fill(phrasing, { ticker }))],
        expected: { tool: 'get_stock_price', args: { symbol: ticker } },
        arg_rules: { symbol: CI },
        slots: { ticker },
      };
    },
  },
  {
    id: 'c1_definition',
    cat: 'C1',
    count: 5,
    phrasings: ["What does '{word}' mean?", 'Define the word {word} for me.', 'Look up the meaning of {word}.'],
    build: ({ pick, phrasing }) => {
      const word = pick(WORD);
      return {
        targets: ['get_definition'],
        turns: [user(fill(phrasing, { word }))],
        expected: { tool: 'get_definition', args: { word } },
        arg_rules: { word: CI },
        slots: { word },
      };
    },
  },
  {
    id: 'c1_flight_status',
    cat: 'C1',
    count: 5,
    phrasings: ['Is flight {flight} on time?', "What's the status of flight {flight}?", 'Has {flight} landed yet?'],
    build: ({ pick, phrasing }) => {
      const [flight, spaced] = pick(FLIGHT);
      return {
        targets: ['get_flight_status'],
        turns: [user(fill(phrasing, { flight }))],
        expected: { tool: 'get_flight_status', args: { flight_number: flight } },
        arg_rules: { flight_number: { equiv: [spaced], casefold: true } },
        slots: { flight },
      };
    },
  },

  // C2 — confusable tools
  {
    id: 'c2_sms',
    cat: 'C2',
    count: 4,
    phrasings: [
      'Text {phone}: {message}',
      'Send an SMS to {phone} saying {message}.',
      'Message {phone} by text: {message}',
    ],
    build: ({ pick, phrasing }) => {
      const [, , phone, digits] = pick(PERSON);
      const message = pick(MESSAGE);
      return {
        targets: ['send_sms'],
        others: ['send_email', 'post_chat_message'],
        turns: [user(fill(phrasing, { phone, message }))],
        expected: { tool: 'send_sms', args: { phone_number: phone, message } },
        arg_rules: { phone_number: { equiv: [digits] }, message: FUZZY },
        slots: { phone, message },
      };
    },
  },
  {
    id: 'c2_chat',
    cat: 'C2',
    count: 4,
    phrasings: [
      'Post in {channel}: {message}',
      'Let the team know in {channel} that {message}.',
      'Drop a note in the {channel} channel: {message}',
    ],
    build: ({ pick, phrasing }) => {
      const channel = pick(CHANNEL);
      const message = pick(MESSAGE, 1);
      return {
        targets: ['post_chat_message'],
        others: ['send_email', 'send_sms'],
        turns: [user(fill(phrasing, { channel, message }))],
        expected: { tool: 'post_chat_message', args: { channel, text: message } },
        arg_rules: { channel: { equiv: [channel.slice(1)], casefold: true }, text: FUZZY },
        slots: { channel, message },
      };
    },
  },
  {
    id: 'c2_forecast',
    cat: 'C2',
    count: 4,
    phrasings: [
      'What will the weather be like in {city} over the next {days} days?',
      'Give me the {days}-day forecast for {city}.',
    ],
    build: ({ pick, phrasing }) => {
      const [city, country] = pick(CITY, 3);
      const days = pick({ dev: SMALL.dev.filter((n) => n >= 2), test: SMALL.test });
      return {
        targets: ['get_forecast'],
        others: ['get_weather'],
        turns: [user(fill(phrasing, { city, days }))],
        expected: { tool: 'get_forecast', args: { location: city, days } },
        arg_rules: { location: cityRule(city, country) },
        slots: { city, days: String(days) },
      };
    },
  },
  {
    id: 'c2_alarm',
    cat: 'C2',
    count: 4,
    phrasings: ['Set an alarm for {time}.', 'Wake me up at {time}.'],
    build: ({ pick, phrasing }) => {
      const [time, short] = pick(TIME_OF_DAY);
      return {
        targets: ['set_alarm'],
        others: ['start_timer', 'create_reminder'],
        turns: [user(fill(phrasing, { time }))],
        expected: { tool: 'set_alarm', args: { time } },
        arg_rules: { time: { equiv: [short, `${time}:00`] } },
        slots: { time },
      };
    },
  },
  {
    id: 'c2_crypto',
    cat: 'C2',
    count: 4,
    phrasings: ["What's {coin} trading at in {currency}?", 'Price of {coin} in {currency}, please.'],
    build: ({ pick, phrasing }) => {
      const coin = pick(COIN);
      const currency = pick(CURRENCY, 2);
      return {
        targets: ['get_crypto_price'],
        others: ['get_stock_price'],
        turns: [user(fill(phrasing, { coin, currency }))],
        expected: { tool: 'get_crypto_price', args: { coin, currency } },
        arg_rules: { coin: CI, currency: CI },
        slots: { coin, currency },
      };
    },
  },

  // C3 — argument-heavy
  {
    id: 'c3_currency',
    cat: 'C3',
    count: 4,
    phrasings: [
      'How much is {amount} {from} in {to}?',
      'Convert {amount} {from} to {to}.',
      'I need {amount} {from} converted into {to}.',
    ],
    build: ({ pick, phrasing }) => {
      const amount = pick(AMOUNT);
      const from = pick(CURRENCY);
      const to = pick(CURRENCY, 1);
      return {
        targets: ['convert_currency'],
        turns: [user(fill(phrasing, { amount, from, to }))],
        expected: { tool: 'convert_currency', args: { amount, from_currency: from, to_currency: to } },
        arg_rules: { from_currency: CI, to_currency: CI },
        slots: { amount: String(amount), from, to },
      };
    },
  },
  {
    id: 'c3_flight',
    cat: 'C3',
    count: 4,
    phrasings: [
      'Book a flight from {origin} to {dest} on {date} for a party of {n} in {cabin} class.',
      'I need {n} seat(s) in {cabin} from {origin} to {dest}, departing {date}.',
    ],
    build: ({ pick, phrasing, i }) => {
      const [origin, dest] = pick(AIRPORT_PAIR);
      const iso = pick(DATE);
      const n = pick(SEATS);
      const cabin = (['economy', ...CABINS] as const)[i % 4]!;
      return {
        targets: ['book_flight'],
        turns: [user(fill(phrasing, { origin, dest, date: sayDate(iso), n, cabin }))],
        expected: { tool: 'book_flight', args: { origin, destination: dest, date: iso, passengers: n, cabin } },
        arg_rules: { origin: CI, destination: CI, date: AT_DAY, cabin: CI },
        slots: { origin, dest, date: iso, n: String(n) },
      };
    },
  },
  {
    id: 'c3_reminder_tz',
    cat: 'C3',
    count: 4,
    phrasings: ['Remind me to {task} {when}.', 'Set a reminder {when} to {task}.'],
    build: ({ pick, phrasing }) => {
      const task = pick(TASK);
      const iso = pick(DATETIME);
      return {
        targets: ['create_reminder'],
        turns: [user(fill(phrasing, { task, when: sayDatetime(iso) }))],
        expected: { tool: 'create_reminder', args: { text: task, remind_at: iso } },
        arg_rules: { text: FUZZY, remind_at: AT_MINUTE_TZ },
        slots: { task, when: iso },
      };
    },
  },
  {
    id: 'c3_thermostat',
    cat: 'C3',
    count: 4,
    phrasings: ['Set the thermostat to {t} degrees {unit}.', 'Heat the house to {t} degrees {unit}, please.'],
    build: ({ pick, phrasing }) => {
      const [t, unit] = pick(TEMP);
      return {
        targets: ['set_thermostat'],
        turns: [user(fill(phrasing, { t, unit: unit[0]!.toUpperCase() + unit.slice(1) }))],
        expected: { tool: 'set_thermostat', args: { temperature: t, unit } },
        arg_rules: { temperature: { tolerance: 0.05 }, unit: CI },
        slots: { temperature: String(t) },
      };
    },
  },
  {
    id: 'c3_hotel',
    cat: 'C3',
    count: 4,
    phrasings: [
      'Book a hotel in {city} from {in} to {out} for a party of {guests}.',
      'I need a room in {city}, checking in on {in} and out on {out}, {guests} guest(s).',
    ],
    build: ({ pick, phrasing }) => {
      const [city, country] = pick(CITY, 5);
      const checkIn = pick(DATE, 2);
      const nights = pick(SMALL, 1);
      const guests = pick(SMALL, 2);
      const checkOut = addDays(checkIn, nights);
      return {
        targets: ['book_hotel'],
        turns: [user(fill(phrasing, { city, in: sayDate(checkIn), out: sayDate(checkOut), guests }))],
        expected: { tool: 'book_hotel', args: { city, check_in: checkIn, check_out: checkOut, guests } },
        arg_rules: { city: cityRule(city, country), check_in: AT_DAY, check_out: AT_DAY },
        slots: { city, check_in: checkIn, guests: String(guests) },
      };
    },
  },

  // C4 — arrays / nested
  {
    id: 'c4_event_attendees',
    cat: 'C4',
    count: 4,
    phrasings: [
      "Schedule '{title}' {when} with {people}.",
      "Set up a meeting called '{title}' {when} and invite {people}.",
    ],
    build: ({ pick, phrasing, i }) => {
      const title = pick(MEETING);
      const iso = pick(DATETIME, 3);
      const emails = [pick(PERSON)[1], pick(PERSON, 1)[1], ...(i % 2 ? [pick(PERSON, 2)[1]] : [])];
      const people =
        emails.length === 2 ? `${emails[0]} and ${emails[1]}` : `${emails[0]}, ${emails[1]} and ${emails[2]}`;
      return {
        targets: ['create_event'],
        turns: [user(fill(phrasing, { title, when: sayDatetime(iso), people }))],
        expected: { tool: 'create_event', args: { title, start: iso, attendees: emails } },
        arg_rules: { title: FUZZY, start: AT_MINUTE_TZ, attendees: { match: 'set', casefold: true } },
        slots: { title, start: iso, ...Object.fromEntries(emails.map((e, k) => [`attendee${k}`, e])) },
      };
    },
  },
  {
    id: 'c4_invoice',
    cat: 'C4',
    count: 4,
    phrasings: [
      'Invoice {name} ({email}) in {currency}: {q1} x {d1} at {p1} each and {q2} x {d2} at {p2} each.',
      'Bill {name} at {email} for {q1} x {d1} ({p1} {currency} each) plus {q2} x {d2} ({p2} {currency} each).',
    ],
    build: ({ pick, phrasing }) => {
      const [name, email] = pick(PERSON, 3);
      const currency = pick(CURRENCY, 4);
      const [d1, p1] = pick(SERVICE);
      const [d2, p2] = pick(SERVICE, 1);
      const q1 = pick(SMALL);
      const q2 = pick(SMALL, 2);
      return {
        targets: ['create_invoice'],
        turns: [user(fill(phrasing, { name, email, currency, q1, d1, p1, q2, d2, p2 }))],
        expected: {
          tool: 'create_invoice',
          args: {
            customer: { name, email },
            items: [
              { description: d1, quantity: q1, unit_price: p1 },
              { description: d2, quantity: q2, unit_price: p2 },
            ],
            currency,
          },
        },
        arg_rules: {
          'customer.name': CI,
          'customer.email': CI,
          items: { match: 'set' },
          'items[].description': FUZZY,
          currency: CI,
        },
        slots: { name, email, currency, d1, d2, p1: String(p1), p2: String(p2) },
      };
    },
  },
  {
    id: 'c4_products',
    cat: 'C4',
    count: 4,
    phrasings: [
      'Find {query} under {max} from {b1} or {b2}, in stock only.',
      "Search for {query} by {b1} or {b2}, max price {max}, and only what's in stock.",
    ],
    build: ({ pick, phrasing }) => {
      const query = pick(PRODUCT);
      const max = pick(MAX_PRICE);
      const b1 = pick(BRAND);
      const b2 = pick(BRAND, 1);
      return {
        targets: ['search_products'],
        turns: [user(fill(phrasing, { query, max, b1, b2 }))],
        expected: {
          tool: 'search_products',
          args: { query, filters: { max_price: max, brands: [b1, b2], in_stock: true } },
        },
        arg_rules: { query: FUZZY, 'filters.brands': { match: 'set', casefold: true } },
        slots: { query, max: String(max), b1, b2 },
      };
    },
  },
  {
    id: 'c4_groceries',
    cat: 'C4',
    count: 4,
    phrasings: [
      'Order {q1} {i1}, {q2} {i2} and {q3} {i3} for delivery on {date}.',
      'Get me {q1} {i1}, {q2} {i2} and {q3} {i3}, delivered on {date}.',
    ],
    build: ({ pick, phrasing }) => {
      const [i1, i2, i3] = [pick(GROCERY), pick(GROCERY, 1), pick(GROCERY, 2)];
      const [q1, q2, q3] = [pick(SMALL, 1), pick(SMALL, 2), pick(SMALL, 4)];
      const iso = pick(DATE, 4);
      return {
        targets: ['order_groceries'],
        turns: [user(fill(phrasing, { q1, i1, q2, i2, q3, i3, date: sayDate(iso) }))],
        expected: {
          tool: 'order_groceries',
          args: {
            items: [
              { name: i1, quantity: q1 },
              { name: i2, quantity: q2 },
              { name: i3, quantity: q3 },
            ],
            delivery_date: iso,
          },
        },
        arg_rules: { items: { match: 'set' }, 'items[].name': { casefold: true }, delivery_date: AT_DAY },
        slots: { i1, i2, i3, date: iso },
      };
    },
  },

  // C5 — abstention traps: the tools' keywords appear, but nothing should be called
  {
    id: 'c5_gratitude',
    cat: 'C5',
    count: 4,
    phrasings: [
      "Thanks, that's all I needed for my trip to {city}!",
      "Great, I'm all set for {city} now, thank you.",
      'Perfect, that settles my plans for {city}. Cheers!',
      'No more questions about {city} for now, thanks a lot.',
    ],
    build: ({ pick, phrasing }) => {
      const [city] = pick(CITY, 7);
      return {
        targets: [],
        others: ['get_weather', 'get_forecast', 'book_hotel'],
        turns: [user(fill(phrasing, { city }))],
        expected: null,
        slots: { city },
      };
    },
  },
  {
    id: 'c5_already_done',
    cat: 'C5',
    count: 4,
    phrasings: [
      "I already emailed {person} about '{subject}' this morning, so that's sorted.",
      "Just so you know, I texted {person} about '{subject}' yesterday.",
      "{person} and I already talked about '{subject}', nothing to send.",
    ],
    build: ({ pick, phrasing }) => {
      const [person] = pick(PERSON, 4);
      const subject = pick(SUBJECT);
      return {
        targets: [],
        others: ['send_email', 'send_sms', 'post_chat_message'],
        turns: [user(fill(phrasing, { person, subject }))],
        expected: null,
        slots: { person, subject },
      };
    },
  },
  {
    id: 'c5_opinion',
    cat: 'C5',
    count: 4,
    phrasings: [
      "Honestly, I think '{word}' is a beautiful word. Do you agree?",
      "I used '{word}' in my essay and my teacher loved it!",
      "'{word}' has always been my favourite word to say out loud.",
    ],
    build: ({ pick, phrasing }) => {
      const word = pick(WORD, 2);
      return {
        targets: [],
        others: ['get_definition', 'translate_text', 'search_web'],
        turns: [user(fill(phrasing, { word }))],
        expected: null,
        slots: { word },
      };
    },
  },
  {
    id: 'c5_no_reminder',
    cat: 'C5',
    count: 4,
    phrasings: [
      "Don't set any reminder, I'll remember to {task} myself.",
      "No need to remind me to {task}, I've got it.",
      "I already wrote '{task}' on a sticky note, so no reminder needed.",
    ],
    build: ({ pick, phrasing }) => {
      const task = pick(TASK, 2);
      return {
        targets: [],
        others: ['create_reminder', 'add_todo', 'set_alarm'],
        turns: [user(fill(phrasing, { task }))],
        expected: null,
        slots: { task },
      };
    },
  },
  {
    id: 'c5_mental_math',
    cat: 'C5',
    count: 4,
    phrasings: [
      'Just from the top of your head: is {a} bigger than {b}?',
      'Quick one, no tools needed: which is larger, {a} or {b}?',
    ],
    build: ({ pick, phrasing }) => {
      const [a, b] = pick(NUMBER_PAIR);
      return {
        targets: [],
        others: ['calculate', 'convert_units'],
        turns: [user(fill(phrasing, { a, b }))],
        expected: null,
        slots: { a: String(a), b: String(b) },
      };
    },
  },

  // C6 — multi-turn carry-over: the answer needs values from the model's own prior call
  {
    id: 'c6_currency_carry',
    cat: 'C6',
    count: 4,
    phrasings: [
      'Convert {amount} {from} to {to}. / And the same amount to {to2}?',
      'Convert {amount} {from} to {to}. / Now do the same amount in {to2}, please.',
      'Convert {amount} {from} to {to}. / What would that be in {to2} instead?',
    ],
    build: ({ pick, phrasing }) => {
      const amount = pick(AMOUNT, 2);
      const [from, to, to2] = [pick(CURRENCY, 1), pick(CURRENCY, 3), pick(CURRENCY, 5)];
      const [u1, u2] = phrasing.split(' / ');
      return {
        targets: ['convert_currency'],
        others: ['convert_units'],
        turns: [
          user(fill(u1!, { amount, from, to })),
          assistant('convert_currency', { amount, from_currency: from, to_currency: to }),
          toolResult(`${amount} ${from} = ${(Math.round(amount * 91.7) / 100).toFixed(2)} ${to}`),
          user(fill(u2!, { to2 })),
        ],
        expected: { tool: 'convert_currency', args: { amount, from_currency: from, to_currency: to2 } },
        arg_rules: { from_currency: CI, to_currency: CI },
        slots: { amount: String(amount), from, to, to2 },
      };
    },
  },
  {
    id: 'c6_translate_carry',
    cat: 'C6',
    count: 4,
    phrasings: [
      "Translate '{phrase}' into {lang}. / Now the same phrase into {lang2}, please.",
      "Translate '{phrase}' into {lang}. / And in {lang2}?",
    ],
    build: ({ pick, phrasing }) => {
      const phrase = pick(PHRASE);
      const [lang] = pick(LANGUAGE);
      const [lang2, code2] = pick(LANGUAGE, 2);
      const [u1, u2] = phrasing.split(' / ');
      return {
        targets: ['translate_text'],
        others: ['get_definition'],
        turns: [
          user(fill(u1!, { phrase, lang })),
          assistant('translate_text', { text: phrase, target_language: lang }),
          toolResult(`Translation into ${lang} is ready.`),
          user(fill(u2!, { lang2 })),
        ],
        expected: { tool: 'translate_text', args: { text: phrase, target_language: lang2 } },
        arg_rules: { text: FUZZY, target_language: { equiv: [code2], casefold: true } },
        slots: { phrase, lang, lang2 },
      };
    },
  },
  {
    id: 'c6_forecast_carry',
    cat: 'C6',
    count: 4,
    phrasings: [
      "What's the weather like in {city} right now? / And the forecast there for the next {days} days?",
      "What's the weather like in {city} right now? / What about the coming {days} days there?",
    ],
    build: ({ pick, phrasing }) => {
      const [city, country] = pick(CITY, 9);
      const days = pick({ dev: SMALL.dev.filter((n) => n >= 2), test: SMALL.test }, 1);
      const [u1, u2] = phrasing.split(' / ');
      return {
        targets: ['get_forecast'],
        others: ['get_weather'],
        turns: [
          user(fill(u1!, { city })),
          assistant('get_weather', { location: city }),
          toolResult('Sunny, 21 degrees, light wind.'),
          user(fill(u2!, { days })),
        ],
        expected: { tool: 'get_forecast', args: { location: city, days } },
        arg_rules: { location: cityRule(city, country) },
        slots: { city, days: String(days) },
      };
    },
  },
  {
    id: 'c6_flight_class',
    cat: 'C6',
    count: 4,
    phrasings: [
      'Book a flight from {origin} to {dest} on {date} for a party of {n} in economy. / Then make it {cabin} class instead, for all {n} of us.',
      'Book a flight from {origin} to {dest} on {date} for a party of {n} in economy. / Try {cabin} for the {n} of us then.',
    ],
    build: ({ pick, phrasing, i }) => {
      const [origin, dest] = pick(AIRPORT_PAIR, 2);
      const iso = pick(DATE, 3);
      const n = pick(SEATS, 3);
      const cabin = CABINS[i % 3]!;
      const [u1, u2] = phrasing.split(' / ');
      return {
        targets: ['book_flight'],
        others: ['get_flight_status'],
        turns: [
          user(fill(u1!, { origin, dest, date: sayDate(iso), n })),
          assistant('book_flight', { origin, destination: dest, date: iso, passengers: n, cabin: 'economy' }),
          toolResult('No economy seats are left on that flight.'),
          user(fill(u2!, { cabin, n })),
        ],
        expected: { tool: 'book_flight', args: { origin, destination: dest, date: iso, passengers: n, cabin } },
        arg_rules: { origin: CI, destination: CI, date: AT_DAY, cabin: CI },
        slots: { origin, dest, date: iso, n: String(n) },
      };
    },
  },
  {
    id: 'c6_email_to_sms',
    cat: 'C6',
    count: 4,
    phrasings: [
      "Email {email} with the subject '{subject}' saying {message}. / Also text the same message to {phone}.",
      "Email {email} with the subject '{subject}' saying {message}. / Send that same message as an SMS to {phone} too.",
    ],
    build: ({ pick, phrasing }) => {
      const [, email] = pick(PERSON, 1);
      const [, , phone, digits] = pick(PERSON, 5);
      const subject = pick(SUBJECT, 2);
      const message = pick(MESSAGE, 3);
      const [u1, u2] = phrasing.split(' / ');
      return {
        targets: ['send_sms'],
        others: ['send_email', 'post_chat_message'],
        turns: [
          user(fill(u1!, { email, subject, message })),
          assistant('send_email', { to: email, subject, body: message }),
          toolResult('Email sent.'),
          user(fill(u2!, { phone })),
        ],
        expected: { tool: 'send_sms', args: { phone_number: phone, message } },
        arg_rules: { phone_number: { equiv: [digits] }, message: FUZZY },
        slots: { email, phone, subject, message },
      };
    },
  },

  // C7 — catalog size 3/8/16/32: the target among unrelated distractors, at a shuffled position
  {
    id: 'c7_time',
    cat: 'C7',
    count: 8,
    catalogSizes: [3, 8, 16, 32],
    phrasings: ['What time is it in {city} right now?', 'Tell me the local time in {city}.'],
    build: ({ pick, phrasing }) => {
      const [city, tz] = pick(TZ_CITY);
      return {
        targets: ['get_time'],
        turns: [user(fill(phrasing, { city }))],
        expected: { tool: 'get_time', args: { timezone: tz } },
        arg_rules: { timezone: { equiv: [city], casefold: true } },
        slots: { city },
      };
    },
  },
  {
    id: 'c7_translate',
    cat: 'C7',
    count: 8,
    catalogSizes: [3, 8, 16, 32],
    phrasings: ["Translate '{phrase}' to {lang}.", "How do you say '{phrase}' in {lang}?"],
    build: ({ pick, phrasing }) => {
      const phrase = pick(PHRASE, 1);
      const [lang, code] = pick(LANGUAGE, 1);
      return {
        targets: ['translate_text'],
        turns: [user(fill(phrasing, { phrase, lang }))],
        expected: { tool: 'translate_text', args: { text: phrase, target_language: lang } },
        arg_rules: { text: FUZZY, target_language: { equiv: [code], casefold: true } },
        slots: { phrase, lang },
      };
    },
  },
  {
    id: 'c7_directions',
    cat: 'C7',
    count: 8,
    catalogSizes: [3, 8, 16, 32],
    phrasings: ['How do I get from {a} to {b} {how}?', 'Directions from {a} to {b} {how}, please.'],
    build: ({ pick, phrasing, i }) => {
      const a = pick(LANDMARK);
      const b = pick(LANDMARK, 3);
      const [mode, how] = MODES[i % MODES.length]!;
      return {
        targets: ['get_directions'],
        turns: [user(fill(phrasing, { a, b, how }))],
        expected: { tool: 'get_directions', args: { origin: a, destination: b, mode } },
        arg_rules: { origin: FUZZY, destination: FUZZY, mode: CI },
        slots: { a, b },
      };
    },
  },

  // C8 — parallel / multiple calls
  {
    id: 'c8_weather_pair',
    cat: 'C8',
    count: 4,
    phrasings: ["What's the weather in {c1} and in {c2} right now?", 'Compare the current weather in {c1} and {c2}.'],
    build: ({ pick, phrasing }) => {
      const [c1, k1] = pick(CITY, 11);
      const [c2, k2] = pick(CITY, 12);
      return {
        targets: ['get_weather'],
        others: ['get_forecast', 'get_time'],
        turns: [user(fill(phrasing, { c1, c2 }))],
        expected: [
          { tool: 'get_weather', args: { location: c1 }, arg_rules: { location: cityRule(c1, k1) } },
          { tool: 'get_weather', args: { location: c2 }, arg_rules: { location: cityRule(c2, k2) } },
        ],
        slots: { c1, c2 },
      };
    },
  },
  {
    id: 'c8_stock_trio',
    cat: 'C8',
    count: 4,
    phrasings: ['Get me the stock prices of {t1}, {t2} and {t3}.', 'How are {t1}, {t2} and {t3} trading?'],
    build: ({ pick, phrasing }) => {
      const [t1, t2, t3] = [pick(TICKER, 2), pick(TICKER, 3), pick(TICKER, 4)];
      return {
        targets: ['get_stock_price'],
        others: ['get_crypto_price'],
        turns: [user(fill(phrasing, { t1, t2, t3 }))],
        expected: [t1, t2, t3].map((s) => ({ tool: 'get_stock_price', args: { symbol: s } })),
        arg_rules: { symbol: CI },
        slots: { t1, t2, t3 },
      };
    },
  },
  {
    id: 'c8_mixed',
    cat: 'C8',
    count: 4,
    phrasings: [
      'Convert {amount} {from} to {to}, and tell me what time it is in {city}.',
      'Two things: the time in {city}, and {amount} {from} in {to}.',
    ],
    build: ({ pick, phrasing }) => {
      const amount = pick(AMOUNT, 4);
      const [from, to] = [pick(CURRENCY, 2), pick(CURRENCY, 4)];
      const [city, tz] = pick(TZ_CITY, 3);
      return {
        targets: ['convert_currency', 'get_time'],
        others: ['get_weather'],
        turns: [user(fill(phrasing, { amount, from, to, city }))],
        expected: [
          { tool: 'convert_currency', args: { amount, from_currency: from, to_currency: to } },
          { tool: 'get_time', args: { timezone: tz } },
        ],
        arg_rules: { from_currency: CI, to_currency: CI, timezone: { equiv: [city], casefold: true } },
        slots: { amount: String(amount), from, to, city },
      };
    },
  },
  {
    id: 'c8_lights',
    cat: 'C8',
    count: 4,
    phrasings: ['Turn off the lights in the {r1} and the {r2}.', 'Switch on the {r1} and {r2} lights.'],
    build: ({ pick, phrasing }) => {
      const [r1, r2] = [pick(ROOM), pick(ROOM, 1)];
      const state = phrasing.startsWith('Turn off') ? 'off' : 'on';
      return {
        targets: ['control_lights'],
        others: ['lock_door', 'set_thermostat'],
        turns: [user(fill(phrasing, { r1, r2 }))],
        expected: [r1, r2].map((room) => ({ tool: 'control_lights', args: { room, state } })),
        arg_rules: { room: CI, state: CI },
        slots: { r1, r2 },
      };
    },
  },
];

// ---------------------------------------------------------------------------------------------------------

const TOOL_NAMES = PALETTE.map((t) => t.function.name);

function catalog(built: Built, size: number | undefined, rng: Rng): string[] {
  let tools = [...built.targets, ...(built.others ?? [])];
  if (size !== undefined) {
    const exclude = new Set(built.targets.flatMap((t) => [...confusables(t)]));
    const pool = rng.shuffle(TOOL_NAMES.filter((n) => !exclude.has(n)));
    if (pool.length < size - tools.length)
      throw new Error(`generator: not enough distractors for a catalog of ${size}`);
    tools = [...tools, ...pool.slice(0, size - tools.length)];
  }
  return tools.length > 1 ? rng.shuffle(tools) : tools;
}

/** The phrasing inventory (`<family>#<index>` → text), for the phrasing-coverage lint. */
export function phrasingInventory(specs: readonly FamilySpec[] = FAMILY_SPECS): Record<string, string[]> {
  return Object.fromEntries(specs.map((f) => [f.id, f.phrasings.map((_, k) => `${f.id}#${k}`)]));
}

/** Every case of every family in both splits, in a stable order. */
export function generateCases(seed = GENERATOR_SEED, specs: readonly FamilySpec[] = FAMILY_SPECS): CaseRow[] {
  const rows: CaseRow[] = [];
  for (const split of SPLIT_NAMES) {
    for (const f of specs) {
      const rot = hashString(f.id);
      for (let i = 0; i < f.count; i++) {
        const size = f.catalogSizes ? f.catalogSizes[Math.floor((i * f.catalogSizes.length) / f.count)] : undefined;
        const id = `${f.id}${size !== undefined ? `_s${size}` : ''}_${split}_${String(i).padStart(3, '0')}`;
        const rng = new Rng(deriveSeed(seed, 'probe-case', id));
        const phraseIndex = i % f.phrasings.length;
        const ctx: Ctx = {
          split,
          i,
          phrasing: f.phrasings[phraseIndex]!,
          rng,
          pick: <T>(pool: Pool<T>, k = 0) => {
            const list = pool[split];
            return list[(rot + i + k) % list.length]!;
          },
        };
        const b = f.build(ctx);
        rows.push({
          id,
          cat: f.cat,
          family: f.id,
          split,
          tools: catalog(b, size, rng),
          turns: b.turns,
          expected: b.expected,
          arg_rules: b.arg_rules ?? {},
          slots: Object.fromEntries(Object.entries(b.slots).map(([k, v]) => [k, String(v)])),
          phrasing: `${f.id}#${phraseIndex}`,
        });
      }
    }
  }
  return rows;
}

/** The palette file content (tools.json): the OpenAI tools, one per line for readable diffs. */
export function paletteJson(): string {
  return `[\n${PALETTE.map((t) => `  ${JSON.stringify(t)}`).join(',\n')}\n]\n`;
}

export function casesJsonl(rows: readonly CaseRow[]): string {
  return rows.map((r) => JSON.stringify(r)).join('\n') + '\n';
}

export const CASES_FILE = 'cases/probe/cases.jsonl';
export const TOOLS_FILE = 'cases/probe/tools.json';

// `npx tsx harness/probe/cases/generate.ts` rewrites the committed files.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const rows = generateCases();
  writeFileSync(fromRoot(CASES_FILE), casesJsonl(rows));
  writeFileSync(fromRoot(TOOLS_FILE), paletteJson());
  process.stdout.write(`wrote ${rows.length} cases to ${CASES_FILE} and ${PALETTE.length} tools to ${TOOLS_FILE}\n`);
}
