# What a row could reach of JavaScript once the pyodide worker has removed Python's references to it, found
# independently of sandbox_guard.scrub_pyodide: that walks back from the JavaScript objects to their holders; this
# walks forward from what a row can name, through everything each object refers to (containers gc does not track
# included), and reports every JavaScript-holding object it reaches. Run by the worker before its guard refuses gc
# (scrub-audit.test.ts); the value of the last expression is the report, as JSON.
import json


def _audit():
    import builtins
    import gc
    import sys

    bridges = ("js", "pyodide", "pyodide_js", "_pyodide", "_pyodide_core", "micropip")
    # Roots: the module table, the builtins, sys, and every class (object.__subclasses__() lists them all).
    roots = [sys.modules, builtins.__dict__, sys.__dict__]
    classes = [object]
    named = set()
    while classes:
        cls = classes.pop()
        if id(cls) in named:
            continue
        named.add(id(cls))
        roots.append(cls)
        classes.extend(type.__subclasses__(cls))  # not cls.__subclasses__(): a metaclass's needs an argument
    reached = {}
    pending = roots
    while pending:
        obj = pending.pop()
        if id(obj) in reached:
            continue
        reached[id(obj)] = obj
        pending.extend(gc.get_referents(obj))
    found = []
    for obj in reached.values():
        cls = type(obj)
        if cls.__name__ == "module" and obj.__name__.split(".")[0] in bridges:
            found.append("module " + obj.__name__)
        elif cls.__name__ == "builtin_function_or_method" and (
            getattr(obj, "__module__", None) == "_pyodide_core"
            or getattr(getattr(obj, "__self__", None), "__name__", None) == "_pyodide_core"
        ):
            found.append("_pyodide_core function " + obj.__name__)
        elif not isinstance(obj, type) and (
            type(cls).__name__ == "_JsProxyMetaClass" or cls.__name__.startswith("JsProxy")
        ):
            found.append("JavaScript object (" + cls.__name__ + ")")
    return json.dumps({"reached": len(reached), "found": sorted(found)})


_audit()
