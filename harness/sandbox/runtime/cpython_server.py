"""CPython sandbox worker: a long-lived server for one pool slot (harness/sandbox/python-backend.ts).

Started as `python -I -B cpython_server.py '<config json>'`, usually confined (network namespace, uid nobody;
see confine.ts). Reads one JSON request per line on stdin, answers one JSON line on the original stdout;
the tools' own output (print) goes to /dev/null. Limits: RLIMIT_AS for memory, no file growth, no core
dumps, no new processes (when not root). The host kills the process on timeout.
"""

import json
import os
import resource
import sys


def main():
    config = json.loads(sys.argv[1])
    runtime_dir = config["runtimeDir"]

    # The protocol gets a private copy of stdout; fd 1 and sys.stdout then lead nowhere.
    proto_out = os.fdopen(os.dup(1), "w", encoding="ascii", newline="\n")
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.close(devnull)
    sys.stdout = open(os.devnull, "w", encoding="utf-8")
    proto_in = sys.stdin

    sys.path.insert(0, runtime_dir)
    import sandbox_guard
    import toolhop_runtime

    toolhop_runtime.preload()

    limit = int(config["memoryLimitMb"]) * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if os.geteuid() != 0:
        resource.setrlimit(resource.RLIMIT_NPROC, (0, 0))

    read_roots = [p for p in sys.path if p and os.path.exists(p)]
    read_roots += [p for p in config.get("readRoots", []) if os.path.exists(p)]
    sandbox_guard.harden_cpython(read_roots)

    proto_out.write(json.dumps({"ready": True, "pid": os.getpid(), "python": sys.version.split()[0]}) + "\n")
    proto_out.flush()
    handle = toolhop_runtime.handle_json
    while True:
        line = proto_in.readline()
        if not line:
            return
        if line.strip():
            proto_out.write(handle(line) + "\n")
            proto_out.flush()


if __name__ == "__main__":
    try:
        main()
    except BaseException as exc:  # set-up failure: the host reports stderr's tail
        os.write(2, f"cpython sandbox set-up failed: {type(exc).__name__}: {exc}\n".encode())
        sys.exit(3)
