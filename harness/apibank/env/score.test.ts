// scoreTask's decisions on small hand-made tasks over a tiny database: the name match, the keyword checks and
// coercions of api_call, each class's own check (content Jaccard strictly above 0.5, Delete* comparing only time),
// replay state kept per API object, and ToolSearcher's official / keyword scorers and embedding switch.
import { describe, expect, it } from 'vitest';
import { pyRepr, type PyValue } from '../../core/pyliteral/index.ts';
import {
  commandEmbeddingFallback,
  scoreTask,
  type ApiBankTask,
  type ApiCall,
  type ApiTurn,
  type Databases,
  type FrozenToolSearcher,
  type Json,
  type ScoreOptions,
} from './index.ts';
import { pyJsonLoads } from '../../core/pyliteral/pyjson.ts';

const tables = new Map<string, PyValue>(
  Object.entries({
    Account: '{"JohnDoe": {"password": "pass123", "token": "tok1", "email": "j@example.com"}}',
    Agenda: '{"1": {"content": "Lunch", "time": "2023-03-18 12:00:00", "location": "Cafe", "username": "JohnDoe"}}',
    Hotel: '{}',
    Alarm: '{}',
  }).map(([k, v]) => [k, pyJsonLoads(v)]),
);
const databases: Databases = { dir: '(test)', tables };
const opts: ScoreOptions = { toolSearcher: 'official', databases };

const S = (v: string): PyValue => ({ t: 'str', v });
const N = (v: number): PyValue => ({ t: 'int', v: BigInt(v) });
const turn = (
  api_name: string,
  param_dict: Record<string, Json>,
  output: Json,
  input: Json = param_dict,
  exception: Json = null,
): ApiTurn => ({
  api_name,
  param_dict,
  result: { api_name, input, output, exception },
});
const task = (level: '1' | '2' | '3', gold: ApiTurn, prior: ApiTurn[] = []): ApiBankTask => ({
  id: 't',
  level,
  prior_api_turns: prior,
  ground_truth: gold,
  api_names: [gold.api_name],
});
const call = (name: string, args: Record<string, PyValue>): ApiCall => ({ name, args });

const agendaGold = turn(
  'AddAgenda',
  { token: 'tok1', content: 'Meeting with the marketing team', time: '2023-09-28 14:00:00', location: 'Room' },
  'success',
);
const agendaArgs = {
  token: S('tok1'),
  content: S('Meeting with the marketing team'),
  time: S('2023-09-28 14:00:00'),
  location: S('Room'),
};

describe('scoreTask: name, arguments, coercion', () => {
  it('matches the API name case-sensitively before anything runs', () => {
    const r = scoreTask(task('1', agendaGold), call('addAgenda', agendaArgs), opts);
    expect(r).toMatchObject({ correct: false, stage: 'api_name', reason: 'API name mismatch: addAgenda != AddAgenda' });
  });
  it('fails an unknown keyword and a missing argument with the reference texts', () => {
    expect(scoreTask(task('1', agendaGold), call('AddAgenda', { ...agendaArgs, note: S('x') }), opts).reason).toBe(
      'AssertionError: invalid parameter name. parameter: note',
    );
    const { location: _, ...noLocation } = agendaArgs;
    expect(scoreTask(task('1', agendaGold), call('AddAgenda', noLocation), opts)).toMatchObject({
      correct: false,
      stage: 'score',
      reason: "TypeError: AddAgenda.call() missing 1 required positional argument: 'location'",
    });
  });
  it('coerces int parameters as int() does: "2" passes, "2.5" fails', () => {
    const g = turn(
      'BookHotel',
      {
        hotel_name: 'Hilton',
        check_in_time: '2023-04-01',
        check_out_time: '2023-04-05',
        room_count: 1,
        adult_count: 2,
        child_count: 0,
      },
      '1',
    );
    const args = {
      hotel_name: S('Hilton'),
      check_in_time: S('2023-04-01'),
      check_out_time: S('2023-04-05'),
      room_count: S('1'),
      adult_count: N(2),
      child_count: N(0),
    };
    expect(scoreTask(task('1', g), call('BookHotel', args), opts).correct).toBe(true);
    expect(scoreTask(task('1', g), call('BookHotel', { ...args, room_count: S('2.5') }), opts).reason).toBe(
      "ValueError: invalid literal for int() with base 10: '2.5'",
    );
  });
});

describe("scoreTask: the classes' own checks", () => {
  it('accepts agenda content whose word Jaccard is above 0.5, not at 0.5', () => {
    const with4of5 = scoreTask(
      task('1', agendaGold),
      call('AddAgenda', { ...agendaArgs, content: S('Meeting with marketing team') }),
      opts,
    );
    expect(with4of5.correct).toBe(true); // 4 shared of 5 words
    const half = scoreTask(
      task('1', agendaGold),
      call('AddAgenda', { ...agendaArgs, content: S('meeting with marketing team') }),
      opts,
    );
    expect(half.correct).toBe(false); // 3 shared of 6: exactly 0.5
  });
  it('compares only the time of a successful DeleteAgenda', () => {
    const g = turn(
      'DeleteAgenda',
      { token: 'tok1', content: 'Lunch', time: '2023-03-18 12:00:00', location: 'Cafe' },
      'success',
    );
    const args = { token: S('tok1'), content: S('Lunch'), time: S('2023-03-18 12:00:00'), location: S('UNKNOWN') };
    expect(scoreTask(task('1', g), call('DeleteAgenda', args), opts).correct).toBe(true);
    expect(
      scoreTask(task('1', g), call('DeleteAgenda', { ...args, time: S('2023-03-18 12:00:01') }), opts).correct,
    ).toBe(false);
  });
  it('replays prior rows on per-class copies: DeleteAccount does not remove the user from GetUserToken', () => {
    const del = turn('DeleteAccount', { token: 'tok1' }, { status: 'success' });
    const g = turn('GetUserToken', { username: 'JohnDoe', password: 'pass123' }, { token: 'tok1' });
    const r = scoreTask(
      task('1', g, [del]),
      call('GetUserToken', { username: S('JohnDoe'), password: S('pass123') }),
      opts,
    );
    expect(r.correct).toBe(true);
    expect(pyRepr(r.predictedResult!)).toBe(
      "{'api_name': 'GetUserToken', 'input': {'username': 'JohnDoe', 'password': 'pass123'}, 'output': {'token': 'tok1'}, 'exception': None}",
    );
  });
  it('reports the exception text the class stores for a bad date', () => {
    const g = turn('AddAlarm', { token: 'tok1', time: '2023-03-16 07:00:00' }, 'success');
    const r = scoreTask(task('1', g), call('AddAlarm', { token: S('tok1'), time: S('2023-03-16T07:00:00') }), opts);
    expect(r.correct).toBe(false);
    expect(pyRepr(r.predictedResult!)).toContain(
      "'exception': \"time data '2023-03-16T07:00:00' does not match format '%Y-%m-%d %H:%M:%S'\"",
    );
  });
});

describe('ToolSearcher', () => {
  const token = {
    name: 'GetUserToken',
    description: 'Get the user token.',
    input_parameters: { username: {}, password: {} },
    output_parameters: {},
  };
  const agenda = {
    name: 'AddAgenda',
    description: 'Add agenda.',
    input_parameters: { token: {}, content: {} },
    output_parameters: {},
  };
  const frozen: FrozenToolSearcher = {
    level: '2',
    outputsByKeyword: { 'add schedule': pyJsonLoads(JSON.stringify([token, agenda])) },
    catalog: { GetUserToken: pyJsonLoads(JSON.stringify(token)), AddAgenda: pyJsonLoads(JSON.stringify(agenda)) },
    searchItems: [
      { name: 'GetUserToken', desc_for_search: 'get user tokenGet the user token.' },
      { name: 'AddAgenda', desc_for_search: 'add agendaAdd agenda.' },
    ],
  };
  const g = turn('ToolSearcher', { keywords: 'add schedule' }, [token, agenda] as unknown as Json);
  const withFrozen: ScoreOptions = { ...opts, frozen: { '2': frozen } };
  it('official: a normalised cache hit is scored; a miss without embeddings is undetermined', () => {
    expect(
      scoreTask(task('2', g), call('ToolSearcher', { keywords: S('  Add\n SCHEDULE ') }), withFrozen).correct,
    ).toBe(true);
    const miss = scoreTask(task('2', g), call('ToolSearcher', { keywords: S('new agenda item') }), withFrozen);
    expect(miss.correct).toBeNull();
    expect(miss.reason).toMatch(/^undetermined: /);
  });
  it('keyword: exact normalised keywords, offline', () => {
    const k: ScoreOptions = { ...withFrozen, toolSearcher: 'keyword' };
    expect(scoreTask(task('2', g), call('ToolSearcher', { keywords: S('ADD  schedule') }), k).correct).toBe(true);
    expect(scoreTask(task('2', g), call('ToolSearcher', { keywords: S('new agenda item') }), k).correct).toBe(false);
  });
  it('official with an embedding command: its nearest item decides, GetUserToken first for a token API', () => {
    const script = `let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{const r=JSON.parse(s);process.stdout.write(JSON.stringify({name:r.keywords.includes('agenda')?'AddAgenda':'GetUserToken'}))})`;
    const embeddingFallback = commandEmbeddingFallback([process.execPath, '-e', script]);
    const r = scoreTask(task('2', g), call('ToolSearcher', { keywords: S('new agenda item') }), {
      ...withFrozen,
      embeddingFallback,
    });
    expect(r.correct).toBe(true);
    expect(() => commandEmbeddingFallback([])).toThrow('empty command');
  });
});
