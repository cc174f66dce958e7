// API-Bank's init databases (init_database/*.json), read as Python reads them and checked for the shapes the API
// classes index into, so a damaged file fails here with its name and field rather than as a wrong verdict later.
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { z } from 'zod';
import type { PyValue } from '../../core/pyliteral/index.ts';
import { pyJsonLoads } from '../../core/pyliteral/pyjson.ts';
import type { Databases } from './index.ts';

const str = z.string();
const rows = <T extends z.ZodRawShape>(shape: T) => z.record(z.string(), z.object(shape).loose());
/** The fields the classes read, per database (others are free). */
const SCHEMAS: Record<string, z.ZodType> = {
  Account: rows({ password: str, token: str, email: str }),
  Agenda: rows({ content: str, time: str, location: str, username: str }),
  Alarm: rows({ time: str, username: str }),
  Appointments: rows({ patient_name: str, date: str, doctor_name: str }),
  Bank: rows({ balance: z.number() }),
  Meeting: rows({ meeting_topic: str, start_time: str, end_time: str, username: str }),
  Reminder: rows({ content: str, time: str, username: str }),
  Hotel: rows({ hotel_name: str, check_in_time: str, check_out_time: str }),
  HealthData: z.record(z.string(), z.array(z.object({ time: str }).loose())),
  Scenes: z.record(z.string(), z.array(z.object({ name: str, description: str }).loose())),
  TimeSwitch: z.record(z.string(), z.array(z.object({ time: str, on: z.boolean() }).loose())),
  Symptom: z.record(z.string(), z.array(z.object({ name: str, description: str, aid: str }).loose())),
  History: z.record(z.string(), z.array(z.object({ Title: str, Date: str, Description: str }).loose())),
  Stock: z.record(z.string(), z.record(z.string(), z.number())),
  ImageCaptioning: z.array(z.object({ url: str, caption: str }).loose()),
  SpeechRecognition: z.record(z.string(), str),
  Wiki: rows({ url: str, summary: str }),
};
/** The databases the implemented classes read; a folder without one of them is refused. */
export const REQUIRED_DATABASES = Object.keys(SCHEMAS);

export class DatabaseError extends Error {
  override name = 'DatabaseError';
}

/** Every *.json in `dir`, keyed by file stem. */
export function loadDatabases(dir: string): Databases {
  let names: string[];
  try {
    names = readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .sort();
  } catch (err) {
    throw new DatabaseError(`${dir}: cannot list the init databases (${(err as Error).message})`);
  }
  const tables = new Map<string, PyValue>();
  for (const f of names) {
    const file = join(dir, f);
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      throw new DatabaseError(`${file}: cannot read (${(err as Error).message})`);
    }
    let v: PyValue;
    try {
      v = pyJsonLoads(text);
    } catch (err) {
      throw new DatabaseError(`${file}: not JSON (${(err as Error).message})`);
    }
    const stem = basename(f, '.json');
    const schema = SCHEMAS[stem];
    if (schema) {
      const r = schema.safeParse(JSON.parse(text));
      if (!r.success) {
        const issue = r.error.issues[0]!;
        throw new DatabaseError(`${file}: field ${issue.path.map(String).join('.') || '(top)'}: ${issue.message}`);
      }
    }
    tables.set(stem, v);
  }
  const missing = REQUIRED_DATABASES.filter((n) => !tables.has(n));
  if (missing.length > 0)
    throw new DatabaseError(`${dir}: missing init database(s) ${missing.map((n) => `${n}.json`).join(', ')}`);
  return { dir, tables };
}
