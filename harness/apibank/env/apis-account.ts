// API-Bank `apis/`: account, token, bank and alarm classes (CheckToken, GetUserToken, RegisterUser, DeleteAccount,
// ModifyPassword, ForgotPassword, OpenBankAccount, QueryBalance, AddAlarm, DeleteAlarm, ModifyAlarm, QueryAlarm).
import { at, wrap, type ApiDef, type TokenChecker } from './api-kit.ts';
import {
  PyExc,
  str as strOf,
  contains,
  D,
  delItem,
  eq,
  getItem,
  I,
  iter,
  len,
  NONE,
  raise,
  S,
  setItem,
  strip,
  strptime,
  truthy,
  type V,
} from './py.ts';

const TS = '%Y-%m-%d %H:%M:%S';
const db0 = (db: V | undefined): V => db ?? D({});

/** The exact check shared by many classes: input, output and exception all equal. */
export const exactCheck = (r: V, g: V): boolean =>
  eq(at(r, 'input'), at(g, 'input')) &&
  eq(at(r, 'output'), at(g, 'output')) &&
  eq(at(r, 'exception'), at(g, 'exception'));

export function makeTokenChecker(db: V): TokenChecker & { call(token: V): V } {
  const checkToken = (token: V): V => {
    for (const username of iter(db)) if (eq(at(getItem(db, username), 'token'), token)) return username;
    return raise('Exception', 'The token is invalid.');
  };
  return {
    checkToken,
    call: (token) => wrap(null, D({ token }), () => D({ username: checkToken(token) })),
  };
}

const needChecker = (tc: TokenChecker | undefined): TokenChecker => {
  if (!tc) raise('AttributeError', "'NoneType' object has no attribute 'check_token'");
  return tc!;
};

export const CheckToken: ApiDef = {
  name: 'CheckToken',
  inputParameters: [['token', 'str']],
  databaseName: 'Account',
  required: ['token'],
  make: (db) => {
    const tc = makeTokenChecker(db0(db));
    return { call: (a) => tc.call(a.token!), check: exactCheck };
  },
};

export const GetUserToken: ApiDef = {
  name: 'GetUserToken',
  inputParameters: [
    ['username', 'str'],
    ['password', 'str'],
  ],
  databaseName: 'Account',
  required: ['username', 'password'],
  make: (db0_) => {
    const db = db0(db0_);
    return {
      call: ({ username, password }) =>
        wrap('GetUserToken', D({ username: username!, password: password! }), () => {
          if (!contains(db, username!)) raise('Exception', 'The username does not exist.');
          if (!eq(at(getItem(db, username!), 'password'), password!)) raise('Exception', 'The password is incorrect.');
          return D({ token: at(getItem(db, username!), 'token') });
        }),
      check: exactCheck,
    };
  },
};

export const RegisterUser: ApiDef = {
  name: 'RegisterUser',
  inputParameters: [
    ['username', 'str'],
    ['password', 'str'],
    ['email', 'str'],
  ],
  databaseName: 'Account',
  required: ['username', 'password', 'email'],
  make: (db0_) => {
    const db = db0(db0_);
    let counter = 0;
    return {
      call: ({ username, password, email }) =>
        wrap(null, D({ username: username!, password: password!, email: email! }), () => {
          if (contains(db, username!)) raise('Exception', 'The username already exists.');
          // The class draws a random 18-character token; its check ignores the output unless the gold one is None.
          const token = S(`registered${String(++counter).padStart(8, '0')}`);
          setItem(db, username!, D({ password: password!, token, email: email! }));
          return D({ token });
        }),
      check: (r, g) => {
        if (eq(at(g, 'output'), NONE) && !eq(at(r, 'output'), NONE)) return false;
        return eq(at(r, 'input'), at(g, 'input')) && eq(at(r, 'exception'), at(g, 'exception'));
      },
    };
  },
};

export const DeleteAccount: ApiDef = {
  name: 'DeleteAccount',
  inputParameters: [['token', 'str']],
  databaseName: 'Account',
  required: ['token'],
  make: (db0_, tc) => {
    const db = db0(db0_);
    return {
      call: ({ token }) =>
        wrap(null, D({ token: token! }), () => {
          if (!tc) raise('Exception', 'Lack of token checker.');
          tc!.checkToken(token!);
          const username = tc!.checkToken(token!);
          if (contains(db, username)) {
            delItem(db, username);
            return D({ status: S('success') });
          }
          return raise('Exception', 'No such user.');
        }),
      check: exactCheck,
    };
  },
};

export const ModifyPassword: ApiDef = {
  name: 'ModifyPassword',
  inputParameters: [
    ['token', 'str'],
    ['old_password', 'str'],
    ['new_password', 'str'],
  ],
  databaseName: 'Account',
  required: ['token', 'old_password', 'new_password'],
  make: (db0_, tc) => {
    const db = db0(db0_);
    return {
      call: ({ token, old_password, new_password }) =>
        wrap('ModifyPassword', D({ token: token!, old_password: old_password!, new_password: new_password! }), () => {
          const username = needChecker(tc).checkToken(token!);
          if (!eq(at(getItem(db, username), 'password'), old_password!))
            raise('Exception', 'The old password is incorrect.');
          setItem(getItem(db, username), 'password', new_password!);
          return D({ status: S('success') });
        }),
      check: (r, g) =>
        eq(at(r, 'input'), at(g, 'input')) &&
        eq(at(r, 'exception'), at(g, 'exception')) &&
        eq(at(r, 'output'), at(g, 'output')),
    };
  },
};

export const ForgotPassword: ApiDef = {
  name: 'ForgotPassword',
  inputParameters: [
    ['status', 'str'],
    ['username', 'str'],
    ['email', 'str'],
    ['verification_code', 'int'],
    ['new_password', 'str'],
  ],
  databaseName: 'Account',
  required: ['status'],
  varKw: true,
  make: (db0_) => {
    const db = db0(db0_);
    let code: V = NONE;
    let user: V = NONE;
    return {
      call: ({ status }, extra) => {
        const input = D({ status: status! });
        for (const [k, v] of extra) setItem(input, k, v);
        const kw = D({});
        for (const [k, v] of extra) setItem(kw, k, v);
        return wrap(null, input, () => {
          if (eq(status!, S('Forgot Password'))) {
            if (!contains(kw, 'username') || !contains(kw, 'email')) {
              raise('Exception', 'The username and email are required for the first call.');
            }
            const username = getItem(kw, 'username');
            const email = getItem(kw, 'email');
            if (!contains(db, username)) raise('Exception', 'The username does not exist.');
            if (!eq(at(getItem(db, username), 'email'), email)) raise('Exception', 'The email is incorrect.');
            code = I(970420);
            user = username;
            return code;
          }
          if (eq(status!, S('Verification Code'))) {
            if (!truthy(code)) raise('Exception', "You need to call the API with status 'Forgot Password' at first.");
            if (!contains(kw, 'new_password') || !contains(kw, 'verification_code')) {
              raise('Exception', 'The new password and verification code are required for the second call.');
            }
            if (eq(code, getItem(kw, 'verification_code'))) {
              setItem(getItem(db, user), 'password', getItem(kw, 'new_password'));
              return S('success');
            }
            return raise('Exception', 'The verification code is incorrect.');
          }
          return raise('Exception', "The status is only 'Forgot Password' or 'Verification Code'.");
        });
      },
      check: exactCheck,
    };
  },
};

export const OpenBankAccount: ApiDef = {
  name: 'OpenBankAccount',
  inputParameters: [
    ['account', 'str'],
    ['password', 'str'],
    ['name', 'str'],
  ],
  required: ['account', 'password', 'name'],
  make: () => {
    const db: V = { t: 'dict', entries: [[I(0), D({ account: S('test'), password: S('test'), name: S('yifei') })]] };
    return {
      call: ({ account, password, name }) =>
        wrap('OpenBankAccount', D({ account: account!, password: password!, name: name! }), () => {
          for (const k of iter(db)) if (eq(at(getItem(db, k), 'account'), account!)) return S('failed');
          setItem(db, I(len(db) + 1), D({ account: account!, password: password!, name: name! }));
          return S('success');
        }),
      check: exactCheck,
    };
  },
};

export const QueryBalance: ApiDef = {
  name: 'QueryBalance',
  inputParameters: [['token', 'str']],
  databaseName: 'Bank',
  required: ['token'],
  make: (db0_, tc) => {
    const db = db0(db0_);
    if (!tc) raise('AssertionError', '');
    return {
      call: ({ token }) =>
        wrap('QueryBalance', D({ token: token! }), () => {
          let username: V;
          try {
            strip(token!);
            username = tc!.checkToken(token!);
          } catch (err) {
            if (!(err instanceof PyExc)) throw err;
            return raise('Exception', 'The token is incorrect.');
          }
          if (!contains(db, username)) raise('Exception', 'The user does not have an account.');
          return at(getItem(db, username), 'balance');
        }),
      check: (r, g) => {
        const rt = strip(at(r, 'input', 'token'));
        const gt = strip(at(g, 'input', 'token'));
        return rt === gt && eq(at(r, 'output'), at(g, 'output')) && eq(at(r, 'exception'), at(g, 'exception'));
      },
    };
  },
};

const tokenTime: ReadonlyArray<readonly [string, string]> = [
  ['token', 'str'],
  ['time', 'str'],
];

export const AddAlarm: ApiDef = {
  name: 'AddAlarm',
  inputParameters: tokenTime,
  databaseName: 'Alarm',
  required: ['token', 'time'],
  make: (db0_, tc) => {
    const db = db0(db0_);
    return {
      call: ({ token, time }) =>
        wrap('AddAlarm', D({ token: token!, time: time! }), () => {
          strptime(time!, TS);
          const id = I(len(db) + 1);
          const username = needChecker(tc).checkToken(token!);
          setItem(db, id, D({ username, time: time! }));
          return S('success');
        }),
      check: exactCheck,
    };
  },
};

export const DeleteAlarm: ApiDef = {
  name: 'DeleteAlarm',
  inputParameters: tokenTime,
  databaseName: 'Alarm',
  required: ['token', 'time'],
  make: (db0_, tc) => {
    const db = db0(db0_);
    return {
      call: ({ token, time }) =>
        wrap('DeleteAlarm', D({ token: token!, time: time! }), () => {
          strptime(time!, TS);
          let deleted = false;
          const username = needChecker(tc).checkToken(token!);
          for (const k of iter(db)) {
            const row = getItem(db, k);
            if (eq(at(row, 'username'), username) && eq(at(row, 'time'), time!)) {
              delItem(db, k);
              deleted = true;
              break;
            }
          }
          if (!deleted && truthy(time!)) raise('Exception', `You have no alarm clock at time : ${strOf(time!)}`);
          return S('success');
        }),
      check: exactCheck,
    };
  },
};

export const ModifyAlarm: ApiDef = {
  name: 'ModifyAlarm',
  inputParameters: [
    ['token', 'str'],
    ['from_time', 'str'],
    ['to_time', 'str'],
  ],
  databaseName: 'Alarm',
  required: ['token', 'from_time', 'to_time'],
  make: (db0_, tc) => {
    const db = db0(db0_);
    return {
      call: ({ token, from_time, to_time }) =>
        wrap('ModifyAlarm', D({ token: token!, from_time: from_time!, to_time: to_time! }), () => {
          strptime(from_time!, TS);
          strptime(to_time!, TS);
          const username = needChecker(tc).checkToken(token!);
          for (const k of iter(db)) {
            const row = getItem(db, k);
            if (eq(at(row, 'username'), username) && eq(at(row, 'time'), from_time!)) {
              setItem(db, k, D({ username, time: to_time! }));
              return S('success');
            }
          }
          return raise('Exception', `You have no agenda at time : ${strOf(from_time!)}`);
        }),
      check: exactCheck,
    };
  },
};

export const QueryAlarm: ApiDef = {
  name: 'QueryAlarm',
  inputParameters: tokenTime,
  databaseName: 'Alarm',
  required: ['token', 'time'],
  make: (db0_, tc) => {
    const db = db0(db0_);
    return {
      call: ({ token, time }) =>
        wrap('QueryAlarm', D({ token: token!, time: time! }), () => {
          strptime(time!, TS);
          const username = needChecker(tc).checkToken(token!);
          for (const k of iter(db)) {
            const row = getItem(db, k);
            if (eq(at(row, 'username'), username) && eq(at(row, 'time'), time!)) return row;
          }
          return raise('Exception', `You have no alarm clock at time : ${strOf(time!)}`);
        }),
      check: exactCheck,
    };
  },
};
