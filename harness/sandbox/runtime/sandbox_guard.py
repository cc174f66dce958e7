"""In-interpreter hardening for the sandbox workers (one layer of several; see harness/sandbox/README.md).

Called once, after set-up and before any dataset code runs:
- `harden_pyodide(read_roots)` cuts every Python-side path to JavaScript (js, pyodide_js, _pyodide_core, JsProxy
  values) and drops socket/subprocess/ctypes from sys.modules;
- `harden_cpython(read_roots)` drops socket/subprocess/ctypes from sys.modules;
- both install an audit hook (PEP 578; it cannot be removed) that refuses process creation, sockets, ctypes,
  gc walking, rlimit changes, file-system writes, file reads outside `read_roots`, and any file access, exec,
  compile or code/function construction made directly by dataset code (frames compiled as
  `toolhop_<row>_<index>.py`).
"""

import os
import sys
import types

# Modules nobody may import once the guard is up (the bridges to JavaScript, and ctypes).
ALWAYS_DENIED_ROOTS = frozenset("js pyodide pyodide_js _pyodide _pyodide_core micropip ctypes _ctypes".split())
# Modules dataset code may not import even with the real __import__ in hand; allowed modules may still
# import them for their own use (sympy imports subprocess, urllib.request imports socket): what they do with
# them is what the audit hook below refuses.
DATASET_DENIED_ROOTS = frozenset(
    (
        "subprocess _posixsubprocess socket _socket ssl _ssl multiprocessing _multiprocessing mmap pty fcntl "
        "termios resource select selectors"
    ).split()
)
DENY_IMPORT_ROOTS = ALWAYS_DENIED_ROOTS | DATASET_DENIED_ROOTS

_DENY_EVENTS = frozenset(
    (
        "subprocess.Popen os.system os.exec os.posix_spawn os.spawn os.fork os.forkpty os.kill os.killpg "
        "pty.spawn gc.get_objects gc.get_referrers gc.get_referents resource.setrlimit "
        "resource.prlimit os.remove os.rename os.rmdir os.mkdir os.symlink os.link os.chmod os.chown "
        "os.chflags os.lchflags os.lchmod os.lchown os.truncate os.utime os.mkfifo os.mknod os.chdir "
        "os.setxattr os.removexattr os.startfile sys.remote_exec"
    ).split()
)
_DENY_PREFIXES = ("socket.", "ctypes.", "ssl.", "mmap.", "shutil.", "winreg.", "_winapi.")
# Refused only when dataset code itself raises them (numpy builds code objects; namedtuple execs).
_DATASET_DENY_EVENTS = frozenset(("exec", "compile", "code.__new__", "function.__new__"))
_PATH_EVENTS = frozenset(("open", "os.listdir", "os.scandir", "glob.glob", "os.walk", "os.fwalk", "os.getxattr"))
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND

_read_roots = ()
_installed = False


def _import_denied(name):
    root = str(name).split(".", 1)[0]
    if root in ALWAYS_DENIED_ROOTS:
        return True
    return root in DATASET_DENIED_ROOTS and _from_dataset(3, skip_import_machinery=True)


class _ImportBlocker:
    """First finder on sys.meta_path: refuses denied modules before any other finder is asked."""

    @staticmethod
    def find_spec(name, path=None, target=None):
        if _import_denied(name):
            raise ImportError(f"import of {name!r} is blocked in the ToolHop sandbox")
        return None

    @staticmethod
    def invalidate_caches():
        pass


_RUNTIME_FILE = "toolhop_runtime.py"


def _from_dataset(depth=2, skip_import_machinery=False):
    """Whether the Python frame that raised the event (`depth` frames up) is dataset code.

    For imports, the frames of importlib and of the runtime's safe __import__ are skipped, so the answer is
    about the code that asked for the module.
    """
    try:
        frame = sys._getframe(depth)
    except ValueError:
        return False
    if skip_import_machinery:
        while frame is not None:
            filename = frame.f_code.co_filename
            if not (filename.startswith("<frozen importlib") or filename.endswith(_RUNTIME_FILE)):
                break
            frame = frame.f_back
        if frame is None:
            return False
    return frame.f_code.co_filename.startswith("toolhop_")


def _under_roots(path):
    if isinstance(path, int):
        return False
    try:
        real = os.path.realpath(os.fsdecode(path))
    except Exception:
        return False
    return any(real == root or real.startswith(root.rstrip("/") + "/") for root in _read_roots)


def _is_write(args):
    mode = args[1] if len(args) > 1 else None
    flags = args[2] if len(args) > 2 else 0
    if isinstance(mode, str) and any(c in mode for c in "wax+"):
        return True
    return isinstance(flags, int) and bool(flags & _WRITE_FLAGS)


def _audit(event, args):
    if event in _DENY_EVENTS or event.startswith(_DENY_PREFIXES):
        raise PermissionError(f"{event} is not allowed in the ToolHop sandbox")
    if event == "import":
        if _import_denied(args[0]):
            raise ImportError(f"import of {args[0]!r} is blocked in the ToolHop sandbox")
        return
    if event in _PATH_EVENTS:
        path = args[0] if args else "."
        if event == "open" and _is_write(args):
            raise PermissionError(f"writing {path!r} is not allowed in the ToolHop sandbox")
        if _from_dataset() or not _under_roots("." if path is None else path):
            raise PermissionError(f"access to {path!r} is not allowed in the ToolHop sandbox")
        return
    if event in _DATASET_DENY_EVENTS and _from_dataset():
        raise PermissionError(f"{event} is not allowed in ToolHop snippets")


def _drop_modules():
    for name in list(sys.modules):
        if name.split(".", 1)[0] in DENY_IMPORT_ROOTS:
            del sys.modules[name]


def install(read_roots):
    """Install the import blocker and the audit hook (idempotent)."""
    global _read_roots, _installed
    if _installed:
        return
    _read_roots = tuple(os.path.realpath(r) for r in read_roots)
    sys.meta_path.insert(0, _ImportBlocker())
    sys.dont_write_bytecode = True
    sys.addaudithook(_audit)
    _installed = True


def harden_cpython(read_roots):
    _drop_modules()
    install(read_roots)


def harden_pyodide(read_roots):
    """Remove every Python-side reference to JavaScript that set-up left behind, then install the guard."""
    scrub_pyodide()
    install(read_roots)


def scrub_pyodide():
    core = sys.modules.get("_pyodide_core")
    # Only the JavaScript bridges are scrubbed from other modules' namespaces; socket, subprocess & co. are
    # merely dropped from sys.modules (libraries keep their references; using them is what the hook refuses).
    denied = {id(m): m for n, m in sys.modules.items() if n.split(".", 1)[0] in ALWAYS_DENIED_ROOTS}
    # JsProxy values are instances of the types pyodide keeps in _pyodide_core.jsproxy_typedict.
    proxy_types = {t for t in getattr(core, "jsproxy_typedict", {}).values() if isinstance(t, type)}
    builtin_function = types.BuiltinFunctionType

    def dangerous(value):
        t = type(value)
        if t in proxy_types or id(value) in denied:
            return True
        return t is builtin_function and value.__self__ is core and core is not None

    # The JS import hook keeps `js` and `pyodide_js` in a dict of its own.
    for finder in list(sys.meta_path):
        if type(finder).__name__ == "JsFinder":
            sys.meta_path.remove(finder)
            for value in vars(finder).values():
                if isinstance(value, dict):
                    value.clear()
    # Module globals are where set-up left JS proxies and _pyodide_core functions (and functions defined in
    # those modules reach them through __globals__): scrub every module's namespace, kept or dropped.
    for module in list(sys.modules.values()) + list(denied.values()):
        if type(module) is not types.ModuleType:
            continue
        namespace = module.__dict__
        for key in [k for k, v in list(namespace.items()) if dangerous(v)]:
            del namespace[key]
    # CPython keeps a copy of a single-phase extension module's dict to re-create it on a later import;
    # `_imp.create_builtin` (reachable from importlib's globals) would hand out a fresh `_pyodide_core` from it.
    if core is not None:
        import gc

        live = core.__dict__
        for obj in gc.get_objects():
            if type(obj) is dict and obj is not live and obj.get("__name__") == "_pyodide_core":
                obj.clear()
    _drop_modules()
