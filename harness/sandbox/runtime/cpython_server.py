"""CPython sandbox worker: a long-lived server for one pool slot (harness/sandbox/python-backend.ts).

Started as `python -I -B cpython_server.py '<config json>'`, usually confined (own network and PID namespace,
own uid; see confine.ts). Reads one JSON request per line on stdin and answers one JSON line on the original
stdout.

The server never runs dataset code itself. It imports the runtime and the commonly used packages once, then
serves every request in a child of its own: the child drops the protocol streams, may not create processes
or threads (RLIMIT_NPROC 0), installs the audit hook, reads request lines from a pipe and writes one answer line
for each to another; the server relays at most `maxResponseBytes` of an answer (one line, nothing after it).

A child serves one row. With `rowChildren` > 0 and the walls of child_isolation.py up (non-dumpable, a seccomp
filter: no signal, trace, pidfd or limit change aimed at another process), the child stays for its row's later
calls (stopped between them) and up to `rowChildren` rows' children live side by side, the least recently used
ended when a new row comes; a new row gets the spare child, forked ahead while the host reads the last answer.
Without the walls every child serves one call and is gone before the next one is forked (two children never
coexist). Either way whatever a row does to its interpreter (modules monkeypatched, the runtime replaced, audit
hooks added) ends with its child and never reaches another row. Limits: RLIMIT_AS for memory, no file growth, no
core dumps. The host kills the whole worker on timeout.
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

    # Children that serve several calls of their row live side by side only behind child_isolation's walls.
    keep = max(0, int(config.get("rowChildren", 0)))
    isolate = None
    if keep:
        import child_isolation

        isolate = child_isolation.isolate if child_isolation.available() else None
        del child_isolation
        sys.modules.pop("child_isolation", None)
    if isolate is None:
        keep = 0

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
        if isolate is not None:
            isolate()
        install_guard(read_roots)
        # One request line in, one answer line out, until the server closes the request pipe or ends this child.
        pending = b""
        while True:
            while b"\n" not in pending:
                chunk = os.read(in_fd, 1 << 20)
                if not chunk:
                    return  # the server is going away
                pending += chunk
            line, pending = pending.split(b"\n", 1)
            data = handle(line.decode("utf-8", "surrogateescape")).encode("ascii") + b"\n"
            view = memoryview(data)
            while view:
                view = view[os.write(out_fd, view) :]

    proto_write(proto_out, {"ready": True, "pid": os.getpid(), "python": sys.version.split()[0], "restore": True, "rowChildren": keep})
    children = Children(child, keep, proto_out, max_response)
    try:
        while True:
            line = proto_in.readline(max_request + 1)
            if not line:
                return
            if not line.endswith(b"\n") and len(line) > max_request:
                proto_write(proto_out, {"id": None, "kind": "crash", "message": f"request longer than {max_request} bytes"})
                return
            if line.strip():
                children.serve(line.strip())
    finally:
        children.close()


class Children:
    """The server's children: a spare one (forked ahead, has run no row code) and, when the children are walled off
    from one another (child_isolation), up to `keep` children that each serve one row's later calls, stopped
    (SIGSTOP) between calls and the least recently used one ended when a new row needs room. Without the walls
    `keep` is 0: every child serves one call and is dead before the next one is forked."""

    def __init__(self, child, keep, proto_out, max_response):
        self.child = child
        self.keep = keep
        self.proto_out = proto_out
        self.max_response = max_response
        self.kept = {}  # row key -> (pid, req_w, resp_r), oldest first
        self.spare = self.spawn()

    def spawn(self):
        """Fork a child; it prepares itself and waits for requests on a pipe."""
        req_r, req_w = os.pipe()
        resp_r, resp_w = os.pipe()
        others = [fd for entry in [*self.kept.values(), *([self.spare] if getattr(self, "spare", None) else [])] for fd in entry[1:]]
        pid = os.fork()
        if pid == 0:
            code = 0
            try:
                os.close(req_w)
                os.close(resp_r)
                for fd in others:  # another row's pipes are not this child's to touch
                    os.close(fd)
                self.child(req_r, resp_w)
            except BaseException:
                code = 1
            finally:
                os._exit(code)
        os.close(req_r)
        os.close(resp_w)
        return pid, req_w, resp_r

    def serve(self, line):
        """Hand `line` to its row's child (a kept one, else the spare) and relay the answer."""
        key = row_key(line) if self.keep else None
        entry = self.kept.pop(key, None) if key is not None else None
        if entry is not None:
            continue_quietly(entry[0])
        else:
            entry, self.spare = self.spare or self.spawn(), None
        pid, req_w, r = entry
        answer, problem = exchange(req_w, r, line, self.max_response)
        if answer is not None:
            os.write(self.proto_out, answer)
            if key is not None:
                # Stopped until its row's next call: a child that lingers after answering runs no further.
                stop_quietly(pid)
                self.kept[key] = entry
                while len(self.kept) > self.keep:
                    self.end(self.kept.pop(next(iter(self.kept))))
            else:
                # Gone before the next one exists: without the walls, a child could stop the one serving the next row.
                self.end(entry)
        else:
            status = self.end(entry)
            if problem is None:
                how = f"signal {os.WTERMSIG(status)}" if os.WIFSIGNALED(status) else f"exit status {os.waitstatus_to_exitcode(status)}"
                problem = f"the call's process ended with no answer ({how})"
            proto_write(self.proto_out, {"id": request_id(line), "kind": "crash", "message": problem})
        if self.spare is None:
            self.spare = self.spawn()

    def end(self, entry):
        pid, req_w, r = entry
        kill_quietly(pid)
        _, status = os.waitpid(pid, 0)
        for fd in (req_w, r):
            try:
                os.close(fd)
            except OSError:
                pass
        return status

    def close(self):
        for entry in [*self.kept.values(), *([self.spare] if self.spare else [])]:
            self.end(entry)
        self.kept.clear()
        self.spare = None


def exchange(req_w, r, line, max_response):
    """Send one request line, read one answer line: (answer with its newline, None) or (None, problem or None)."""
    try:
        view = memoryview(line + b"\n")
        while view:
            view = view[os.write(req_w, view) :]
    except OSError:
        return None, None  # the child is gone: its status says how
    chunks = []
    size = 0
    while True:
        chunk = os.read(r, 1 << 16)
        if not chunk:
            return None, None
        size += len(chunk)
        if size > max_response:
            return None, f"tool response of {size} bytes exceeds the limit of {max_response}"
        chunks.append(chunk)
        if b"\n" in chunk:
            break
    data = b"".join(chunks)
    if not data.endswith(b"\n") or b"\n" in data[:-1] or not data.strip():
        return None, "the call's process sent a multi-line answer"
    return data, None


def row_key(line):
    """The row a request belongs to (its id and sources), or None for a request the server cannot read."""
    try:
        req = json.loads(line)
        return (str(req["row"]), tuple(str(s) for s in req["sources"]))
    except Exception:
        return None


def stop_quietly(pid):
    try:
        os.kill(pid, signal.SIGSTOP)
    except ProcessLookupError:
        pass


def continue_quietly(pid):
    try:
        os.kill(pid, signal.SIGCONT)
    except ProcessLookupError:
        pass


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
