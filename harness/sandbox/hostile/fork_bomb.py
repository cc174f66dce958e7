# Processes and threads: os.fork, the unaudited _posixsubprocess.fork_exec, and a crowd of threads.
def attack():
    sys = reach_sys()
    os = sys.modules["os"]
    out = {}

    def fork():
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        return pid

    out["fork"] = attempt(fork)

    def fork_exec():
        spawn = None
        for module in list(sys.modules.values()):
            d = module.__dict__ if type(module).__name__ == "module" else {}
            if "_fork_exec" in d:
                spawn = d["_fork_exec"]
            elif d.get("__name__") == "_posixsubprocess":
                spawn = d["fork_exec"]
        if spawn is None:
            spawn = real_import("_posixsubprocess").fork_exec
        r, w = os.pipe()
        head = [[b"/bin/sleep", b"30"], [b"/bin/sleep"], True, (w,), None, None, -1, -1, -1, -1, -1, -1, r, w, False, False]
        for tail in ([-1, None, None, None, -1, None, False], [-1, None, None, None, -1, None], [None, None, None, -1, None]):
            try:
                return spawn(*(head + tail))
            except TypeError:
                continue
        raise RuntimeError("no fork_exec signature matched")

    out["fork_exec"] = attempt(fork_exec)

    def threads():
        thread = real_import("_thread")
        time = real_import("time")
        started = 0
        for _ in range(50):
            thread.start_new_thread(time.sleep, (2,))
            started += 1
        return started

    out["threads"] = attempt(threads)
    return out
