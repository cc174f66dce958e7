// API-Bank `apis/`: the service classes (registration, health, stock, history, scenes, switches, search-like
// lookups, email, music, hotel) and the three that need the network or missing modules (undetermined here).
import { at, wrap, type ApiDef } from './api-kit.ts';
import { exactCheck } from './apis-account.ts';
import { calculate } from './calculator.ts';
import {
  asStr,
  cmp,
  contains,
  D,
  delItem,
  dtKey,
  eq,
  getItem,
  I,
  iter,
  L,
  len,
  lower,
  NONE,
  PyExc,
  raise,
  S,
  setItem,
  str,
  strftime,
  strip,
  strptime,
  Undetermined,
  upper,
  zfill,
  type DateTime,
  type V,
} from './py.ts';
import { pyLower, pyStrip } from '../../core/pyliteral/index.ts';

const TS = '%Y-%m-%d %H:%M:%S';
const DATE = '%Y-%m-%d';
const db0 = (db: V | undefined): V => db ?? D({});

/** A format_check that returned an exception object: unequal to everything, raised where the class raises it. */
class FmtErr {
  constructor(readonly exc: PyExc) {}
}
type Checked = string | FmtErr;
const ne = (a: Checked | DateTime | null, b: Checked | DateTime | null): boolean => {
  if (a instanceof FmtErr || b instanceof FmtErr) return true;
  if (a === null || b === null) return a !== b;
  if (typeof a === 'string' || typeof b === 'string') return a !== b;
  return dtKey(a) !== dtKey(b);
};
const pyCatch = <X>(fn: () => X): X | FmtErr => {
  try {
    return fn();
  } catch (err) {
    if (err instanceof PyExc) return new FmtErr(err);
    throw err;
  }
};
/** strip, then zero-fill a short year when the value has three '-' parts. */
function padYear(v: V): string {
  const s = strip(v);
  const parts = s.split('-');
  if (parts.length === 3) {
    if (parts[0]!.length !== 4) parts[0] = zfill(parts[0]!, 4);
    return parts.join('-');
  }
  return s;
}
/** The format_check of the registration, timed-switch and health-record classes. */
const reformat = (v: V, fmt: string): Checked => {
  const s = padYear(v);
  return pyCatch(() => strftime(strptime(S(s), fmt), fmt));
};
const raiseIf = <X>(x: X | FmtErr): X => {
  if (x instanceof FmtErr) throw x.exc;
  return x;
};

// ---- hospital appointments
export const AppointmentRegistration: ApiDef = {
  name: 'AppointmentRegistration',
  inputParameters: [
    ['patient_name', 'str'],
    ['date', 'str'],
    ['doctor_name', 'str'],
  ],
  databaseName: 'Appointments',
  required: ['patient_name', 'date', 'doctor_name'],
  make: (d) => {
    const db = db0(d);
    let next = 10000000;
    return {
      call: ({ patient_name, date, doctor_name }) =>
        wrap(
          'AppointmentRegistration',
          D({ patient_name: patient_name!, date: date!, doctor_name: doctor_name! }),
          () => {
            const patient = strip(patient_name!);
            const doctor = strip(doctor_name!);
            if (patient === '' || doctor === '') raise('Exception', 'Patient name or doctor name cannot be empty.');
            const day = raiseIf(reformat(date!, DATE));
            for (const k of iter(db)) {
              const row = getItem(db, k);
              if (eq(at(row, 'patient_name'), S(patient))) {
                const rowDay = reformat(at(row, 'date'), DATE);
                if (!ne(rowDay, day)) {
                  if (eq(at(row, 'doctor_name'), S(doctor)))
                    raise('Exception', 'This appointment has already been registered.');
                  raise('Exception', 'This patient has already been registered in this day.');
                }
              }
            }
            // The class draws a random 8-digit id; its check ignores the id unless the gold one is None.
            while (contains(db, S(String(next)))) next++;
            const id = S(String(next++));
            setItem(db, id, D({ patient_name: S(patient), date: S(day), doctor_name: S(doctor) }));
            return id;
          },
        ),
      check: (r, g) => {
        const rp = strip(at(r, 'input', 'patient_name'));
        const rd = reformat(at(r, 'input', 'date'), DATE);
        const rdoc = strip(at(r, 'input', 'doctor_name'));
        const gp = strip(at(g, 'input', 'patient_name'));
        const gd = reformat(at(g, 'input', 'date'), DATE);
        const gdoc = strip(at(g, 'input', 'doctor_name'));
        if (rp !== gp || ne(rd, gd) || rdoc !== gdoc) return false;
        if (eq(at(g, 'output'), NONE) && !eq(at(r, 'output'), NONE)) return false;
        return eq(at(r, 'exception'), at(g, 'exception'));
      },
    };
  },
};

export const QueryRegistration: ApiDef = {
  name: 'QueryRegistration',
  inputParameters: [
    ['patient_name', 'str'],
    ['date', 'str'],
  ],
  databaseName: 'Appointments',
  required: ['patient_name', 'date'],
  make: (d) => {
    const db = db0(d);
    return {
      call: ({ patient_name, date }) =>
        wrap('QueryRegistration', D({ patient_name: patient_name!, date: date! }), () => {
          const patient = strip(patient_name!);
          const day = raiseIf(reformat(date!, DATE));
          const found = D({});
          for (const k of iter(db)) {
            const row = getItem(db, k);
            if (eq(at(row, 'patient_name'), S(patient)) && !ne(reformat(at(row, 'date'), DATE), day))
              setItem(found, k, row);
          }
          if (len(found) === 0) raise('Exception', 'No appointments found.');
          return found;
        }),
      check: (r, g) => {
        const rp = strip(at(r, 'input', 'patient_name'));
        const gp = strip(at(g, 'input', 'patient_name'));
        const rd = reformat(at(r, 'input', 'date'), DATE);
        const gd = reformat(at(g, 'input', 'date'), DATE);
        return (
          rp === gp && !ne(rd, gd) && eq(at(r, 'output'), at(g, 'output')) && eq(at(r, 'exception'), at(g, 'exception'))
        );
      },
    };
  },
};

export const ModifyRegistration: ApiDef = {
  name: 'ModifyRegistration',
  inputParameters: [
    ['appointment_id', 'str'],
    ['new_appointment_date', 'str'],
    ['new_appointment_doctor', 'str'],
  ],
  databaseName: 'Appointments',
  required: ['appointment_id'],
  optional: { new_appointment_date: NONE, new_appointment_doctor: NONE },
  make: (d) => {
    const db = db0(d);
    return {
      call: ({ appointment_id, new_appointment_date, new_appointment_doctor }) =>
        wrap(
          'ModifyRegistration',
          D({
            appointment_id: appointment_id!,
            new_appointment_date: new_appointment_date!,
            new_appointment_doctor: new_appointment_doctor!,
          }),
          () => {
            const id = S(strip(appointment_id!));
            if (!contains(db, id)) raise('Exception', 'The appointment ID does not exist.');
            let date: V | FmtErr = new_appointment_date!;
            if (!eq(date, NONE)) {
              const c = reformat(date, DATE);
              date = c instanceof FmtErr ? c : S(c);
            }
            let doctor: V = new_appointment_doctor!;
            if (!eq(doctor, NONE)) {
              doctor = S(strip(doctor));
              if (asStr(doctor, 'strip') === '') raise('Exception', 'Fail because the doctor name is empty.');
            }
            const newDate = raiseIf(date);
            const row = getItem(db, id);
            if (eq(newDate, NONE) && eq(doctor, NONE)) raise('Exception', 'Fail because no modification is made.');
            if (eq(newDate, NONE)) {
              if (eq(doctor, at(row, 'doctor_name'))) raise('Exception', 'Fail because doctor is not changed.');
              setItem(row, 'doctor_name', doctor);
            } else if (eq(doctor, NONE)) {
              if (eq(newDate, at(row, 'date'))) raise('Exception', 'Fail because date is not changed.');
              setItem(row, 'date', newDate);
            } else {
              if (eq(newDate, at(row, 'date')) && eq(doctor, at(row, 'doctor_name')))
                raise('Exception', 'Fail because no modification is made.');
              if (eq(newDate, at(row, 'date'))) raise('Exception', 'Fail because date is not changed.');
              if (eq(doctor, at(row, 'doctor_name'))) raise('Exception', 'Fail because doctor is not changed.');
              setItem(row, 'date', newDate);
              setItem(row, 'doctor_name', doctor);
            }
            return S('success');
          },
        ),
      check: (r, g) => {
        const rid = pyStrip(str(at(r, 'input', 'appointment_id')));
        const gid = strip(at(g, 'input', 'appointment_id'));
        const norm = (v: V): Checked | null => (eq(v, NONE) ? null : reformat(v, DATE));
        const rdate = norm(at(r, 'input', 'new_appointment_date'));
        const gdate = norm(at(g, 'input', 'new_appointment_date'));
        const doc = (v: V): string | null => (eq(v, NONE) ? null : strip(v));
        const rdoc = doc(at(r, 'input', 'new_appointment_doctor'));
        const gdoc = doc(at(g, 'input', 'new_appointment_doctor'));
        if (rid !== gid || ne(rdate, gdate) || rdoc !== gdoc) return false;
        return eq(at(r, 'output'), at(g, 'output')) && eq(at(r, 'exception'), at(g, 'exception'));
      },
    };
  },
};

export const CancelRegistration: ApiDef = {
  name: 'CancelRegistration',
  inputParameters: [['appointment_id', 'str']],
  databaseName: 'Appointments',
  required: ['appointment_id'],
  make: (d) => {
    const db = db0(d);
    return {
      call: ({ appointment_id }) =>
        wrap('CancelRegistration', D({ appointment_id: appointment_id! }), () => {
          const id = S(strip(appointment_id!));
          if (contains(db, id)) {
            delItem(db, id);
            return S('success');
          }
          return raise('Exception', 'The appointment ID is incorrect.');
        }),
      check: (r, g) =>
        strip(at(r, 'input', 'appointment_id')) === strip(at(g, 'input', 'appointment_id')) &&
        eq(at(r, 'output'), at(g, 'output')) &&
        eq(at(r, 'exception'), at(g, 'exception')),
    };
  },
};

// ---- health data
export const RecordHealthData: ApiDef = {
  name: 'RecordHealthData',
  inputParameters: [
    ['user_id', 'str'],
    ['time', 'str'],
    ['health_data', 'list'],
  ],
  databaseName: 'HealthData',
  required: ['user_id', 'time'],
  optional: { health_data: NONE },
  make: (d) => {
    const db = db0(d);
    return {
      call: ({ user_id, time, health_data }) =>
        wrap('RecordHealthData', D({ user_id: user_id!, time: time!, health_data: health_data! }), () => {
          const uid = pyStrip(upper(user_id!));
          if (uid === '') raise('Exception', 'The user id cannot be empty.');
          const t = raiseIf(reformat(time!, TS));
          const data = health_data!;
          if (eq(data, NONE)) raise('Exception', 'The health data cannot be empty.');
          if (len(data) === 0) raise('Exception', 'The health data cannot be empty.');
          const seen: V = { t: 'set', items: [] };
          for (const item of iter(data)) {
            if (!contains(item, 'name')) raise('Exception', 'The health data has invalid format.');
            const n = getItem(item, 'name');
            if (!contains(seen, n)) (seen as { items: V[] }).items.push(n);
            else raise('Exception', 'The health data cannot contain duplicate items.');
          }
          if (!contains(db, S(uid))) setItem(db, S(uid), L([]));
          let target: V | undefined;
          for (const rec of iter(getItem(db, S(uid)))) if (eq(at(rec, 'time'), S(t))) target = rec;
          if (target !== undefined) {
            for (const item of iter(data)) setItem(target, getItem(item, 'name'), getItem(item, 'value'));
          } else {
            const rec = D({ time: S(t) });
            for (const item of iter(data)) setItem(rec, getItem(item, 'name'), getItem(item, 'value'));
            (getItem(db, S(uid)) as { items: V[] }).items.push(rec);
          }
          return S('success');
        }),
      check: (r, g) => {
        const ruid = str(at(r, 'input', 'user_id'));
        const guid = at(g, 'input', 'user_id');
        const rt = at(r, 'input', 'time');
        const gt = at(g, 'input', 'time');
        at(r, 'input', 'health_data');
        at(g, 'input', 'health_data');
        const a = pyStrip(ruid.toUpperCase());
        const b = pyStrip(upper(guid));
        const ta = reformat(rt, TS);
        const tb = reformat(gt, TS);
        if (a !== b || ne(ta, tb)) return false;
        return eq(at(r, 'output'), at(g, 'output')) && eq(at(r, 'exception'), at(g, 'exception'));
      },
    };
  },
};

/** QueryHealthData.format_check: (user id or None, start datetime or exception, end datetime or exception). */
function healthFormat(uid: V, start: V, end: V): [string | null, DateTime | FmtErr, DateTime | FmtErr] {
  const u = pyStrip(upper(uid));
  const s = padYear(start);
  const st = pyCatch(() => strptime(S(s), TS));
  const e = padYear(end);
  const et = pyCatch(() => strptime(S(e), TS));
  return [u === '' ? null : u, st, et];
}

export const QueryHealthData: ApiDef = {
  name: 'QueryHealthData',
  inputParameters: [
    ['user_id', 'str'],
    ['start_time', 'str'],
    ['end_time', 'str'],
  ],
  databaseName: 'HealthData',
  required: ['user_id', 'start_time', 'end_time'],
  make: (d) => {
    const db = db0(d);
    return {
      call: ({ user_id, start_time, end_time }) =>
        wrap('QueryHealthData', D({ user_id: user_id!, start_time: start_time!, end_time: end_time! }), () => {
          const [uid, st, et] = healthFormat(user_id!, start_time!, end_time!);
          if (uid === null) raise('Exception', 'The user id cannot be empty.');
          if (st instanceof FmtErr && et instanceof FmtErr) raise('Exception', `${st.exc.message}; ${et.exc.message}`);
          const s = raiseIf(st);
          const e = raiseIf(et);
          if (dtKey(s) > dtKey(e)) raise('Exception', 'The start time cannot be later than the end time.');
          const out: V[] = [];
          if (!contains(db, S(uid!))) raise('Exception', 'The user id does not exist.');
          for (const item of iter(getItem(db, S(uid!)))) {
            const t = dtKey(strptime(at(item, 'time'), TS));
            if (t >= dtKey(s) && t <= dtKey(e)) out.push(item);
          }
          if (out.length === 0) raise('Exception', 'There is no health data in the given time span.');
          return L(out);
        }),
      check: (r, g) => {
        const [ru, rs, re] = healthFormat(
          at(r, 'input', 'user_id'),
          at(r, 'input', 'start_time'),
          at(r, 'input', 'end_time'),
        );
        const [gu, gs, ge] = healthFormat(
          at(g, 'input', 'user_id'),
          at(g, 'input', 'start_time'),
          at(g, 'input', 'end_time'),
        );
        if (ru !== gu || ne(rs, gs) || ne(re, ge)) return false;
        return eq(at(r, 'output'), at(g, 'output')) && eq(at(r, 'exception'), at(g, 'exception'));
      },
    };
  },
};

// ---- stock and history
function stockFormat(code: V, date: V): [string | null, Checked] {
  const c = pyStrip(upper(code));
  const s = padYear(date);
  return [c === '' ? null : c, pyCatch(() => strftime(strptime(S(s), DATE), DATE))];
}

export const QueryStock: ApiDef = {
  name: 'QueryStock',
  inputParameters: [
    ['stock_code', 'str'],
    ['date', 'str'],
  ],
  databaseName: 'Stock',
  required: ['stock_code', 'date'],
  make: (d) => {
    const db = db0(d);
    return {
      call: ({ stock_code, date }) =>
        wrap('QueryStock', D({ stock_code: stock_code!, date: date! }), () => {
          const [code, day] = stockFormat(stock_code!, date!);
          if (code === null) raise('Exception', 'The stock code cannot be empty.');
          const dd = raiseIf(day);
          if (!contains(db, S(code!))) raise('Exception', 'The stock code does not exist.');
          if (!contains(getItem(db, S(code!)), S(dd)))
            raise('Exception', 'The stock price of this date is not maintained.');
          return getItem(getItem(db, S(code!)), S(dd));
        }),
      check: (r, g) => {
        const [rc, rd] = stockFormat(at(r, 'input', 'stock_code'), at(r, 'input', 'date'));
        const [gc, gd] = stockFormat(at(g, 'input', 'stock_code'), at(g, 'input', 'date'));
        return (
          rc === gc && !ne(rd, gd) && eq(at(r, 'output'), at(g, 'output')) && eq(at(r, 'exception'), at(g, 'exception'))
        );
      },
    };
  },
};

/** QueryHistoryToday.filter_date_format: '%m-%d' from a '%Y-%m-%d' or '%m-%d' date, else the ValueError. */
function historyDate(v: V): Checked {
  const s = padYear(v);
  const full = pyCatch(() => strptime(S(s), DATE));
  if (!(full instanceof FmtErr)) return strftime(full, '%m-%d');
  const md = pyCatch(() => strptime(S(s), '%m-%d'));
  return md instanceof FmtErr ? md : strftime(md, '%m-%d');
}

export const QueryHistoryToday: ApiDef = {
  name: 'QueryHistoryToday',
  inputParameters: [['date', 'str']],
  databaseName: 'History',
  required: ['date'],
  make: (d) => {
    const db = db0(d);
    return {
      call: ({ date }) =>
        wrap('QueryHistoryToday', D({ date: date! }), () => {
          const day = raiseIf(historyDate(date!));
          if (!contains(db, S(day))) raise('Exception', 'The date is not in the database.');
          const rows = iter(getItem(db, S(day)));
          return L(
            rows.map((h) =>
              S(
                `Title: ${strip(at(h, 'Title'))}, Date: ${strip(at(h, 'Date'))}, Description: ${strip(at(h, 'Description'))}`,
              ),
            ),
          );
        }),
      check: (r, g) => {
        const rd = historyDate(at(r, 'input', 'date'));
        const gd = historyDate(at(g, 'input', 'date'));
        return !ne(rd, gd) && eq(at(r, 'output'), at(g, 'output')) && eq(at(r, 'exception'), at(g, 'exception'));
      },
    };
  },
};

// ---- smart home: scenes and timed switches
/** The device normalisation and sort of AddScene/ModifyScene (mutates the list, as the class does). */
function normaliseDevices(devices: V, validate: boolean): void {
  const names = new Set<string>();
  for (const dev of iter(devices)) {
    if (validate && (!contains(dev, 'name') || !contains(dev, 'description')))
      raise('Exception', 'Invalid device format.');
    setItem(dev, 'name', S(pyLower(strip(getItem(dev, 'name')))));
    setItem(dev, 'description', S(strip(getItem(dev, 'description'))));
    if (validate) {
      const n = asStr(getItem(dev, 'name'), 'strip');
      if (names.has(n)) raise('Exception', 'Device name cannot be duplicated.');
      names.add(n);
    }
  }
  sortByName(devices);
}
function sortByName(devices: V): void {
  if (devices.t !== 'list') return raise('AttributeError', `'${devices.t}' object has no attribute 'sort'`);
  const keys = devices.items.map((x) => getItem(x, 'name'));
  const idx = keys.map((_, k) => k);
  idx.sort((a, b) => (cmp(keys[a]!, '<', keys[b]!) ? -1 : cmp(keys[b]!, '<', keys[a]!) ? 1 : 0));
  devices.items = idx.map((k) => devices.items[k]!);
}
function sceneCheck(r: V, g: V, outputNoneRule: boolean): boolean {
  const rn = pyLower(strip(at(r, 'input', 'name')));
  const gn = pyLower(strip(at(g, 'input', 'name')));
  const rdev = at(r, 'input', 'devices');
  const gdev = at(g, 'input', 'devices');
  normaliseDevices(rdev, false);
  normaliseDevices(gdev, false);
  if (rn !== gn) return false;
  if (!eq(rdev, gdev)) return false;
  if (outputNoneRule) {
    if (eq(at(g, 'output'), NONE) && !eq(at(r, 'output'), NONE)) return false;
  } else if (!eq(at(r, 'output'), at(g, 'output'))) return false;
  return eq(at(r, 'exception'), at(g, 'exception'));
}
const sceneName = (v: V): string => {
  const n = pyLower(strip(v));
  if (n === '') raise('Exception', 'Scene name cannot be empty.');
  return n;
};

export const AddScene: ApiDef = {
  name: 'AddScene',
  inputParameters: [
    ['name', 'str'],
    ['devices', 'list'],
  ],
  databaseName: 'Scenes',
  required: ['name', 'devices'],
  make: (d) => {
    const db = db0(d);
    return {
      call: ({ name, devices }) =>
        wrap('AddScene', D({ name: name!, devices: devices! }), () => {
          const n = sceneName(name!);
          normaliseDevices(devices!, true);
          if (contains(db, S(n))) raise('Exception', 'Scene name already exists.');
          setItem(db, S(n), devices!);
          return S('success');
        }),
      check: (r, g) => sceneCheck(r, g, true),
    };
  },
};

export const ModifyScene: ApiDef = {
  name: 'ModifyScene',
  inputParameters: [
    ['name', 'str'],
    ['devices', 'list'],
  ],
  databaseName: 'Scenes',
  required: ['name', 'devices'],
  make: (d) => {
    const db = db0(d);
    return {
      call: ({ name, devices }) =>
        wrap('ModifyScene', D({ name: name!, devices: devices! }), () => {
          const n = sceneName(name!);
          normaliseDevices(devices!, true);
          if (!contains(db, S(n))) raise('Exception', 'The scene does not exist.');
          setItem(db, S(n), devices!);
          return S('success');
        }),
      check: (r, g) => sceneCheck(r, g, false),
    };
  },
};

const nameCheck = (r: V, g: V): boolean =>
  pyLower(strip(at(r, 'input', 'name'))) === pyLower(strip(at(g, 'input', 'name'))) &&
  eq(at(r, 'output'), at(g, 'output')) &&
  eq(at(r, 'exception'), at(g, 'exception'));

export const DeleteScene: ApiDef = {
  name: 'DeleteScene',
  inputParameters: [['name', 'str']],
  databaseName: 'Scenes',
  required: ['name'],
  make: (d) => {
    const db = db0(d);
    return {
      call: ({ name }) =>
        wrap('DeleteScene', D({ name: name! }), () => {
          const n = sceneName(name!);
          if (!contains(db, S(n))) raise('Exception', 'The scene does not exist.');
          delItem(db, S(n));
          return S('success');
        }),
      check: nameCheck,
    };
  },
};

export const QueryScene: ApiDef = {
  name: 'QueryScene',
  inputParameters: [['name', 'str']],
  databaseName: 'Scenes',
  required: ['name'],
  make: (d) => {
    const db = db0(d);
    return {
      call: ({ name }) =>
        wrap('QueryScene', D({ name: name! }), () => {
          const n = sceneName(name!);
          if (!contains(db, S(n))) raise('Exception', 'Scene not found.');
          return getItem(db, S(n));
        }),
      check: nameCheck,
    };
  },
};

export const TimedSwitch: ApiDef = {
  name: 'TimedSwitch',
  inputParameters: [
    ['name', 'str'],
    ['time', 'str'],
    ['on', 'bool'],
  ],
  databaseName: 'TimeSwitch',
  required: ['name', 'time', 'on'],
  make: (d) => {
    const db = db0(d);
    return {
      call: ({ name, time, on }) =>
        wrap('TimedSwitch', D({ name: name!, time: time!, on: on! }), () => {
          const n = S(pyLower(strip(name!)));
          if ((n as { v: string }).v === '') raise('Exception', 'Name cannot be empty.');
          const t = S(raiseIf(reformat(time!, TS)));
          if (!contains(db, n)) {
            setItem(db, n, L([D({ time: t, on: on! })]));
            return S('success');
          }
          const list = getItem(db, n);
          for (const rec of iter(list)) {
            if (eq(at(rec, 'time'), t)) {
              setItem(rec, 'on', on!);
              return S('success');
            }
          }
          (list as { items: V[] }).items.push(D({ time: t, on: on! }));
          return S('success');
        }),
      check: (r, g) => {
        const rn = pyLower(strip(at(r, 'input', 'name')));
        const gn = pyLower(strip(at(g, 'input', 'name')));
        const ron = at(r, 'input', 'on');
        const gon = at(g, 'input', 'on');
        const rt = reformat(at(r, 'input', 'time'), TS);
        const gt = reformat(at(g, 'input', 'time'), TS);
        if (rn !== gn || ne(rt, gt) || !eq(ron, gon)) return false;
        return eq(at(r, 'output'), at(g, 'output')) && eq(at(r, 'exception'), at(g, 'exception'));
      },
    };
  },
};

export const CancelTimedSwitch: ApiDef = {
  name: 'CancelTimedSwitch',
  inputParameters: [
    ['name', 'str'],
    ['time', 'str'],
  ],
  databaseName: 'TimeSwitch',
  required: ['name', 'time'],
  make: (d) => {
    const db = db0(d);
    return {
      call: ({ name, time }) =>
        wrap('CancelTimedSwitch', D({ name: name!, time: time! }), () => {
          const n = S(pyLower(strip(name!)));
          if ((n as { v: string }).v === '') raise('Exception', 'name cannot be empty.');
          const t = S(raiseIf(reformat(time!, TS)));
          if (!contains(db, n)) raise('Exception', 'device name does not exist.');
          const list = getItem(db, n);
          const items = iter(list);
          const k = items.findIndex((rec) => eq(at(rec, 'time'), t));
          if (k < 0) raise('Exception', 'time does not exist.');
          (list as { items: V[] }).items.splice(k, 1);
          return S('success');
        }),
      check: (r, g) => {
        const rn = pyLower(strip(at(r, 'input', 'name')));
        const gn = pyLower(strip(at(g, 'input', 'name')));
        const rt = reformat(at(r, 'input', 'time'), TS);
        const gt = reformat(at(g, 'input', 'time'), TS);
        if (rn !== gn || ne(rt, gt)) return false;
        return eq(at(r, 'output'), at(g, 'output')) && eq(at(r, 'exception'), at(g, 'exception'));
      },
    };
  },
};

// ---- lookups over a database
const symptomDb = (name: string, fields: [string, string]): ApiDef => ({
  name,
  inputParameters: [['symptom', 'str']],
  databaseName: 'Symptom',
  required: ['symptom'],
  make: (d) => {
    const db = db0(d);
    // EmergencyKnowledge.format_check lower-cases an Exception object when the symptom is empty (AttributeError).
    const fmt = (v: V): string => {
      const s = strip(v);
      if (name === 'EmergencyKnowledge') {
        if (s === '') raise('AttributeError', "'Exception' object has no attribute 'lower'");
        return pyLower(s);
      }
      const l = pyLower(s);
      if (l === '') raise('Exception', 'The symptom cannot be empty.');
      return pyLower(l);
    };
    return {
      call: ({ symptom }) =>
        wrap(name, D({ symptom: symptom! }), () => {
          const s = S(fmt(symptom!));
          if (!contains(db, s)) raise('Exception', 'The symptom does not exist.');
          return L(
            iter(getItem(db, s)).map((item) =>
              D({ name: getItem(item, 'name'), [fields[1]]: getItem(item, fields[1]) }),
            ),
          );
        }),
      check: (r, g) => {
        const a = fmt(at(r, 'input', 'symptom'));
        const b = fmt(at(g, 'input', 'symptom'));
        return a === b && eq(at(r, 'output'), at(g, 'output')) && eq(at(r, 'exception'), at(g, 'exception'));
      },
    };
  },
});
export const SymptomSearch = symptomDb('SymptomSearch', ['name', 'description']);
export const EmergencyKnowledge = symptomDb('EmergencyKnowledge', ['name', 'aid']);

export const DocumentQA: ApiDef = {
  name: 'DocumentQA',
  inputParameters: [
    ['url', 'str'],
    ['question', 'str'],
  ],
  databaseName: 'QuestionAnswering',
  required: ['url', 'question'],
  make: (d) => {
    const db = db0(d);
    return {
      call: ({ url, question }) =>
        wrap('DocumentQA', D({ url: url!, question: question! }), () => {
          const u = S(strip(url!));
          const q = S(strip(question!));
          if ((q as { v: string }).v === '') raise('Exception', 'The question is empty.');
          if (!contains(db, u)) raise('Exception', 'The document of this url failed to be processed.');
          if (!contains(getItem(db, u), q)) return S('The question is too difficult to answer.');
          return getItem(getItem(db, u), q);
        }),
      check: (r, g) =>
        strip(at(r, 'input', 'url')) === strip(at(g, 'input', 'url')) &&
        strip(at(r, 'input', 'question')) === strip(at(g, 'input', 'question')) &&
        eq(at(r, 'output'), at(g, 'output')) &&
        eq(at(r, 'exception'), at(g, 'exception')),
    };
  },
};

const inputOutputExc = (r: V, g: V): boolean =>
  eq(at(r, 'input'), at(g, 'input')) &&
  eq(at(r, 'output'), at(g, 'output')) &&
  eq(at(r, 'exception'), at(g, 'exception'));

export const ImageCaption: ApiDef = {
  name: 'ImageCaption',
  inputParameters: [['url', 'str']],
  databaseName: 'ImageCaptioning',
  required: ['url'],
  make: (d) => {
    const db = db0(d);
    return {
      call: ({ url }) =>
        wrap('ImageCaption', D({ url: url! }), () => {
          const u = strip(url!);
          if (!u.endsWith('.jpg') && !u.endsWith('.jpeg') && !u.endsWith('.png'))
            raise('Exception', 'The url should end with .jpg, .jpeg or .png.');
          for (const item of iter(db)) if (eq(getItem(item, 'url'), S(u))) return getItem(item, 'caption');
          return raise('Exception', 'The image of this url failed to be processed.');
        }),
      check: inputOutputExc,
    };
  },
};

export const SpeechRecognition: ApiDef = {
  name: 'SpeechRecognition',
  inputParameters: [['url', 'str']],
  databaseName: 'SpeechRecognition',
  required: ['url'],
  make: (d) => {
    const db = db0(d);
    return {
      call: ({ url }) =>
        wrap('SpeechRecognition', D({ url: url! }), () => {
          const u = strip(url!);
          if (!u.endsWith('.wav')) raise('Exception', 'The url should end with .wav.');
          if (contains(db, S(u))) return getItem(db, S(u));
          return raise('Exception', 'The audio of this url failed to be processed.');
        }),
      check: inputOutputExc,
    };
  },
};

export const Wiki: ApiDef = {
  name: 'Wiki',
  inputParameters: [['keyword', 'str']],
  databaseName: 'Wiki',
  required: ['keyword'],
  make: (d) => {
    const db = db0(d);
    return {
      call: ({ keyword }) =>
        wrap('Wiki', D({ keyword: keyword! }), () => {
          const k = S(pyLower(pyStrip(asStr(keyword!, 'replace').replaceAll('_', ' '))));
          if (!contains(db, k)) raise('Exception', 'Keyword not found.');
          const row = getItem(db, k);
          return D({ url: getItem(row, 'url'), summary: getItem(row, 'summary') });
        }),
      check: (r, g) =>
        eq(at(r, 'api_name'), at(g, 'api_name')) &&
        eq(at(r, 'output'), at(g, 'output')) &&
        eq(at(r, 'exception'), at(g, 'exception')),
    };
  },
};

// ---- no database
export const Calculator: ApiDef = {
  name: 'Calculator',
  inputParameters: [['formula', 'str']],
  required: ['formula'],
  make: () => ({
    call: ({ formula }) => wrap('Calculator', D({ formula: formula! }), () => calculate(formula!)),
    check: (r, g) =>
      asStr(at(r, 'input', 'formula'), 'replace').replaceAll(' ', '') ===
        asStr(at(g, 'input', 'formula'), 'replace').replaceAll(' ', '') &&
      eq(at(r, 'output'), at(g, 'output')) &&
      eq(at(r, 'exception'), at(g, 'exception')),
  }),
};

export const GetToday: ApiDef = {
  name: 'GetToday',
  inputParameters: [],
  required: [],
  varKw: true,
  make: () => ({
    call: () => D({ api_name: S('GetToday'), input: NONE, output: S('2023-03-31'), exception: NONE }),
    check: (r) => !eq(at(r, 'output'), NONE) && eq(at(r, 'exception'), NONE) && eq(at(r, 'input'), NONE),
  }),
};

export const PlayMusic: ApiDef = {
  name: 'PlayMusic',
  inputParameters: [['music_name', 'str']],
  required: ['music_name'],
  make: () => ({
    call: ({ music_name }) =>
      wrap('PlayMusic', D({ music_name: music_name! }), () => {
        const n = pyStrip(lower(music_name!));
        if (n === '') raise('Exception', 'The music name cannot be empty.');
        return S(`music://${n}`);
      }),
    check: (r, g) => eq(at(r, 'output'), at(g, 'output')),
  }),
};

const EMAIL = /^[a-z0-9]+[._]?[a-z0-9]+[@][\p{L}\p{N}_]+[.][\p{L}\p{N}_]{2,3}$/u;
export const SendEmail: ApiDef = {
  name: 'SendEmail',
  inputParameters: [
    ['receiver', 'str'],
    ['subject', 'str'],
    ['content', 'str'],
  ],
  required: ['receiver', 'subject', 'content'],
  make: () => ({
    call: ({ receiver, subject, content }) =>
      wrap('SendEmail', D({ receiver: receiver!, subject: subject!, content: content! }), () => {
        const to = strip(receiver!);
        const sub = strip(subject!);
        const body = strip(content!);
        if (!EMAIL.test(to)) raise('Exception', 'Email address of the receiver is invalid.');
        if (sub === '') raise('Exception', 'Subject cannot be empty.');
        if (body === '') raise('Exception', 'Content cannot be empty.');
        return S('success');
      }),
    check: (r, g) => {
      // All six normalised before any comparison, as the class does (so a non-str content fails even when the
      // receiver already differs).
      const [rr, gr] = [pyLower(strip(at(r, 'input', 'receiver'))), pyLower(strip(at(g, 'input', 'receiver')))];
      const [rs, gs] = [strip(at(r, 'input', 'subject')), strip(at(g, 'input', 'subject'))];
      const [rc, gc] = [strip(at(r, 'input', 'content')), strip(at(g, 'input', 'content'))];
      return (
        rr === gr &&
        rs === gs &&
        rc === gc &&
        eq(at(r, 'output'), at(g, 'output')) &&
        eq(at(r, 'exception'), at(g, 'exception'))
      );
    },
  }),
};

export const BookHotel: ApiDef = {
  name: 'BookHotel',
  inputParameters: [
    ['hotel_name', 'str'],
    ['check_in_time', 'str'],
    ['check_out_time', 'str'],
    ['room_count', 'int'],
    ['adult_count', 'int'],
    ['child_count', 'int'],
  ],
  databaseName: 'Hotel',
  required: ['hotel_name', 'check_in_time', 'check_out_time', 'room_count', 'adult_count', 'child_count'],
  make: (d) => {
    const db = db0(d);
    return {
      call: (a) => {
        const input = D({
          hotel_name: a.hotel_name!,
          check_in_time: a.check_in_time!,
          check_out_time: a.check_out_time!,
          room_count: a.room_count!,
          adult_count: a.adult_count!,
          child_count: a.child_count!,
        });
        return wrap('BookHotel', input, () => {
          strptime(a.check_in_time!, DATE);
          strptime(a.check_out_time!, DATE);
          if (cmp(a.adult_count!, '>', I(2)) && eq(a.room_count!, I(1))) {
            raise('Exception', 'The number of adults is greater than 2. Two rooms are ordered.');
          }
          const cin = dtKey(strptime(a.check_in_time!, DATE));
          const cout = dtKey(strptime(a.check_out_time!, DATE));
          for (const k of iter(db)) {
            const o = getItem(db, k);
            if (eq(at(o, 'hotel_name'), a.hotel_name!)) {
              const oin = dtKey(strptime(at(o, 'check_in_time'), DATE));
              const oout = dtKey(strptime(at(o, 'check_out_time'), DATE));
              if ((cin >= oin && cin < oout) || (cout > oin && cout <= oout))
                raise('Exception', 'The room is not available.');
            }
          }
          const id = S(String(len(db) + 1));
          setItem(
            db,
            id,
            D({
              hotel_name: a.hotel_name!,
              check_in_time: a.check_in_time!,
              check_out_time: a.check_out_time!,
              room_count: a.room_count!,
              adult_count: a.adult_count!,
              child_count: a.child_count!,
            }),
          );
          return id;
        });
      },
      check: exactCheck,
    };
  },
};

/** Classes whose behaviour needs the network or modules absent here: any execution is undetermined. */
const external = (
  name: string,
  params: Array<[string, string]>,
  required: string[],
  why: string,
  varKw = false,
): ApiDef => ({
  name,
  inputParameters: params,
  required,
  varKw,
  make: () => {
    throw new Undetermined(`${name} ${why}`);
  },
});
export const Dictionary = external(
  'Dictionary',
  [['keyword', 'str']],
  ['keyword'],
  'needs the network (dictionaryapi.dev)',
);
export const SearchEngine = external('SearchEngine', [['keyword', 'str']], ['keyword'], 'needs rank_bm25 and nltk');
export const Translate = external(
  'Translate',
  [
    ['src', 'str'],
    ['src_lang', 'str'],
    ['tgt_lang', 'str'],
  ],
  ['src'],
  'needs googletrans and the network',
  true,
);
