// API-Bank `lv3_apis/`: the Level-3 classes, each with its in-code table (no init database, no token checker).
import { assertSameName, at, wrap, type ApiDef, type ApiInstance } from './api-kit.ts';
import { meetingCheck } from './apis-calendar.ts';
import {
  cmp,
  contains,
  D,
  eq,
  F,
  getItem,
  I,
  iter,
  L,
  lower,
  NONE,
  pop,
  raise,
  S,
  setItem,
  str,
  strftime,
  strip,
  strptime,
  T,
  dtKey,
  type V,
} from './py.ts';

const TS = '%Y-%m-%d %H:%M:%S';
const DATE = '%Y-%m-%d';

/** output, exception and input all equal, after the api_name assertion. */
const fullCheck = (r: V, g: V): boolean => {
  assertSameName(r, g);
  return (
    eq(at(r, 'output'), at(g, 'output')) &&
    eq(at(r, 'exception'), at(g, 'exception')) &&
    eq(at(r, 'input'), at(g, 'input'))
  );
};
const strs = (...xs: string[]): V => L(xs.map(S));

function simple(
  name: string,
  params: Array<[string, string]>,
  body: (a: Record<string, V>) => V,
  check: ApiInstance['check'] = fullCheck,
): ApiDef {
  return {
    name,
    inputParameters: params,
    required: params.map(([p]) => p),
    make: () => ({
      call: (a) => wrap(name, D(Object.fromEntries(params.map(([p]) => [p, a[p]!]))), () => body(a)),
      check,
    }),
  };
}

const accounts = (): Array<[V, V]> =>
  (
    [
      ['John', '123456', 'john@example.com', '1234567890'],
      ['Mary', 'abcdef', 'mary@example.com', '0987654321'],
      ['Peter', 'qwerty', 'peter@example.com', '1231231234'],
      ['Tom', 'asdfgh', 'tom@example.com', '4564564567'],
      ['Jerry', 'zxcvbn', 'jerry@example.com', '7897897890'],
    ] as const
  ).map(([u, p, e, ph]) => [T([S(u), S(p)]), D({ email: S(e), phone: S(ph) })]);

export const AccountInfo: ApiDef = {
  name: 'AccountInfo',
  inputParameters: [
    ['username', 'str'],
    ['password', 'str'],
  ],
  required: ['username', 'password'],
  make: () => {
    const db = accounts();
    return {
      call: ({ username, password }) =>
        wrap('AccountInfo', D({ username: username!, password: password! }), () => {
          for (const [cred, info] of db) {
            const [u, p] = (cred as { items: V[] }).items;
            if (eq(u!, username!) && eq(p!, password!)) return info;
          }
          return raise('Exception', 'User not found.');
        }),
      check: fullCheck,
    };
  },
};

export const PersonalInfoUpdate: ApiDef = {
  name: 'PersonalInfoUpdate',
  inputParameters: [
    ['username', 'str'],
    ['password', 'str'],
    ['address', 'str'],
  ],
  required: ['username', 'password', 'address'],
  make: () => {
    const db = accounts();
    return {
      call: ({ username, password, address }) =>
        wrap('PersonalInfoUpdate', D({ username: username!, password: password!, address: address! }), () => {
          for (const [cred, info] of db) {
            const [u, p] = (cred as { items: V[] }).items;
            if (eq(u!, username!) && eq(p!, password!)) {
              setItem(info, 'address', address!);
              return D({ status: S('success') });
            }
          }
          return raise('Exception', 'User not found.');
        }),
      check: (r, g) => {
        assertSameName(r, g);
        return eq(at(r, 'input'), at(g, 'input')) && eq(at(r, 'output'), at(g, 'output'));
      },
    };
  },
};

export const AddMeetingL3: ApiDef = {
  name: 'AddMeeting',
  inputParameters: [
    ['meeting_topic', 'str'],
    ['start_time', 'str'],
    ['end_time', 'str'],
    ['location', 'str'],
    ['attendees', 'list(str)'],
  ],
  required: ['meeting_topic', 'start_time', 'end_time', 'location', 'attendees'],
  make: () => ({
    call: (a) =>
      wrap(
        'AddMeeting',
        D({
          meeting_topic: a.meeting_topic!,
          start_time: a.start_time!,
          end_time: a.end_time!,
          location: a.location!,
          attendees: a.attendees!,
        }),
        () => {
          strptime(a.start_time!, TS);
          strptime(a.end_time!, TS);
          if (strip(a.meeting_topic!) === '') raise('Exception', 'Meeting Topic should not be null');
          return S('success');
        },
      ),
    check: meetingCheck,
  }),
};

export const ClothingRecommendation = simple(
  'ClothingRecommendation',
  [
    ['temperature', 'float'],
    ['humidity', 'float'],
    ['weather_conditions', 'str'],
  ],
  ({ temperature: t, humidity: h, weather_conditions: w }) => {
    const out: string[] = [];
    if (cmp(t!, '<', I(10))) out.push('Warm coat', 'Hat', 'Gloves');
    if (cmp(t!, '>=', I(10)) && cmp(t!, '<', I(20))) out.push('Light jacket', 'Long-sleeved shirt');
    if (cmp(t!, '>=', I(20)) && cmp(t!, '<', I(30))) out.push('T-shirt', 'Shorts');
    if (cmp(t!, '>=', I(30))) out.push('Sun hat', 'Sunglasses', 'Loose-fitting clothes');
    if (cmp(h!, '>', I(70))) out.push('Umbrella', 'Waterproof shoes');
    if (lower(w!).includes('rain')) out.push('Raincoat');
    return D({ clothing_options: strs(...out) });
  },
);

export const EmailReminder = simple(
  'EmailReminder',
  [
    ['content', 'str'],
    ['time', 'str'],
    ['location', 'str'],
    ['recipient', 'str'],
  ],
  ({ content, time }) => {
    strptime(time!, TS);
    if (strip(content!) === '') raise('Exception', 'Content should not be empty');
    return S('success');
  },
  (r, g) => {
    assertSameName(r, g);
    pop(at(r, 'input'), 'content');
    pop(at(g, 'input'), 'content');
    return (
      eq(at(r, 'output'), at(g, 'output')) &&
      eq(at(r, 'exception'), at(g, 'exception')) &&
      eq(at(r, 'input'), at(g, 'input'))
    );
  },
);

const FLIGHTS: Array<[string, string, number]> = [
  ['New York', 'San Francisco', 1],
  ['Los Angeles', 'San Francisco', 2],
  ['London', 'San Francisco', 3],
  ['New York', 'London', 4],
  ['New York', 'Los Angeles', 5],
];
export const FlightSearch: ApiDef = {
  name: 'FlightSearch',
  inputParameters: [
    ['source', 'str'],
    ['destination', 'str'],
    ['travel_dates', 'str'],
  ],
  required: ['source', 'destination', 'travel_dates'],
  make: () => {
    // departure/arrival stay datetimes until a search returns the flight (then they become strings for good).
    const flights = FLIGHTS.map(([s, d, day]) => ({ s, d, day, dep: null as V | null, arr: null as V | null }));
    return {
      call: ({ source, destination, travel_dates }) =>
        wrap('FlightSearch', D({ source: source!, destination: destination!, travel_dates: travel_dates! }), () => {
          const when = strptime(travel_dates!, DATE);
          const out: V[] = [];
          for (const f of flights) {
            if (!eq(S(f.s), source!) || !eq(S(f.d), destination!)) continue;
            if (f.dep !== null) {
              // `'2022-01-01 12:00:00'.date()` on a converted flight raises AttributeError.
              raise('AttributeError', "'str' object has no attribute 'date'");
            }
            if (!(when.y === 2022 && when.mo === 1 && when.d === f.day)) continue;
            f.dep = S(`2022-01-0${f.day} 12:00:00`);
            f.arr = S(`2022-01-0${f.day} 15:00:00`);
            out.push(D({ source: S(f.s), destination: S(f.d), departure_date: f.dep, arrival_date: f.arr }));
          }
          return D({ flights: L(out) });
        }),
      check: fullCheck,
    };
  },
};

const COORDS: Array<[string, number, number]> = [
  ['New York City', 40.7128, 74.006],
  ['San Francisco', 37.7749, 122.4194],
  ['London', 51.5074, 0.1278],
  ['Paris', 48.8566, 2.3522],
  ['Tokyo', 35.6762, 139.6503],
];
export const Geocoding = simple('Geocoding', [['address', 'str']], ({ address }) => {
  const table = Object.fromEntries(COORDS.map(([n, la, lo]) => [n, T([F(la), F(lo)])]));
  const [la, lo] = (lookup(table, address!) as { items: V[] }).items;
  return D({ latitude: la!, longitude: lo! });
});

const SALARY: Array<[string, number]> = [
  ['Financial Analyst', 100000],
  ['Software Engineer', 120000],
  ['Data Scientist', 150000],
  ['Product Manager', 130000],
  ['Doctor', 200000],
];
export const GetOccupationSalary = simple('GetOccupationSalary', [['occupation', 'str']], ({ occupation }) => {
  const table = D(Object.fromEntries(SALARY.map(([k, v]) => [k, I(v)])));
  if (!contains(table, occupation!)) raise('Exception', 'The occupation is not in the database.');
  return D({ salary: getItem(table, occupation!) });
});

const WEATHER: Array<[number, number, number, number, string]> = [
  [40.7128, 74.006, 10, 0.5, 'Clear'],
  [37.7749, 122.4194, 20, 0.8, 'Cloudy'],
  [51.5074, 0.1278, 5, 0.9, 'Rainy'],
  [48.8566, 2.3522, 15, 0.7, 'Sunny'],
  [35.6762, 139.6503, 25, 0.6, 'Rainy'],
];
export const GetWeatherForCoordinates: ApiDef = {
  name: 'GetWeatherForCoordinates',
  inputParameters: [
    ['latitude', 'float'],
    ['longitude', 'float'],
  ],
  required: ['latitude', 'longitude'],
  make: () => ({
    // The class catches only requests' exceptions: a miss (None['temperature']) propagates as a TypeError.
    call: ({ latitude, longitude }) => {
      const hit = WEATHER.find(([la, lo]) => eq(F(la), latitude!) && eq(F(lo), longitude!));
      if (!hit) raise('TypeError', "'NoneType' object is not subscriptable");
      return D({
        api_name: S('GetWeatherForCoordinates'),
        input: D({ latitude: latitude!, longitude: longitude! }),
        output: D({ temperature: I(hit![2]), humidity: F(hit![3]), description: S(hit![4]) }),
        exception: NONE,
      });
    },
    check: (r, g) =>
      eq(at(r, 'output'), at(g, 'output')) &&
      eq(at(r, 'exception'), at(g, 'exception')) &&
      eq(at(r, 'input'), at(g, 'input')),
  }),
};

export const HotelAvailability: ApiDef = {
  name: 'HotelAvailability',
  inputParameters: [
    ['destination', 'str'],
    ['check_in_date', 'str'],
    ['check_out_date', 'str'],
  ],
  required: ['destination', 'check_in_date', 'check_out_date'],
  make: () => {
    // hotel_k: San Francisco, 2022-01-k .. 2022-01-(k+1); dates become strings once a hotel is returned.
    const hotels = [1, 2, 3, 4, 5].map((k) => ({ k, returned: false }));
    return {
      call: ({ destination, check_in_date, check_out_date }) =>
        wrap(
          'HotelAvailability',
          D({ destination: destination!, check_in_date: check_in_date!, check_out_date: check_out_date! }),
          () => {
            strptime(check_in_date!, DATE);
            strptime(check_out_date!, DATE);
            const out: V[] = [];
            for (const h of hotels) {
              if (!eq(S('San Francisco'), destination!)) continue;
              const hin = dtKey({ y: 2022, mo: 1, d: h.k, h: 0, mi: 0, s: 0 });
              const hout = dtKey({ y: 2022, mo: 1, d: h.k + 1, h: 0, mi: 0, s: 0 });
              const uin = dtKey(strptime(check_in_date!, DATE));
              const uout = dtKey(strptime(check_out_date!, DATE));
              if (uin >= hin && uout <= hout) {
                h.returned = true;
                const fmt = (d: number): V => S(strftime({ y: 2022, mo: 1, d, h: 0, mi: 0, s: 0 }, DATE));
                out.push(D({ destination: S('San Francisco'), check_in_date: fmt(h.k), check_out_date: fmt(h.k + 1) }));
              }
            }
            return D({ hotels: L(out) });
          },
        ),
      check: (r, g) => {
        assertSameName(r, g);
        return (
          eq(at(r, 'input', 'destination'), at(g, 'input', 'destination')) &&
          eq(at(r, 'input', 'check_in_date'), at(g, 'input', 'check_in_date')) &&
          eq(at(r, 'input', 'check_out_date'), at(g, 'input', 'check_out_date')) &&
          eq(at(r, 'output', 'hotels'), at(g, 'output', 'hotels'))
        );
      },
    };
  },
};

export const LikeCount = simple('LikeCount', [['post_id', 'int']], ({ post_id }) => {
  const table: V = { t: 'dict', entries: Array.from({ length: 15 }, (_, k) => [I(k + 1), I((k + 1) * 10)] as [V, V]) };
  if (!contains(table, post_id!)) raise('Exception', `Post with ID ${str(post_id!)} does not exist.`);
  return D({ like_count: getItem(table, post_id!) });
});

const MOVIES: Record<string, string[]> = {
  Action: ['The Dark Knight', 'The Matrix', 'The Lord of the Rings'],
  Comedy: ['The Hangover', 'Knives Out', 'Deadpool'],
  Drama: ['The Shawshank Redemption', 'Forrest Gump', 'Joker'],
  Romance: ['Titanic', 'La La Land', 'The Notebook'],
  Thriller: ['Inception', 'Parasite', 'Get Out'],
};
export const MovieRecommendations = simple('MovieRecommendations', [['preferences', 'list']], ({ preferences }) => {
  const table = D(Object.fromEntries(Object.entries(MOVIES).map(([k, v]) => [k, strs(...v)])));
  const out: V[] = [];
  for (const p of iter(preferences!)) out.push(...iter(getItem(table, p)));
  return D({ recommended_movies: L(out) });
});

export const NearbyRestaurants = simple(
  'NearbyRestaurants',
  [
    ['latitude', 'float'],
    ['longitude', 'float'],
    ['distance', 'int'],
  ],
  () =>
    D({
      restaurants: L(
        (
          [
            [40.7128, 74.006, 'Restaurant A'],
            [37.7749, 122.4194, 'Restaurant B'],
            [40.7128, 74.006, 'Restaurant C'],
            [37.7749, 122.4194, 'Restaurant D'],
          ] as const
        ).map(([la, lo, n]) => D({ coordinates: T([F(la), F(lo)]), name: S(n) })),
      ),
    }),
  (r, g) => {
    assertSameName(r, g);
    return eq(at(r, 'input'), at(g, 'input'));
  },
);

const ORGS: Record<string, string[]> = {
  Alibaba: ['John', 'Mary', 'Peter'],
  Tencent: ['Tom', 'Jerry'],
  Baidu: ['Jack', 'Rose'],
  ByteDance: ['Bob', 'Alice'],
  JD: ['Mike', 'Jane'],
};
const lookup = (table: Record<string, V>, k: V): V => getItem(D(table), k);
export const OrganizationMembers = simple('OrganizationMembers', [['organization', 'str']], ({ organization }) =>
  D({ members: lookup(Object.fromEntries(Object.entries(ORGS).map(([k, v]) => [k, strs(...v)])), organization!) }),
);

const meeting = (id: number, name: string, day: number, room: string, who: string[]): V =>
  D({
    meeting_id: I(id),
    meeting_name: S(name),
    meeting_time: S(`2021-01-0${day} 10:00:00`),
    meeting_location: S(room),
    meeting_attendees: strs(...who),
  });
export const QueryMeetingL3 = simple('QueryMeeting', [['user_name', 'str']], ({ user_name }) => {
  const three = ['John', 'Mary', 'Peter'];
  const pair = ['Tom', 'Jerry'];
  const big = (): V =>
    L([
      meeting(1, 'Meeting with the client', 1, 'Room 1', three),
      meeting(2, 'Meeting about the new project', 2, 'Room 2', three),
    ]);
  const small = (): V => L([meeting(1, 'Meeting', 1, 'Room 1', pair)]);
  return D({ meetings: lookup({ John: big(), Mary: big(), Peter: big(), Tom: small(), Jerry: small() }, user_name!) });
});

export const TaxCalculator = simple(
  'TaxCalculator',
  [['salary', 'float']],
  ({ salary }) => {
    // sorted(rates.items(), reverse=True): the first threshold the salary reaches gives the rate.
    const rates: Array<[number, number]> = [
      [Infinity, 0.4],
      [5000, 0.3],
      [3000, 0.2],
      [1000, 0.1],
      [0, 0.0],
    ];
    const hit = rates.find(([t]) => cmp(salary!, '>=', F(t)));
    if (!hit) raise('StopIteration', '');
    const s = (salary as { v: number }).v;
    return D({ salary_after_tax: F(s - s * hit![1]) });
  },
  (r, g) => {
    assertSameName(r, g);
    return (
      eq(at(r, 'input', 'salary'), at(g, 'input', 'salary')) &&
      eq(at(r, 'output', 'salary_after_tax'), at(g, 'output', 'salary_after_tax')) &&
      eq(at(r, 'exception'), at(g, 'exception'))
    );
  },
);

const TRAVEL: Record<string, string> = {
  John: 'Traveling',
  Mary: 'Working from home',
  Peter: 'Working from office',
  Tom: 'Traveling',
  Jerry: 'Working from home',
  Jack: 'Working from office',
  Rose: 'Working from office',
  Bob: 'Traveling',
  Alice: 'Working from home',
  Mike: 'Working from office',
  Jane: 'Working from office',
};
export const TravelStatus = simple('TravelStatus', [['member_name', 'str']], ({ member_name }) =>
  lookup(Object.fromEntries(Object.entries(TRAVEL).map(([k, v]) => [k, S(v)])), member_name!),
);

export const UserPosts = simple('UserPosts', [['user_id', 'int']], ({ user_id }) => {
  const table: V = {
    t: 'dict',
    entries: [1, 2, 3, 4, 5].map((u) => [I(u), L([I(3 * u - 2), I(3 * u - 1), I(3 * u)])] as [V, V]),
  };
  return D({ post_ids: getItem(table, user_id!) });
});

const WATCHED: Record<string, string[]> = {
  John: ['The Matrix', 'The Lord of the Rings', 'The Dark Knight'],
  Mary: ['The Lord of the Rings', 'The Dark Knight', 'The Matrix'],
  Peter: ['The Matrix', 'The Lord of the Rings', 'The Dark Knight'],
  Tom: ['The Lord of the Rings', 'The Dark Knight', 'The Matrix'],
  Jerry: ['The Matrix', 'The Lord of the Rings', 'The Dark Knight'],
};
export const UserWatchedMovies = simple('UserWatchedMovies', [['user_name', 'str']], ({ user_name }) => {
  const table = D(Object.fromEntries(Object.entries(WATCHED).map(([k, v]) => [k, strs(...v)])));
  if (!contains(table, user_name!)) raise('Exception', 'User not found.');
  return getItem(table, user_name!);
});

const PREFS: Record<string, string[]> = {
  John: ['Action', 'Comedy', 'Drama'],
  Mary: ['Comedy', 'Drama', 'Romance'],
  Peter: ['Action', 'Drama', 'Thriller'],
  Tom: ['Action', 'Comedy', 'Drama'],
  Jerry: ['Comedy', 'Drama', 'Romance'],
};
export const UserMoviePreferences = simple('UserMoviePreferences', [['user_name', 'str']], ({ user_name }) =>
  D({ preferences: lookup(Object.fromEntries(Object.entries(PREFS).map(([k, v]) => [k, strs(...v)])), user_name!) }),
);
