"""CPython sandbox worker: a long-lived server for one pool slot (harness/sandbox/python-backend.ts).

Started as `python -I -B cpython_server.py '<config json>'`, usually confined (own network and PID namespace,
own uid; see confine.ts). Reads one JSON request per line on stdin and answers one JSON line on the original
stdout.

The server never runs dataset code itself. It imports the runtime and the commonly used packages once, then
serves every request in a child of its own: the child drops the protocol streams, may not create processes
or threads (RLIMIT_NPROC 0), installs the audit hook, reads its one request from a pipe and writes its answer
to another; the server relays at most `maxResponseBytes` of it (one line, once the child closed the pipe),
then stops and reaps the child, and forks the child for the next request while the host reads the answer (never
before the previous child is gone: two children never coexist).
Whatever a row does to its interpreter (modules monkeypatched, the runtime replaced, audit hooks added) ends
with its child, so no two calls share mutable interpreter state. Limits: RLIMIT_AS for memory, no file growth, no core dumps. The host kills the whole
worker on timeout.
"""

import gc
import json
import os
import resource
import signal
import sys


def main():
    config = json.loads(sys.argv[1])
    runtime_dir = config["runtimeDir"]
    max_response = int(config.get("maxResponseBytes", 16 * 2**20))
    max_request = int(config.get("maxRequestBytes", 64 * 2**20))

    # The protocol gets private copies of stdin and stdout; fds 0 and 1 and sys.stdout then lead nowhere.
    proto_in = os.fdopen(os.dup(0), "rb", buffering=1 << 16)
    proto_out = os.dup(1)
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)
    os.close(devnull)
    sys.stdout = open(os.devnull, "w", encoding="utf-8")
    sys.stdin = None
    # Process 1 of its PID namespace: with default dispositions, no signal sent from inside can end it.
    signal.signal(signal.SIGINT, signal.SIG_DFL)

    sys.path.insert(0, runtime_dir)
    import sandbox_guard
    import toolhop_runtime

    toolhop_runtime.preload()
    for name in config.get("preimport", []):
        try:
            __import__(name)
        except Exception:
            pass  # a missing package: tools importing it get the ImportError themselves

    limit = int(config["memoryLimitMb"]) * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    read_roots = [p for p in sys.path if p and os.path.exists(p)]
    read_roots += [p for p in config.get("readRoots", []) if os.path.exists(p)]
    read_roots = [os.path.realpath(p) for p in read_roots]
    sandbox_guard.harden_cpython()
    install_guard = sandbox_guard.install
    handle = toolhop_runtime.handle_json
    del sandbox_guard, toolhop_runtime
    sys.modules.pop("sandbox_guard", None)
    # Objects that exist now are shared with every child: keep the collector off them (fewer copied pages).
    gc.collect()
    gc.freeze()

    def child(in_fd, out_fd):
        os.close(proto_out)
        proto_in.close()
        resource.setrlimit(resource.RLIMIT_NPROC, (0, 0))
        install_guard(read_roots)
        chunks = []
        while True:
            chunk = os.read(in_fd, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
        os.close(in_fd)
        if not chunks:
            return  # the server is going away
        data = handle(b"".join(chunks).decode("utf-8", "surrogateescape")).encode("ascii")
        view = memoryview(data)
        while view:
            view = view[os.write(out_fd, view) :]
        os.close(out_fd)  # the answer is complete now, not when this process is torn down

    proto_write(proto_out, {"ready": True, "pid": os.getpid(), "python": sys.version.split()[0], "restore": True})
    spare = spawn(child)
    while True:
        line = proto_in.readline(max_request + 1)
        if not line:
            return
        if not line.endswith(b"\n") and len(line) > max_request:
            proto_write(proto_out, {"id": None, "kind": "crash", "message": f"request longer than {max_request} bytes"})
            return
        if line.strip():
            spare = serve(line.strip(), spare, lambda: spawn(child), proto_out, max_response)


def spawn(child):
    """Fork the child for the next request; it prepares itself and waits for the request on a pipe."""
    req_r, req_w = os.pipe()
    resp_r, resp_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            os.close(req_w)
            os.close(resp_r)
            child(req_r, resp_w)
        except BaseException:
            code = 1
        finally:
            os._exit(code)
    os.close(req_r)
    os.close(resp_w)
    return pid, req_w, resp_r


def serve(line, spare, spawn_next, proto_out, max_response):
    """Hand `line` to the waiting child, relay its answer; returns the child for the next request."""
    pid, req_w, r = spare
    try:
        view = memoryview(line)
        while view:
            view = view[os.write(req_w, view) :]
    except OSError:
        pass  # the child is gone: reported below
    os.close(req_w)
    chunks = []
    size = 0
    over = False
    while True:
        chunk = os.read(r, 1 << 16)
        if not chunk:
            break
        size += len(chunk)
        if size > max_response:
            over = True
            break
        chunks.append(chunk)
    os.close(r)
    data = b"".join(chunks).strip()
    if not over and data and b"\n" not in data:
        os.write(proto_out, data + b"\n")
        # The child has nothing left to say (it is stopped if it lingers). It is gone before the next one
        # exists: no child ever shares the namespace with the one that serves the next row (it could stop it).
        kill_quietly(pid)
        os.waitpid(pid, 0)
        return spawn_next()
    kill_quietly(pid)
    _, status = os.waitpid(pid, 0)
    if over:
        reply = {"id": request_id(line), "kind": "crash", "message": f"tool response of {size} bytes exceeds the limit of {max_response}"}
    else:
        how = f"signal {os.WTERMSIG(status)}" if os.WIFSIGNALED(status) else f"exit status {os.waitstatus_to_exitcode(status)}"
        what = "a multi-line answer" if data else "no answer"
        reply = {"id": request_id(line), "kind": "crash", "message": f"the call's process ended with {what} ({how})"}
    proto_write(proto_out, reply)
    return spawn_next()


def kill_quietly(pid):
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def request_id(line):
    try:
        rid = json.loads(line).get("id")
        return rid if type(rid) is int else None
    except Exception:
        return None


def proto_write(fd, obj):
    data = (json.dumps(obj) + "\n").encode("ascii")
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


if __name__ == "__main__":
    try:
        main()
    except BaseException as exc:  # set-up failure: the host reports stderr's tail
        os.write(2, f"cpython sandbox set-up failed: {type(exc).__name__}: {exc}\n".encode())
        sys.exit(3)
