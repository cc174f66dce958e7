// Python's time.strftime for the injected clock. Always UTC and English month/day names, so a render does not
// depend on the machine's time zone or locale (the engine's own strftime_now uses both, and the real clock).

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

function directive(d: Date, c: string): string | undefined {
  const h = d.getUTCHours();
  switch (c) {
    case 'Y':
      return String(d.getUTCFullYear());
    case 'y':
      return pad(d.getUTCFullYear() % 100);
    case 'm':
      return pad(d.getUTCMonth() + 1);
    case 'd':
      return pad(d.getUTCDate());
    case 'e':
      return String(d.getUTCDate()).padStart(2, ' ');
    case 'b':
    case 'h':
      return MONTHS[d.getUTCMonth()]!.slice(0, 3);
    case 'B':
      return MONTHS[d.getUTCMonth()]!;
    case 'a':
      return DAYS[d.getUTCDay()]!.slice(0, 3);
    case 'A':
      return DAYS[d.getUTCDay()]!;
    case 'w':
      return String(d.getUTCDay());
    case 'H':
      return pad(h);
    case 'I':
      return pad(h % 12 === 0 ? 12 : h % 12);
    case 'p':
      return h < 12 ? 'AM' : 'PM';
    case 'M':
      return pad(d.getUTCMinutes());
    case 'S':
      return pad(d.getUTCSeconds());
    case 'f':
      return pad(d.getUTCMilliseconds() * 1000, 6);
    case 'j': {
      const start = Date.UTC(d.getUTCFullYear(), 0, 1);
      return pad(Math.floor((d.getTime() - start) / 86_400_000) + 1, 3);
    }
    case 'Z':
      return 'UTC';
    case 'z':
      return '+0000';
    case 'F':
      return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
    case 'T':
      return `${pad(h)}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
    case '%':
      return '%';
    default:
      return undefined;
  }
}

/** `strftime(date, "%d %b %Y")` → "15 Jan 2026". Supports glibc's `%-d` (no padding); unknown directives stay. */
export function strftime(date: Date, format: string): string {
  return format.replace(/%(-?)([a-zA-Z%])/g, (whole, noPad: string, c: string) => {
    const out = directive(date, c);
    if (out === undefined) return whole;
    return noPad ? out.replace(/^[0 ]+(?=.)/, '') : out;
  });
}
