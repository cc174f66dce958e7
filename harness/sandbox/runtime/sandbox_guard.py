"""In-interpreter guard of the sandbox workers (one layer of several; see harness/sandbox/README.md).

`install(read_roots)` adds a PEP 578 audit hook (it cannot be removed) that refuses process creation, signals,
sockets, ctypes, gc walking, rlimit changes, tracing, new audit hooks, file-system writes, file reads outside
`read_roots`, and file access, exec, compile, code/function construction and frame access made directly by
dataset code (frames compiled as `toolhop_<row>_<index>.py`). `scrub_pyodide()` first cuts every Python-side
path to JavaScript.

Dataset code can always reach `sys` and every module (any Python function's `__globals__` leads there), so
nothing here relies on hiding them. Instead the hook keeps no state a row can change:
- its whole configuration is in its default arguments (copied into each call's frame: rewriting the locals
  of a finished hook frame, which Python 3.13 allows through `frame.f_locals`, changes nothing later);
- it calls only C functions captured at install time, never Python code a row could patch or reach through
  its arguments (paths must be exact `str`/`bytes`; anything else is refused);
- its globals are an empty private dict (a stray name lookup fails closed with NameError);
- no module, class or other object refers to it: this module is removed from `sys.modules` after install.
"""

import sys

# Modules nobody may import once the guard is up (the bridges to JavaScript, and ctypes).
ALWAYS_DENIED_ROOTS = frozenset("js pyodide pyodide_js _pyodide _pyodide_core micropip ctypes _ctypes".split())
# Modules dataset code may not import even with the real __import__ in hand; allowed modules may still
# import them for their own use (sympy imports subprocess, urllib.request imports socket): what they do with
# them is what the hook refuses.
DATASET_DENIED_ROOTS = frozenset(
    (
        "subprocess _posixsubprocess socket _socket ssl _ssl multiprocessing _multiprocessing mmap pty fcntl "
        "termios resource select selectors"
    ).split()
)
# Dropped from sys.modules at set-up (libraries keep their own references; the hook refuses their use).
DROPPED_ROOTS = ALWAYS_DENIED_ROOTS | DATASET_DENIED_ROOTS
# Not dropped (libraries share them), but not for dataset code to import either.
DATASET_DENIED_IMPORTS = DATASET_DENIED_ROOTS | frozenset("signal _signal _thread threading gc inspect".split())

DENY_EVENTS = frozenset(
    (
        "subprocess.Popen os.system os.exec os.posix_spawn os.spawn os.fork os.forkpty os.kill os.killpg "
        "signal.pthread_kill pty.spawn gc.get_objects gc.get_referrers gc.get_referents resource.setrlimit "
        "resource.prlimit os.remove os.rename os.rmdir os.mkdir os.symlink os.link os.chmod os.chown "
        "os.chflags os.lchflags os.lchmod os.lchown os.truncate os.utime os.mkfifo os.mknod os.chdir "
        "os.setxattr os.removexattr os.startfile sys.remote_exec sys.addaudithook sys.settrace sys.setprofile "
        "sys._settraceallthreads sys._setprofileallthreads sys.monitoring.register_callback "
        "builtins.input tempfile.mkstemp tempfile.mkdtemp _thread.start_new_thread"
    ).split()
)
DENY_PREFIXES = ("socket.", "ctypes.", "ssl.", "mmap.", "shutil.", "winreg.", "_winapi.", "sqlite3.", "webbrowser.")
# Refused only when dataset code itself raises them (numpy builds code objects, namedtuple execs, babel
# unpickles its locale data).
DATASET_DENY_EVENTS = frozenset(
    "exec compile code.__new__ function.__new__ marshal.loads marshal.load pickle.find_class".split()
)
PATH_EVENTS = frozenset(("open", "os.listdir", "os.scandir", "glob.glob", "os.walk", "os.fwalk", "os.getxattr", "os.listxattr"))
# Frame attributes CPython audits as object.__getattr__: refused to dataset code (a row has no use for them).
DATASET_DENY_ATTRS = frozenset(("tb_frame", "gi_frame", "cr_frame", "ag_frame"))


def build_hook(read_roots):
    """The audit hook for `read_roots` (absolute paths, symlinks resolved), as a function with private state."""
    import os
    import posix
    import types

    roots = tuple(r.rstrip("/") or "/" for r in read_roots)

    def hook(
        event,
        args,
        _deny=DENY_EVENTS,
        _deny_prefixes=DENY_PREFIXES,
        _dataset_deny=DATASET_DENY_EVENTS,
        _path_events=PATH_EVENTS,
        _deny_attrs=DATASET_DENY_ATTRS,
        _always_roots=ALWAYS_DENIED_ROOTS,
        _dataset_roots=DATASET_DENIED_IMPORTS,
        _roots=roots,
        _write_flags=os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND,
        _getframe=sys._getframe,
        _lstat=posix.lstat,
        _readlink=posix.readlink,
        _getcwd=posix.getcwd,
        _str=str,
        _bytes=bytes,
        _int=int,
        _type=type,
        _len=len,
        _repr=repr,
        _none=type(None),
        _OSError=OSError,
        _PermissionError=PermissionError,
        _ImportError=ImportError,
    ):
        if event in _deny or event.startswith(_deny_prefixes):
            raise _PermissionError(event + " is not allowed in the ToolHop sandbox")
        is_import = event == "import"
        if is_import:
            name = args[0]
            if _type(name) is not _str:
                raise _ImportError("import of a non-str module name is blocked in the ToolHop sandbox")
            root = name.partition(".")[0]
            if root in _always_roots:
                raise _ImportError("import of " + _repr(name) + " is blocked in the ToolHop sandbox")
            if root not in _dataset_roots:
                return
        elif event == "object.__getattr__":
            if args[1] not in _deny_attrs:
                return
        elif event not in _path_events and event not in _dataset_deny:
            return

        # Who raised the event: the nearest frame outside the import machinery and the runtime's __import__.
        frame = _getframe(1)
        if is_import:
            while frame is not None:
                filename = frame.f_code.co_filename
                if _type(filename) is not _str:
                    break
                if not (filename.startswith("<frozen importlib") or filename.endswith("toolhop_runtime.py")):
                    break
                frame = frame.f_back
        from_dataset = False
        if frame is not None:
            filename = frame.f_code.co_filename
            from_dataset = _type(filename) is not _str or filename.startswith("toolhop_")

        if is_import:
            if from_dataset:
                raise _ImportError("import of " + _repr(args[0]) + " is blocked in the ToolHop sandbox")
            return
        if event == "object.__getattr__" or event in _dataset_deny:
            if from_dataset:
                raise _PermissionError(event + " is not allowed in ToolHop snippets")
            return

        # A path event. Only exact str/bytes paths are looked at (and None for "."): anything else could run
        # code while the hook decides. File descriptors are refused: they stand for files opened elsewhere.
        path = args[0] if args else None
        t = _type(path)
        if t is _none:
            path = "."
        elif t is _bytes:
            path = path.decode("utf-8", "surrogateescape")
        elif t is not _str:
            raise _PermissionError("access through anything but a str or bytes path is not allowed in the ToolHop sandbox")
        if event == "open" and _len(args) > 1:
            mode = args[1]
            flags = args[2] if _len(args) > 2 else 0
            if _type(mode) is _str and ("w" in mode or "a" in mode or "x" in mode or "+" in mode):
                raise _PermissionError("writing " + _repr(path) + " is not allowed in the ToolHop sandbox")
            if _type(flags) is not _int or flags & _write_flags:
                raise _PermissionError("writing " + _repr(path) + " is not allowed in the ToolHop sandbox")
        if from_dataset:
            raise _PermissionError("access to " + _repr(path) + " is not allowed in the ToolHop sandbox")

        # Resolve symlinks with lstat/readlink (as os.path.realpath would, without calling Python code).
        if not path.startswith("/"):
            path = _getcwd() + "/" + path
        pending = path.split("/")
        pending.reverse()
        resolved = []
        hops = 0
        while pending:
            part = pending.pop()
            if part == "" or part == ".":
                continue
            if part == "..":
                if resolved:
                    resolved.pop()
                continue
            candidate = "/" + "/".join(resolved) + ("/" if resolved else "") + part
            try:
                is_link = (_lstat(candidate).st_mode & 0o170000) == 0o120000
            except _OSError:
                is_link = False
            if not is_link:
                resolved.append(part)
                continue
            hops += 1
            if hops > 40:
                raise _PermissionError("too many symlinks in " + _repr(path))
            target = _readlink(candidate)
            if target.startswith("/"):
                resolved = []
            more = target.split("/")
            more.reverse()
            pending.extend(more)
        real = "/" + "/".join(resolved)
        for root in _roots:
            if real == root or real.startswith(root + "/") or root == "/":
                return
        raise _PermissionError("access to " + _repr(path) + " is not allowed in the ToolHop sandbox")

    # Private globals with no builtins: the hook uses only its arguments, and a slip fails closed.
    private = types.FunctionType(hook.__code__, {"__builtins__": {}}, "toolhop_audit_hook", hook.__defaults__)
    return private


def _drop_modules():
    for name in list(sys.modules):
        if name.split(".", 1)[0] in DROPPED_ROOTS:
            del sys.modules[name]


def install(read_roots):
    """Add the audit hook, then forget this module. Call once, after set-up, before any dataset code."""
    import os

    hook = build_hook([os.path.realpath(r) for r in read_roots])
    sys.dont_write_bytecode = True
    sys.addaudithook(hook)
    # Nothing needs to import them again; a row that wants them must find them some other way.
    for name in ("sandbox_guard", "toolhop_runtime"):
        sys.modules.pop(name, None)


def install_json(read_roots_json):
    """`install` for callers that can only pass text (pyodide after scrub_pyodide: no JavaScript objects)."""
    import json

    install(json.loads(read_roots_json))


def harden_cpython():
    """Drop process, socket and thread modules from sys.modules (libraries keep their own references)."""
    _drop_modules()


def scrub_pyodide():
    """Remove every Python-side reference to JavaScript that pyodide's set-up left behind.

    Cut: JsProxy values (each holds a JavaScript object), `_pyodide_core`'s functions, the bridge modules, and
    the JS import hook with its tables. Returns how many references to a JavaScript object or a bridge gc can
    still find from any Python object afterwards: 0 is the goal, and what the worker reports.
    """
    import gc

    core = sys.modules.get("_pyodide_core")
    ffi = sys.modules.get("pyodide.ffi")
    live = core.__dict__ if core is not None else {}
    bridges = [m for n, m in sys.modules.items() if n.split(".", 1)[0] in ALWAYS_DENIED_ROOTS]
    bridges += [v for v in live.values() if type(v).__name__ == "builtin_function_or_method"]
    finders = [f for f in sys.meta_path if type(f).__name__ == "JsFinder"]
    for finder in finders:
        sys.meta_path.remove(finder)
    _drop_modules()

    # Frozen objects are invisible to gc's walks below: back into the oldest generation with them.
    gc.unfreeze()
    objects = gc.get_objects()
    # JsProxy classes are the instances of pyodide's metaclass (and what _pyodide_core made); their
    # instances hold JavaScript objects, the classes themselves hold none.
    meta = getattr(ffi, "_JsProxyMetaClass", None)
    method = type(scrub_pyodide.__get__(0))
    # One pass over gc's objects, which hold every bound method (gc tracks them from birth and never lets go):
    # the import hook's methods, and the dicts named `_pyodide_core` (the module's own, and the copy CPython
    # keeps of a single-phase extension module's dict to re-create it on a later import: `_imp.create_builtin`,
    # reachable from importlib's globals, would hand out a fresh `_pyodide_core` from it).
    proxy_types = set()
    hooks = {}
    core_dicts = []
    for o in objects:
        t = type(o)
        if t is meta:
            proxy_types.add(o)
        elif t is method:
            if o.__self__ in finders:
                hooks[id(o)] = o
        elif t is dict and o is not live and o.get("__name__") == "_pyodide_core":
            core_dicts.append(o)
    proxy_types.update(t for t in getattr(core, "jsproxy_typedict", {}).values() if isinstance(t, type))
    # JsProxy values are not tracked by gc: found among what gc's objects refer to.
    refs = gc.get_referents(*objects)
    del objects
    js = {id(r): r for r in refs if type(r) in proxy_types}
    js.update((id(b), b) for b in bridges)
    del refs, bridges
    bad = {**js, **hooks}
    mine = {id(js), id(hooks), id(bad), id(live)}

    def dangerous(value):
        return id(value) in bad

    # Mutable holders lose the reference; an immutable one (a tuple) becomes dangerous itself, so that its own
    # holders lose it in the next round. The targets go to gc as a tuple known to be scratch: given a list, the
    # call makes a tuple of it that gc reports as a holder of every target (and the next round chases that).
    targets = tuple(bad.values())
    for _ in range(4):
        mine.add(id(targets))
        immutable = []
        for holder in gc.get_referrers(*targets) if targets else ():
            if id(holder) in mine or id(holder) in bad:
                continue
            if type(holder) in (tuple, frozenset):
                immutable.append(holder)
            else:
                _cut(holder, dangerous)
        bad.update((id(t), t) for t in immutable)
        targets = tuple(immutable)
    del targets, immutable
    for finder in finders:
        finder.__dict__.clear()  # the import hook's own tables of JavaScript objects
    for obj in core_dicts:
        obj.clear()
    live.clear()
    del finders, hooks, bad, core_dicts
    gc.collect()
    # What is left: holders that some Python object refers to. Not counted: a few tuples that only C code holds
    # (pyodide's set-up arguments), reachable from Python through gc alone, which the guard refuses; and
    # pyodide's JavaScript-side proxies of bound methods of the emptied import hook.
    values = tuple(js.values())
    scratch = {id(js), id(values)}
    left = [h for h in gc.get_referrers(*values) if id(h) not in scratch and id(h) not in js] if values else []
    scratch.add(id(left))
    count = 0
    for holder in left:
        if _referred(holder, scratch, gc):
            count += 1
    return count


def _referred(obj, scratch, gc, depth=0):
    """Whether a Python object refers to `obj` (through tuples, which cannot be cut, up to a few levels).

    Plain loops only: a generator's frame would itself refer to the object it looks at.
    """
    if type(obj) is not tuple or depth > 4:
        return True
    holders = gc.get_referrers(obj)
    scratch.add(id(holders))
    for holder in holders:
        if id(holder) not in scratch and _referred(holder, scratch, gc, depth + 1):
            return True
    return False


def _cut(obj, dangerous):
    """Drop the dangerous references one container holds (in place; immutable containers are left)."""
    t = type(obj)
    if isinstance(obj, dict):
        for key in [k for k, v in list(obj.items()) if dangerous(v) or dangerous(k)]:
            del obj[key]
    elif isinstance(obj, list):
        obj[:] = [v for v in obj if not dangerous(v)]
    elif isinstance(obj, set):
        for v in [v for v in obj if dangerous(v)]:
            obj.discard(v)
    elif t.__name__ == "cell":
        obj.cell_contents = None
    elif t.__name__ == "function":
        if obj.__defaults__ and any(dangerous(v) for v in obj.__defaults__):
            obj.__defaults__ = tuple(None if dangerous(v) else v for v in obj.__defaults__)
        for k, v in list((obj.__kwdefaults__ or {}).items()):
            if dangerous(v):
                obj.__kwdefaults__[k] = None
    elif t.__name__ == "method" and dangerous(obj.__self__):
        pass  # a bound method of the import hook: the hook's tables are emptied above
    elif isinstance(getattr(obj, "__dict__", None), dict):
        _cut(obj.__dict__, dangerous)
