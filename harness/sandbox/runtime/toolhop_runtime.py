"""ToolHop dataset tools: the reference runner's loading and calling semantics, shared by both sandboxes.

Runs inside a sandbox worker (pyodide child process or CPython subprocess); never in the host process.
Written for CPython 3.11 (Debian's /usr/bin/python3) and 3.13 (pyodide 0.29).

One request in, one response out (`handle_json`). Every request carries its row's sources; they are compiled
and executed into a fresh namespace for each call. The worker runs each call on an interpreter state that no
earlier call has touched (a fork of the CPython worker, a restored heap in pyodide), so nothing here needs to
survive a call.
"""

import ast
import builtins as _builtins
import datetime as _datetime_module
import json
import math
import re
import sys
from datetime import date as _date
from datetime import datetime as _datetime_class
from datetime import timedelta as _timedelta

# Optional helpers the reference runner injects (None when the package is missing); filled by preload().
_pytz = None
_relativedelta = None
_format_date = None


def preload():
    """Import the optional helpers, as the reference runner does at import time."""
    global _pytz, _relativedelta, _format_date
    try:
        import pytz as _p
        _pytz = _p
    except Exception:
        _pytz = None
    try:
        from dateutil.relativedelta import relativedelta as _r
        _relativedelta = _r
    except Exception:
        _relativedelta = None
    try:
        from babel.dates import format_date as _f
        _format_date = _f
    except Exception:
        _format_date = None


class _DatetimeCompat:
    """`datetime` for snippets written against either `import datetime` or `from datetime import datetime`."""

    _CLASS_ATTRS = frozenset(
        ("combine", "fromisoformat", "fromtimestamp", "now", "strptime", "today", "utcfromtimestamp", "utcnow")
    )

    def __call__(self, *args, **kwargs):
        return _datetime_class(*args, **kwargs)

    def __getattr__(self, name):
        if name in self._CLASS_ATTRS and hasattr(_datetime_class, name):
            return getattr(_datetime_class, name)
        if hasattr(_datetime_module, name):
            return getattr(_datetime_module, name)
        return getattr(_datetime_class, name)


SAFE_IMPORT_ROOTS = frozenset(
    (
        "babel base64 binascii calendar cmath collections csv dateutil datetime decimal dicttoxml fractions functools "
        "holidays io itertools json locale math numbers numpy pytz re roman statistics string sympy time "
        "_strptime unicodedata urllib xml"
    ).split()
)


def _urllib_ok(name, fromlist):
    # Of urllib only urllib.parse is on the list (docs/toolhop.md, "Tools"); urllib.request would reach the network.
    if name.split(".", 1)[0] != "urllib":
        return True
    if name == "urllib":
        return all(str(f) == "parse" for f in (fromlist or ()))
    return name == "urllib.parse"


def _safe_import(name, globals=None, locals=None, fromlist=(), level=0):
    if level:
        raise ImportError("relative imports are not allowed in ToolHop snippets")
    root = str(name).split(".", 1)[0]
    if root not in SAFE_IMPORT_ROOTS or not _urllib_ok(str(name), fromlist):
        raise ImportError(f"import of {name!r} is not allowed in ToolHop snippets")
    return _builtins.__import__(name, globals, locals, fromlist, level)


_SAFE_BUILTIN_NAMES = (
    "abs all any ascii bin bool bytearray chr complex dict divmod enumerate Exception filter float format hex "
    "IndexError int isinstance iter KeyError len list map max min next NotImplementedError oct ord pow print "
    "range reversed round RuntimeError set sorted str sum TimeoutError TypeError tuple type ValueError "
    "ZeroDivisionError zip"
).split()

SAFE_BUILTINS = {"__build_class__": _builtins.__build_class__, "__import__": _safe_import}
SAFE_BUILTINS.update((n, getattr(_builtins, n)) for n in _SAFE_BUILTIN_NAMES)

_SAFE_EXCEPTION_BASES = frozenset(("Exception", "ValueError", "RuntimeError"))


def _is_docstring(node):
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)


def _is_trivial_exception_class(node):
    if node.decorator_list or node.keywords or not node.bases:
        return False
    if not all(isinstance(b, ast.Name) and b.id in _SAFE_EXCEPTION_BASES for b in node.bases):
        return False
    return all(isinstance(s, ast.Pass) or _is_docstring(s) for s in node.body)


class LoadError(Exception):
    """A function source that does not load (syntax error, no function, a failing default or decorator)."""


def reduce_source(source, row_id, index):
    """Keep top-level functions, docstrings and trivial exception classes; drop everything else."""
    tree = ast.parse(source)
    body = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            body.append(node)
        elif isinstance(node, ast.ClassDef) and _is_trivial_exception_class(node):
            body.append(node)
        elif _is_docstring(node):
            body.append(node)
    if not any(isinstance(n, ast.FunctionDef) for n in body):
        raise RuntimeError(f"ToolHop function source {row_id}/{index} defines no function")
    # Every kept statement comes from ast.parse with its locations, and a Module has none of its own: the code compiled
    # is the same without ast.fix_missing_locations, whose walk of every node cost as much as the parse.
    return ast.Module(body=body, type_ignores=[])


def compile_source(source, row_id, index):
    return compile(reduce_source(source, row_id, index), f"toolhop_{row_id}_{index}.py", "exec")


def new_namespace(row_id):
    return {
        "__builtins__": SAFE_BUILTINS,
        "__name__": f"toolhop_{row_id}",
        "date": _date,
        "datetime": _DatetimeCompat(),
        "format_date": _format_date,
        "math": math,
        "pytz": _pytz,
        "re": re,
        "relativedelta": _relativedelta,
        "timedelta": _timedelta,
    }


def _describe(exc):
    try:
        message = str(exc)
    except BaseException:
        message = f"<unprintable {type(exc).__name__}>"
    return type(exc).__name__, message


class _Row:
    """One row's sources and their compiled code (or the load error), compiled on first use."""

    __slots__ = ("row_id", "sources", "codes")

    def __init__(self, row_id, sources):
        self.row_id = row_id
        self.sources = sources
        self.codes = {}

    def code(self, index):
        if index not in self.codes:
            try:
                self.codes[index] = compile_source(self.sources[index], self.row_id, index)
            except BaseException as exc:  # SyntaxError, RecursionError on absurd nesting, ...
                t, m = _describe(exc)
                self.codes[index] = LoadError(f"{t}: {m}")
        got = self.codes[index]
        if isinstance(got, LoadError):
            raise got
        return got

    def _exec(self, namespace, index):
        try:
            exec(self.code(index), namespace)
        except LoadError:
            raise
        except BaseException as exc:  # default arguments and decorators run at load time
            t, m = _describe(exc)
            raise LoadError(f"{t}: {m}") from None

    def index_namespace(self, index):
        namespace = new_namespace(self.row_id)
        self._exec(namespace, index)
        return namespace

    def shared_namespace(self):
        namespace = new_namespace(self.row_id)
        for index in range(len(self.sources)):
            self._exec(namespace, index)
        return namespace

    def resolve(self, index, name):
        """The callable the reference runner would bind to the tool at schema position `index`."""
        fn = None
        if 0 <= index < len(self.sources):
            fn = self.index_namespace(index).get(name)
        if not callable(fn):
            fn = self.shared_namespace().get(name)
        return fn if callable(fn) else None


# The last row's compiled sources. A worker serves calls of one row back to back on the same interpreter state
# (pyodide), so the cache helps there; it is gone with the state once another row comes (and with the process
# on CPython).
_last_row = [None, None]


def _row_for(req):
    key = (str(req["row"]), tuple(str(s) for s in req["sources"]))
    if _last_row[0] != key:
        _last_row[0] = key
        _last_row[1] = _Row(req["row"], list(key[1]))
    return _last_row[1]


def handle(req):
    """Serve one request: op 'call' (run a tool) or 'check' (load it without calling)."""
    row = _row_for(req)
    name = str(req["name"])
    try:
        fn = row.resolve(int(req["index"]), name)
    except LoadError as exc:
        return {"kind": "load_error", "message": str(exc)}
    if fn is None:
        return {"kind": "not_found", "message": f"ToolHop function {name!r} not found in row {row.row_id}"}
    if req["op"] == "check":
        return {"kind": "ok", "content": ""}
    limit = int(req.get("maxChars", 1_000_000))
    try:
        result = fn(**json.loads(req["args"]))
        content = json.dumps(result, ensure_ascii=False, default=str)
    except BaseException as exc:  # SystemExit and friends too: the worker must survive the tool
        t, m = _describe(exc)
        del exc
        return _cut({"kind": "exception", "excType": t}, "message", m, limit)
    return _cut({"kind": "ok"}, "content", content, limit)


def _cut(resp, field, text, limit):
    """Text longer than `limit` characters is cut; `truncatedFrom` keeps its full length."""
    if len(text) > limit:
        resp[field] = text[:limit]
        resp["truncatedFrom"] = len(text)
    else:
        resp[field] = text
    return resp


def handle_json(line):
    """JSON in, JSON out (ASCII, so lone surrogates survive the trip to JavaScript)."""
    try:
        req = json.loads(line)
        rid = req.get("id")
    except BaseException as exc:
        t, m = _describe(exc)
        return json.dumps({"id": None, "kind": "crash", "message": f"bad request: {t}: {m}"})
    try:
        resp = handle(req)
    except BaseException as exc:  # MemoryError while building a response, a bug here, ...
        t, m = _describe(exc)
        resp = {"kind": "exception", "excType": t, "message": m[:10_000]}
    resp["id"] = rid
    try:
        return json.dumps(resp)
    except BaseException as exc:
        t, m = _describe(exc)
        return json.dumps({"id": rid, "kind": "exception", "excType": t, "message": m[:10_000]})


def handle_bytes(line, _handle=handle_json, _type=type, _str=str, _BaseException=BaseException):
    """`handle_json` for the pyodide worker: the answer as ASCII bytes, which JavaScript can measure before it
    copies them (a long Python str is slow to convert). Everything it uses is bound at definition time."""
    try:
        out = _handle(line)
        if _type(out) is _str:
            return _str.encode(out, "ascii", "backslashreplace")
    except _BaseException:
        pass
    return b'{"id": null, "kind": "crash", "message": "the runtime could not encode its answer"}'
