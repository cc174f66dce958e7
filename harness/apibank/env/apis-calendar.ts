// API-Bank `apis/`: agenda, reminder and meeting classes (Add/Delete/Modify/Query of each).
import {
  assertSameName,
  at,
  contentJaccard,
  OPAQUE,
  wrap,
  type ApiDef,
  type ApiInstance,
  type TokenChecker,
} from './api-kit.ts';
import {
  D,
  delItem,
  eq,
  getItem,
  iter,
  len,
  pop,
  raise,
  S,
  setItem,
  str,
  strip,
  strptime,
  toInt,
  truthy,
  I,
  type V,
} from './py.ts';

const TS = '%Y-%m-%d %H:%M:%S';
const db0 = (db: V | undefined): V => db ?? D({});
const checker = (tc: TokenChecker | undefined): TokenChecker => {
  if (!tc) raise('AttributeError', "'NoneType' object has no attribute 'check_token'");
  return tc!;
};
const emptyStrip = (v: V): boolean => strip(v) === '';
/** max([int(i) for i in db.keys()]) + 1, or 0 for an empty db. */
function nextStrId(db: V): V {
  const keys = iter(db);
  if (keys.length === 0) return S('0');
  let max: bigint | undefined;
  for (const k of keys) {
    const n = (toInt(k) as { v: bigint }).v;
    if (max === undefined || n > max) max = n;
  }
  return S(String(max! + 1n));
}
/** The first row of the user matching on `a == x or b == y`. */
function findRow(db: V, username: V, a: string, x: V, b: string, y: V): V | undefined {
  for (const k of iter(db)) {
    const row = getItem(db, k);
    if (eq(at(row, 'username'), username) && (eq(at(row, a), x) || eq(at(row, b), y))) return k;
  }
  return undefined;
}

// ---- agenda
const agendaParams: ReadonlyArray<readonly [string, string]> = [
  ['token', 'str'],
  ['content', 'str'],
  ['time', 'str'],
  ['location', 'str'],
];
const agendaCheck = (r: V, g: V): boolean =>
  contentJaccard(at(r, 'input', 'content'), at(g, 'input', 'content'), false) &&
  eq(at(r, 'input', 'time'), at(g, 'input', 'time')) &&
  eq(at(r, 'input', 'location'), at(g, 'input', 'location')) &&
  eq(at(r, 'output'), at(g, 'output')) &&
  eq(at(r, 'exception'), at(g, 'exception'));

/** The Delete* check: on two successes only `input.time` is compared. */
const deleteCheck = (r: V, g: V): boolean => {
  if (eq(at(g, 'output'), S('success')) && eq(at(r, 'output'), S('success'))) {
    return eq(at(r, 'input', 'time'), at(g, 'input', 'time'));
  }
  return eq(at(r, 'output'), at(g, 'output')) && eq(at(r, 'exception'), at(g, 'exception'));
};

function agendaDef(
  name: string,
  body: (db: V, tc: TokenChecker | undefined, a: Record<string, V>) => V,
  check: ApiInstance['check'],
): ApiDef {
  return {
    name,
    inputParameters: agendaParams,
    databaseName: 'Agenda',
    required: ['token', 'content', 'time', 'location'],
    make: (d, tc) => {
      const db = db0(d);
      return {
        call: (a) =>
          wrap(name, D({ token: a.token!, content: a.content!, time: a.time!, location: a.location! }), () =>
            body(db, tc, a),
          ),
        check,
      };
    },
  };
}

export const AddAgenda = agendaDef(
  'AddAgenda',
  (db, tc, { token, content, time, location }) => {
    strptime(time!, TS);
    if (emptyStrip(content!)) raise('Exception', 'Content should not be null');
    const id = I(len(db) + 1);
    const username = checker(tc).checkToken(token!);
    setItem(db, id, D({ username, content: content!, time: time!, location: location! }));
    return S('success');
  },
  (r, g) => {
    assertSameName(r, g);
    return agendaCheck(r, g);
  },
);

export const DeleteAgenda = agendaDef(
  'DeleteAgenda',
  (db, tc, { token, content, time }) => {
    if (truthy(time!)) strptime(time!, TS);
    const username = checker(tc).checkToken(token!);
    const k = findRow(db, username, 'content', content!, 'time', time!);
    if (k !== undefined) {
      delItem(db, k);
      return S('success');
    }
    if (truthy(content!)) raise('Exception', `You have no meeting about ${str(content!)}`);
    if (truthy(time!)) raise('Exception', `You have no meeting at time : ${str(time!)}`);
    return S('success');
  },
  deleteCheck,
);

export const ModifyAgenda = agendaDef(
  'ModifyAgenda',
  (db, tc, { token, content, time, location }) => {
    if (truthy(time!)) strptime(time!, TS);
    const username = checker(tc).checkToken(token!);
    const k = findRow(db, username, 'content', content!, 'time', time!);
    if (k !== undefined) {
      setItem(db, k, D({ username, content: content!, time: time!, location: location! }));
      return S('success');
    }
    if (truthy(content!)) raise('Exception', `You have no agenda about ${str(content!)}`);
    if (truthy(time!)) raise('Exception', `You have no agenda at time : ${str(time!)}`);
    return OPAQUE; // `return Exception('Error')`: an exception object as the output
  },
  agendaCheck,
);

export const QueryAgenda = agendaDef(
  'QueryAgenda',
  (db, tc, { token, content, time }) => {
    if (truthy(time!)) strptime(time!, TS);
    const username = checker(tc).checkToken(token!);
    const k = findRow(db, username, 'content', content!, 'time', time!);
    if (k !== undefined) return getItem(db, k);
    if (truthy(content!)) raise('Exception', `You have no agenda about ${str(content!)}`);
    if (truthy(time!)) raise('Exception', `You have no agenda at time : ${str(time!)}`);
    return raise('Exception', 'Error');
  },
  agendaCheck,
);

// ---- reminder
const reminderParams: ReadonlyArray<readonly [string, string]> = [
  ['token', 'str'],
  ['content', 'str'],
  ['time', 'str'],
];
const reminderCheck = (r: V, g: V): boolean =>
  contentJaccard(at(r, 'input', 'content'), at(g, 'input', 'content'), true) &&
  eq(at(r, 'input', 'time'), at(g, 'input', 'time')) &&
  eq(at(r, 'output'), at(g, 'output')) &&
  eq(at(r, 'exception'), at(g, 'exception'));

function reminderDef(
  name: string,
  body: (db: V, tc: TokenChecker | undefined, a: Record<string, V>) => V,
  check: ApiInstance['check'],
): ApiDef {
  return {
    name,
    inputParameters: reminderParams,
    databaseName: 'Reminder',
    required: ['token', 'content', 'time'],
    make: (d, tc) => {
      const db = db0(d);
      return {
        call: (a) => wrap(name, D({ token: a.token!, content: a.content!, time: a.time! }), () => body(db, tc, a)),
        check,
      };
    },
  };
}
const reminderPrelude = (time: V, content: V): void => {
  strptime(time, TS);
  if (emptyStrip(content)) raise('Exception', 'Content should not be null');
};
const noReminder = (content: V, time: V): never =>
  raise('Exception', `You have no reminder about ${str(content)} or at time : ${str(time)}`);

export const AddReminder = reminderDef(
  'AddReminder',
  (db, tc, { token, content, time }) => {
    reminderPrelude(time!, content!);
    const id = nextStrId(db);
    const username = checker(tc).checkToken(token!);
    setItem(db, id, D({ username, content: content!, time: time! }));
    return S('success');
  },
  (r, g) => {
    assertSameName(r, g);
    return reminderCheck(r, g);
  },
);

export const DeleteReminder = reminderDef(
  'DeleteReminder',
  (db, tc, { token, content, time }) => {
    reminderPrelude(time!, content!);
    const username = checker(tc).checkToken(token!);
    const k = findRow(db, username, 'content', content!, 'time', time!);
    if (k === undefined) noReminder(content!, time!);
    delItem(db, k!);
    return S('success');
  },
  deleteCheck,
);

export const ModifyReminder = reminderDef(
  'ModifyReminder',
  (db, tc, { token, content, time }) => {
    reminderPrelude(time!, content!);
    const username = checker(tc).checkToken(token!);
    const k = findRow(db, username, 'content', content!, 'time', time!);
    if (k === undefined) noReminder(content!, time!);
    const row = getItem(db, k!);
    setItem(row, 'content', content!);
    setItem(row, 'time', time!);
    return S('success');
  },
  (r, g) => {
    assertSameName(r, g);
    return reminderCheck(r, g);
  },
);

export const QueryReminder = reminderDef(
  'QueryReminder',
  (db, tc, { token, content, time }) => {
    reminderPrelude(time!, content!);
    const username = checker(tc).checkToken(token!);
    const k = findRow(db, username, 'content', content!, 'time', time!);
    if (k === undefined) noReminder(content!, time!);
    return getItem(db, k!);
  },
  reminderCheck,
);

// ---- meeting
const meetingParams: ReadonlyArray<readonly [string, string]> = [
  ['token', 'str'],
  ['meeting_topic', 'str'],
  ['start_time', 'str'],
  ['end_time', 'str'],
  ['location', 'str'],
  ['attendees', 'list(str)'],
];
/** Topic Jaccard, then every other input field exact (the check pops meeting_topic from both inputs). */
export const meetingCheck = (r: V, g: V): boolean => {
  const ok = contentJaccard(at(r, 'input', 'meeting_topic'), at(g, 'input', 'meeting_topic'), false);
  pop(at(r, 'input'), 'meeting_topic');
  pop(at(g, 'input'), 'meeting_topic');
  return (
    ok &&
    eq(at(r, 'input'), at(g, 'input')) &&
    eq(at(r, 'output'), at(g, 'output')) &&
    eq(at(r, 'exception'), at(g, 'exception'))
  );
};

function meetingDef(
  name: string,
  body: (db: V, tc: TokenChecker | undefined, a: Record<string, V>) => V,
  check: ApiInstance['check'],
): ApiDef {
  return {
    name,
    inputParameters: meetingParams,
    databaseName: 'Meeting',
    required: ['token', 'meeting_topic', 'start_time', 'end_time', 'location', 'attendees'],
    make: (d, tc) => {
      const db = db0(d);
      return {
        call: (a) =>
          wrap(
            name,
            D({
              token: a.token!,
              meeting_topic: a.meeting_topic!,
              start_time: a.start_time!,
              end_time: a.end_time!,
              location: a.location!,
              attendees: a.attendees!,
            }),
            () => body(db, tc, a),
          ),
        check,
      };
    },
  };
}
/** The optional time checks and the topic/start_time guard of Delete/Modify/QueryMeeting. */
function meetingPrelude(topic: V, start: V, end: V): void {
  if (truthy(start)) strptime(start, TS);
  if (truthy(end)) strptime(end, TS);
  if (emptyStrip(topic) && !truthy(start)) raise('Exception', 'Meeting Topic and start_time should not be null both');
}

export const AddMeeting = meetingDef(
  'AddMeeting',
  (db, tc, a) => {
    strptime(a.start_time!, TS);
    strptime(a.end_time!, TS);
    if (emptyStrip(a.meeting_topic!)) raise('Exception', 'Meeting Topic should not be null');
    const id = nextStrId(db);
    const username = checker(tc).checkToken(a.token!);
    setItem(
      db,
      id,
      D({
        username,
        meeting_topic: a.meeting_topic!,
        start_time: a.start_time!,
        end_time: a.end_time!,
        location: a.location!,
        attendees: a.attendees!,
      }),
    );
    return S('success');
  },
  meetingCheck,
);

export const DeleteMeeting = meetingDef(
  'DeleteMeeting',
  (db, tc, a) => {
    meetingPrelude(a.meeting_topic!, a.start_time!, a.end_time!);
    const username = checker(tc).checkToken(a.token!);
    const k = findRow(db, username, 'meeting_topic', a.meeting_topic!, 'start_time', a.start_time!);
    if (k !== undefined) {
      delItem(db, k);
      return S('success');
    }
    if (truthy(a.meeting_topic!)) raise('Exception', `You have no meeting about ${str(a.meeting_topic!)}`);
    if (truthy(a.start_time!)) raise('Exception', `You have no meeting at time : ${str(a.start_time!)}`);
    return S('success');
  },
  deleteCheck,
);

export const ModifyMeeting = meetingDef(
  'ModifyMeeting',
  (db, tc, a) => {
    meetingPrelude(a.meeting_topic!, a.start_time!, a.end_time!);
    const username = checker(tc).checkToken(a.token!);
    const k = findRow(db, username, 'meeting_topic', a.meeting_topic!, 'start_time', a.start_time!);
    if (k !== undefined) {
      const row = getItem(db, k);
      if (truthy(a.meeting_topic!)) setItem(row, 'meeting_topic', a.meeting_topic!);
      if (truthy(a.start_time!)) {
        setItem(row, 'start_time', a.start_time!);
        setItem(row, 'end_time', a.end_time!);
      }
      return S('success');
    }
    if (truthy(a.meeting_topic!)) raise('Exception', `You have no meeting about ${str(a.meeting_topic!)}`);
    if (truthy(a.start_time!)) raise('Exception', `You have no meeting at time : ${str(a.start_time!)}`);
    return S('success');
  },
  meetingCheck,
);

export const QueryMeeting = meetingDef(
  'QueryMeeting',
  (db, tc, a) => {
    meetingPrelude(a.meeting_topic!, a.start_time!, a.end_time!);
    const username = checker(tc).checkToken(a.token!);
    const k = findRow(db, username, 'meeting_topic', a.meeting_topic!, 'start_time', a.start_time!);
    if (k !== undefined) return getItem(db, k);
    if (truthy(a.meeting_topic!)) raise('Exception', `You have no meeting about ${str(a.meeting_topic!)}`);
    if (truthy(a.start_time!)) raise('Exception', `You have no meeting at time : ${str(a.start_time!)}`);
    return OPAQUE;
  },
  meetingCheck,
);
