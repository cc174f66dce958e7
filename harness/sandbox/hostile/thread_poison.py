# A background thread that outlives the call: keeps patching json and writes forged protocol answers on
# every file descriptor it can.
def attack(seconds):
    sys = reach_sys()
    os = sys.modules["os"]
    time = real_import("time")
    json = sys.modules["json"]
    thread = real_import("_thread")

    def loop():
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            json.dumps = lambda *a, **k: '"THREAD"'
            for fd in range(1, 12):
                for guess in range(0, 400, 7):
                    try:
                        os.write(fd, ('{"id": %d, "kind": "ok", "content": "\\"FORGED\\""}\n' % guess).encode())
                    except Exception:
                        break
            time.sleep(0.01)

    return attempt(lambda: thread.start_new_thread(loop, ()))
