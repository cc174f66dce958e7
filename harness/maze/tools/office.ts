// Calendar (two free-slot sources, events that change later availability), messaging (two contact
// directories, an HR route, two email senders, SMS, an outbox) and generic arithmetic processors.

import {
  HOLIDAYS,
  PEOPLE,
  PERSON_NAMES,
  dateFromDay,
  dayNumber,
  freeHour,
  hex8,
  hh,
  personByEmail,
  personByEmployeeId,
  personByName,
  round,
  round2,
  weekday,
} from './data.ts';
import { arr, date, int, num, obj, str } from './schema.ts';
import { bookedHours, sentMessages } from './state.ts';
import { toolError, type MazeTool, type ToolArgs, type ToolContext, type ToolResult } from './types.ts';

const personEntity = { arg: 'person', values: () => PERSON_NAMES };

function freeSlot(args: ToolArgs, ctx: ToolContext): ToolResult {
  const p = personByName(String(args.person));
  if (!p) return toolError(`no calendar for "${String(args.person)}"`);
  const d = String(args.date);
  if (dayNumber(d) === null) return toolError(`invalid date "${d}"`);
  const w = weekday(d);
  if (w === 0 || w === 6) return toolError(`${d} is a weekend day; calendars only cover working days`);
  const h = freeHour(p, d, bookedHours(p, d, ctx.history));
  if (h === null) return toolError(`${p.name} has no free hour on ${d}`);
  return { person: p.name, date: d, start: hh(h), end: hh(h + 1), duration_min: 60 };
}
function slotTool(name: string, description: string): MazeTool {
  return {
    name,
    domain: 'calendar',
    category: 'source',
    description,
    parameters: obj({ person: str('Full name of the person'), date: date('Working day') }),
    output: obj({
      person: str('Person'),
      date: str('Day'),
      start: str('Start of the first free hour (HH:MM)'),
      end: str('End of the slot (HH:MM)'),
      duration_min: int('Length of the slot in minutes'),
    }),
    substituteSet: 'free_slot',
    checks: { nonNegative: ['duration_min'], echo: { person: 'person', date: 'date' }, ranges: { duration_min: [15, 480] } },
    entity: personEntity,
    run: freeSlot,
  };
}

function contact(args: ToolArgs): ToolResult {
  const p = personByName(String(args.name));
  if (!p) return toolError(`no directory entry for "${String(args.name)}"`);
  return { name: p.name, email: p.email, phone: p.phone };
}
function contactTool(name: string, description: string): MazeTool {
  return {
    name,
    domain: 'messaging',
    category: 'source',
    description,
    parameters: obj({ name: str('Full name') }),
    output: obj({ name: str('Full name'), email: str('Email address'), phone: str('Phone number') }),
    substituteSet: 'contact',
    checks: { echo: { name: 'name' } },
    entity: { arg: 'name', values: () => PERSON_NAMES },
    run: contact,
  };
}

function email(args: ToolArgs): ToolResult {
  const to = String(args.to).trim().toLowerCase();
  if (!personByEmail(to)) return toolError(`recipient "${String(args.to)}" is not in the directory`);
  if (!String(args.subject).trim()) return toolError('subject must not be empty');
  return { message_id: `MSG-${hex8('mail', to, String(args.subject), String(args.body))}`, to, status: 'sent' };
}
function emailTool(name: string, description: string): MazeTool {
  return {
    name,
    domain: 'messaging',
    category: 'action',
    description,
    parameters: obj({ to: str('Recipient email address'), subject: str('Subject line'), body: str('Message text') }),
    output: obj({ message_id: str('Message identifier'), to: str('Recipient'), status: str('Delivery status') }),
    substituteSet: 'send_email',
    checks: { echo: { to: 'to' } },
    entity: { arg: 'to', values: () => PEOPLE.map((p) => p.email) },
    run: email,
  };
}

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

export const CALENDAR_TOOLS: MazeTool[] = [
  slotTool('find_free_slot', 'First free one-hour slot in a person’s calendar on a working day.'),
  slotTool('calendar_availability', 'Calendar availability service: earliest open hour for a person on a day.'),
  {
    name: 'create_event',
    domain: 'calendar',
    category: 'action',
    description: 'Create a one-hour calendar event with an attendee (by email).',
    parameters: obj({ title: str('Event title'), date: date('Day'), start: str('Start time HH:MM'), attendee: str('Attendee email') }),
    output: obj({ event_id: str('Event identifier'), title: str('Title'), date: str('Day'), start: str('Start'), attendee: str('Attendee'), status: str('Status') }),
    checks: { echo: { attendee: 'attendee', date: 'date', start: 'start' } },
    entity: { arg: 'attendee', values: () => PEOPLE.map((p) => p.email) },
    run(args, ctx) {
      const p = personByEmail(String(args.attendee));
      if (!p) return toolError(`unknown attendee "${String(args.attendee)}"`);
      const d = String(args.date);
      if (dayNumber(d) === null) return toolError(`invalid date "${d}"`);
      const m = /^(\d{2}):00$/.exec(String(args.start).trim());
      if (!m) return toolError('start must be a whole hour HH:00');
      const h = Number(m[1]);
      if (h < 9 || h > 16) return toolError('start must be between 09:00 and 16:00');
      if (bookedHours(p, d, ctx.history).has(h)) return toolError(`${p.name} is already busy at ${hh(h)} on ${d}`);
      return { event_id: `EV-${hex8('event', p.email, d, h, String(args.title))}`, title: String(args.title), date: d, start: hh(h), attendee: p.email, status: 'scheduled' };
    },
  },
  {
    name: 'list_events',
    domain: 'calendar',
    category: 'source',
    description: 'Events created for a person on a day.',
    parameters: obj({ person: str('Full name'), date: date('Day') }),
    output: obj({
      person: str('Person'),
      date: str('Day'),
      count: int('Number of events'),
      events: arr(obj({ event_id: str('Event'), start: str('Start'), title: str('Title') }), 'Events'),
    }),
    checks: { nonNegative: ['count'], echo: { person: 'person', date: 'date' } },
    entity: personEntity,
    run(args, ctx) {
      const p = personByName(String(args.person));
      if (!p) return toolError(`no calendar for "${String(args.person)}"`);
      const d = String(args.date);
      const events = ctx.history
        .filter((h) => h.name === 'create_event' && h.result.attendee === p.email && h.result.date === d)
        .map((h) => ({ event_id: String(h.result.event_id), start: String(h.result.start), title: String(h.result.title) }));
      return { person: p.name, date: d, count: events.length, events };
    },
  },
  {
    name: 'add_days',
    domain: 'calendar',
    category: 'processor',
    description: 'Add a number of calendar days to a date.',
    parameters: obj({ start_date: date('Start'), days: int('Days to add (may be negative)') }),
    output: obj({ date: str('Resulting day (YYYY-MM-DD)') }),
    checks: {},
    run(args) {
      const n = dayNumber(String(args.start_date));
      if (n === null) return toolError(`invalid date "${String(args.start_date)}"`);
      return { date: dateFromDay(n + Number(args.days)) };
    },
  },
  {
    name: 'count_business_days',
    domain: 'calendar',
    category: 'processor',
    description: 'Working days from start (inclusive) to end (exclusive), skipping weekends and a country’s public holidays.',
    parameters: obj({ start: date('First day'), end: date('Day after the last day'), country: str('ISO country code') }),
    output: obj({ business_days: int('Number of working days') }),
    checks: { nonNegative: ['business_days'] },
    primary: 'business_days',
    run(args) {
      const [a, b] = [String(args.start), String(args.end)];
      if (dayNumber(a) === null || dayNumber(b) === null) return toolError('invalid date');
      if (dayNumber(b)! < dayNumber(a)!) return toolError('end is before start');
      if (!HOLIDAYS[String(args.country).toUpperCase()]) return toolError(`no holiday calendar for "${String(args.country)}"`);
      return { business_days: businessDays(a, b, String(args.country).toUpperCase()) };
    },
  },
  {
    name: 'get_public_holidays',
    domain: 'calendar',
    category: 'source',
    description: 'Public holidays of a country in a year.',
    parameters: obj({ country: str('ISO country code'), year: int('Year') }),
    output: obj({ country: str('Country'), year: int('Year'), holidays: arr(str('Day'), 'Holiday dates'), count: int('Number of holidays') }),
    checks: { nonNegative: ['count'], echo: { country: 'country' } },
    run(args) {
      const c = String(args.country).toUpperCase();
      const list = HOLIDAYS[c];
      if (!list) return toolError(`no holiday calendar for "${String(args.country)}"`);
      const y = Number(args.year);
      if (y < 2024 || y > 2025) return toolError('holiday calendars cover 2024 and 2025');
      return { country: c, year: y, holidays: list.map((md) => `${y}-${md}`), count: list.length };
    },
  },
  {
    name: 'next_business_day',
    domain: 'calendar',
    category: 'processor',
    description: 'The first working day strictly after a date in a country.',
    parameters: obj({ date: date('Day'), country: str('ISO country code') }),
    output: obj({ date: str('Next working day') }),
    checks: {},
    run(args) {
      const n = dayNumber(String(args.date));
      const c = String(args.country).toUpperCase();
      if (n === null) return toolError('invalid date');
      if (!HOLIDAYS[c]) return toolError(`no holiday calendar for "${String(args.country)}"`);
      for (let d = n + 1; ; d++) if (businessDays(dateFromDay(d), dateFromDay(d + 1), c) === 1) return { date: dateFromDay(d) };
    },
  },
];

export const MESSAGING_TOOLS: MazeTool[] = [
  contactTool('lookup_contact', 'Company directory: email and phone of a person.'),
  contactTool('directory_search', 'Search the staff directory by full name for contact details.'),
  {
    name: 'get_employee_id',
    domain: 'messaging',
    category: 'source',
    description: 'Employee number of a staff member.',
    parameters: obj({ name: str('Full name') }),
    output: obj({ name: str('Full name'), employee_id: str('Employee number') }),
    checks: { echo: { name: 'name' } },
    entity: { arg: 'name', values: () => PERSON_NAMES },
    run(args) {
      const p = personByName(String(args.name));
      if (!p) return toolError(`no employee named "${String(args.name)}"`);
      return { name: p.name, employee_id: p.employeeId };
    },
  },
  {
    name: 'hr_record',
    domain: 'messaging',
    category: 'source',
    description: 'HR record of an employee number, including work email and phone.',
    parameters: obj({ employee_id: str('Employee number') }),
    output: obj({ employee_id: str('Employee number'), name: str('Full name'), email: str('Work email'), phone: str('Work phone') }),
    checks: { echo: { employee_id: 'employee_id' } },
    entity: { arg: 'employee_id', values: () => PEOPLE.map((p) => p.employeeId) },
    run(args) {
      const p = personByEmployeeId(String(args.employee_id));
      if (!p) return toolError(`no HR record for "${String(args.employee_id)}"`);
      return { employee_id: p.employeeId, name: p.name, email: p.email, phone: p.phone };
    },
  },
  emailTool('send_email', 'Send an email to a recipient in the directory.'),
  emailTool('dispatch_email', 'Mail relay: dispatch a message to a directory address.'),
  {
    name: 'send_sms',
    domain: 'messaging',
    category: 'action',
    description: 'Send a text message to a phone number in the directory.',
    parameters: obj({ phone: str('Phone number'), text: str('Message text') }),
    output: obj({ message_id: str('Message identifier'), phone: str('Recipient phone'), status: str('Delivery status') }),
    checks: { echo: { phone: 'phone' } },
    entity: { arg: 'phone', values: () => PEOPLE.map((p) => p.phone) },
    run(args) {
      const phone = String(args.phone).trim();
      if (!PEOPLE.some((p) => p.phone === phone)) return toolError(`number "${phone}" is not in the directory`);
      return { message_id: `SMS-${hex8('sms', phone, String(args.text))}`, phone, status: 'sent' };
    },
  },
  {
    name: 'list_sent_messages',
    domain: 'messaging',
    category: 'source',
    description: 'Messages sent so far in this session.',
    parameters: obj({}),
    output: obj({
      count: int('Number of messages'),
      messages: arr(obj({ message_id: str('Message'), channel: str('email or sms'), to: str('Recipient') }), 'Sent messages'),
    }),
    checks: { nonNegative: ['count'] },
    run(_args, ctx) {
      const messages = sentMessages(ctx.history);
      return { count: messages.length, messages };
    },
  },
];

const ab = obj({ a: num('First number'), b: num('Second number') });
export const MATH_TOOLS: MazeTool[] = [
  { name: 'sum_values', domain: 'math', category: 'processor', description: 'a + b, rounded to cents.', parameters: ab, output: obj({ sum: num('a + b') }), checks: {}, run: (x) => ({ sum: round2(Number(x.a) + Number(x.b)) }) },
  { name: 'subtract_values', domain: 'math', category: 'processor', description: 'a − b, rounded to cents.', parameters: ab, output: obj({ difference: num('a − b') }), checks: {}, run: (x) => ({ difference: round2(Number(x.a) - Number(x.b)) }) },
  { name: 'multiply_values', domain: 'math', category: 'processor', description: 'a × b, rounded to cents.', parameters: ab, output: obj({ product: num('a × b') }), checks: {}, run: (x) => ({ product: round2(Number(x.a) * Number(x.b)) }) },
  {
    name: 'percent_of',
    domain: 'math',
    category: 'processor',
    description: 'percent % of value, rounded to cents.',
    parameters: obj({ value: num('Base value'), percent: num('Percentage') }),
    output: obj({ result: num('The share') }),
    checks: {},
    run: (x) => ({ result: round2((Number(x.value) * Number(x.percent)) / 100) }),
  },
  {
    name: 'round_value',
    domain: 'math',
    category: 'processor',
    description: 'Round a number to a number of decimals.',
    parameters: obj({ value: num('Number'), decimals: int('Decimals (0–6)') }),
    output: obj({ rounded: num('Rounded number') }),
    checks: {},
    run(x) {
      const d = Number(x.decimals);
      if (d < 0 || d > 6) return toolError('decimals must be between 0 and 6');
      return { rounded: round(Number(x.value), d) };
    },
  },
];
