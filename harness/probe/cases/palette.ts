import type { OpenAITool } from '../../core/chat.ts';

/**
 * toolgauge's own tool palette for the generated probe cases (self-written). Every parameter has a description
 * (templates render them, and models need them); parameter names avoid Python keywords so the pythonic
 * tool-call format can express every call.
 */

type Props = Record<string, Record<string, unknown>>;

function tool(name: string, description: string, properties: Props, required: string[]): OpenAITool {
  return { type: 'function', function: { name, description, parameters: { type: 'object', properties, required } } };
}

const str = (description: string, extra: Record<string, unknown> = {}) => ({ type: 'string', description, ...extra });
const num = (description: string, extra: Record<string, unknown> = {}) => ({ type: 'number', description, ...extra });
const int = (description: string, extra: Record<string, unknown> = {}) => ({ type: 'integer', description, ...extra });
const bool = (description: string) => ({ type: 'boolean', description });
const arr = (description: string, items: Record<string, unknown>) => ({ type: 'array', description, items });
const DATETIME = 'ISO 8601 date and time with a UTC offset, e.g. 2026-05-04T09:30:00+02:00';
const DATE = 'Date as YYYY-MM-DD';

export const PALETTE: readonly OpenAITool[] = [
  tool(
    'get_weather',
    'Get the current weather for a location.',
    {
      location: str('City name, optionally followed by the country'),
      unit: str('Temperature unit', { enum: ['celsius', 'fahrenheit'] }),
    },
    ['location'],
  ),
  tool(
    'get_forecast',
    'Get the weather forecast for the coming days.',
    {
      location: str('City name, optionally followed by the country'),
      days: int('Number of days to forecast, 1 to 14', { minimum: 1, maximum: 14 }),
    },
    ['location', 'days'],
  ),
  tool(
    'get_time',
    'Get the current local time in a timezone.',
    { timezone: str('IANA timezone name, e.g. Europe/Madrid') },
    ['timezone'],
  ),
  tool(
    'convert_currency',
    'Convert an amount of money between currencies at the current rate.',
    {
      amount: num('Amount to convert'),
      from_currency: str('ISO 4217 code of the source currency'),
      to_currency: str('ISO 4217 code of the target currency'),
    },
    ['amount', 'from_currency', 'to_currency'],
  ),
  tool(
    'convert_units',
    'Convert a measurement between units.',
    {
      value: num('The quantity to convert'),
      from_unit: str('Unit of the given value'),
      to_unit: str('Unit to convert to'),
    },
    ['value', 'from_unit', 'to_unit'],
  ),
  tool(
    'get_stock_price',
    'Get the latest trading price of a listed company.',
    { symbol: str('Stock ticker symbol, e.g. ACME') },
    ['symbol'],
  ),
  tool(
    'get_crypto_price',
    'Get the current price of a cryptocurrency.',
    { coin: str('Ticker of the coin, e.g. BTC'), currency: str('ISO 4217 code of the quote currency') },
    ['coin', 'currency'],
  ),
  tool('search_web', 'Search the web and return the top results.', { query: str('What to search for') }, ['query']),
  tool(
    'search_news',
    'Search recent news articles on a topic.',
    { topic: str('The news topic'), max_results: int('How many articles to return', { minimum: 1, maximum: 50 }) },
    ['topic'],
  ),
  tool(
    'get_definition',
    'Look up the dictionary definition of a word.',
    { word: str('The word to define'), language: str('Language of the dictionary, e.g. English') },
    ['word'],
  ),
  tool(
    'translate_text',
    'Translate text into another language.',
    { text: str('The text to translate'), target_language: str('Language to translate into, e.g. Italian') },
    ['text', 'target_language'],
  ),
  tool(
    'send_email',
    'Send an email.',
    { to: str('Recipient email address'), subject: str('Subject line'), body: str('Body text of the email') },
    ['to', 'subject', 'body'],
  ),
  tool(
    'send_sms',
    'Send a text message (SMS) to a phone number.',
    { phone_number: str('Recipient phone number in international format'), message: str('Text of the message') },
    ['phone_number', 'message'],
  ),
  tool(
    'post_chat_message',
    'Post a message to a team chat channel.',
    { channel: str('Channel name, starting with #'), text: str('The message text') },
    ['channel', 'text'],
  ),
  tool(
    'create_reminder',
    'Create a reminder that notifies the user at a given time.',
    { text: str('What to be reminded of'), remind_at: str(`When to remind: ${DATETIME}`) },
    ['text', 'remind_at'],
  ),
  tool(
    'create_event',
    'Create a calendar event.',
    {
      title: str('Event title'),
      start: str(`Start: ${DATETIME}`),
      end: str(`End: ${DATETIME}`),
      attendees: arr('Email addresses of the people to invite', { type: 'string' }),
    },
    ['title', 'start'],
  ),
  tool(
    'set_alarm',
    'Set an alarm clock for a time of day.',
    { time: str('Time of day as HH:MM, 24-hour clock'), label: str('Optional label for the alarm') },
    ['time'],
  ),
  tool(
    'start_timer',
    'Start a countdown timer.',
    {
      duration_seconds: int('Length of the timer in seconds', { minimum: 1 }),
      label: str('Optional label for the timer'),
    },
    ['duration_seconds'],
  ),
  tool('read_calendar', 'List the calendar events of one day.', { date: str(DATE) }, ['date']),
  tool(
    'book_flight',
    'Book a flight.',
    {
      origin: str('IATA code of the departure airport'),
      destination: str('IATA code of the arrival airport'),
      date: str(`Departure date: ${DATE}`),
      passengers: int('Number of passengers', { minimum: 1, maximum: 9 }),
      cabin: str('Cabin class', { enum: ['economy', 'premium', 'business', 'first'] }),
    },
    ['origin', 'destination', 'date', 'passengers'],
  ),
  tool(
    'get_flight_status',
    'Get the status of a flight by its flight number.',
    { flight_number: str('Airline code and number, e.g. XY123') },
    ['flight_number'],
  ),
  tool(
    'book_hotel',
    'Book a hotel room.',
    {
      city: str('City of the hotel'),
      check_in: str(`Check-in date: ${DATE}`),
      check_out: str(`Check-out date: ${DATE}`),
      guests: int('Number of guests', { minimum: 1 }),
    },
    ['city', 'check_in', 'check_out', 'guests'],
  ),
  tool(
    'get_directions',
    'Get directions between two places.',
    {
      origin: str('Starting point'),
      destination: str('Where to go'),
      mode: str('How to travel', { enum: ['driving', 'walking', 'transit', 'cycling'] }),
    },
    ['origin', 'destination'],
  ),
  tool(
    'find_places',
    'Find places of a category near a location.',
    {
      category: str('Kind of place, e.g. pharmacy'),
      near: str('Location to search around'),
      open_now: bool('Only places open right now'),
    },
    ['category', 'near'],
  ),
  tool('play_music', 'Play a song, album or playlist.', { query: str('What to play') }, ['query']),
  tool(
    'set_volume',
    'Set the speaker volume.',
    { level: int('Volume level from 0 to 100', { minimum: 0, maximum: 100 }) },
    ['level'],
  ),
  tool(
    'set_thermostat',
    'Set the thermostat to a target temperature.',
    { temperature: num('Target temperature'), unit: str('Temperature unit', { enum: ['celsius', 'fahrenheit'] }) },
    ['temperature', 'unit'],
  ),
  tool(
    'control_lights',
    'Switch the lights of a room on or off.',
    { room: str('Name of the room'), state: str('Desired state', { enum: ['on', 'off'] }) },
    ['room', 'state'],
  ),
  tool(
    'lock_door',
    'Lock or unlock a door.',
    { door: str('Which door'), locked: bool('true to lock, false to unlock') },
    ['door', 'locked'],
  ),
  tool(
    'add_todo',
    'Add a task to the to-do list.',
    { task: str('The task'), due_date: str(`Optional due date: ${DATE}`) },
    ['task'],
  ),
  tool('create_note', 'Save a note.', { title: str('Title of the note'), content: str('Text of the note') }, [
    'title',
    'content',
  ]),
  tool(
    'add_contact',
    'Add a person to the address book.',
    { name: str('Full name'), phone: str('Phone number'), email: str('Email address') },
    ['name'],
  ),
  tool('calculate', 'Evaluate an arithmetic expression.', { expression: str('The expression, e.g. 12 * (3 + 4)') }, [
    'expression',
  ]),
  tool(
    'create_invoice',
    'Create an invoice for a customer.',
    {
      customer: {
        type: 'object',
        description: 'Who is billed',
        properties: { name: str('Customer name'), email: str('Customer email address') },
        required: ['name', 'email'],
      },
      items: arr('Invoice lines', {
        type: 'object',
        properties: {
          description: str('What was sold'),
          quantity: int('How many', { minimum: 1 }),
          unit_price: num('Price of one unit'),
        },
        required: ['description', 'quantity', 'unit_price'],
      }),
      currency: str('ISO 4217 currency code'),
    },
    ['customer', 'items', 'currency'],
  ),
  tool(
    'search_products',
    'Search the product catalog.',
    {
      query: str('What to look for'),
      filters: {
        type: 'object',
        description: 'Optional filters',
        properties: {
          max_price: num('Highest acceptable price'),
          brands: arr('Only these brands', { type: 'string' }),
          in_stock: bool('Only items in stock'),
        },
      },
    },
    ['query'],
  ),
  tool(
    'order_groceries',
    'Order groceries for delivery.',
    {
      items: arr('What to order', {
        type: 'object',
        properties: { name: str('Product name'), quantity: int('How many', { minimum: 1 }) },
        required: ['name', 'quantity'],
      }),
      delivery_date: str(`Delivery date: ${DATE}`),
    },
    ['items'],
  ),
];

/** Tools a model can reasonably confuse; catalog-size distractors are drawn outside the target's group. */
export const CONFUSION_GROUPS: readonly (readonly string[])[] = [
  ['get_weather', 'get_forecast'],
  ['send_email', 'send_sms', 'post_chat_message'],
  ['create_reminder', 'create_event', 'set_alarm', 'start_timer', 'add_todo', 'read_calendar'],
  ['search_web', 'search_news', 'get_definition'],
  ['get_stock_price', 'get_crypto_price'],
  ['convert_currency', 'convert_units', 'calculate'],
  ['book_flight', 'get_flight_status', 'book_hotel'],
  ['control_lights', 'lock_door', 'set_thermostat', 'set_volume', 'play_music'],
  ['search_products', 'order_groceries', 'create_invoice'],
];

export function confusables(name: string): Set<string> {
  const out = new Set<string>([name]);
  for (const g of CONFUSION_GROUPS) if (g.includes(name)) for (const x of g) out.add(x);
  return out;
}
