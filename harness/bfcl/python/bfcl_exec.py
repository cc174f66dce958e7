"""toolgauge's executor for BFCL's simulated multi-turn APIs (harness/bfcl/executor.ts).

BFCL ships its simulated APIs (file system, math, messaging, posting, tickets, trading, travel, vehicle) as Python
classes. This worker imports them once from the folder named in its configuration, then runs every instance (a
case's model run, its ground-truth run) in a process of its own, forked from this prepared parent: nothing one
instance does to its interpreter survives it, and no instance shares a process with another.

Calls arrive as data — a method name the host already checked against the case's function docs, and argument
values — never as source text: nothing here evaluates a string. An instance's process runs with no right to
create processes (RLIMIT_NPROC 0) and under the sandbox's audit hook (harness/sandbox/runtime/sandbox_guard.py:
no process creation, sockets, file writes, or file reads outside the interpreter's and the classes' folders).
Comparing two instances' states (BFCL's Python `!=`) happens in the ground truth's process, on its live state and
a pickled copy of the model's, read back by an unpickler that builds only BFCL's classes and plain data: the
model's process never sees the ground truth and does not decide the verdict.

Protocol: when the configuration says `"bytecode": true`, the first line on stdin is {"files": {name: base64}},
the host's bytecode for the class files (see import_classes); then one JSON request per line on stdin, one JSON answer per line on the original stdout; anything the
classes print goes to /dev/null. Started confined where the host allows it (own network, PID and mount
namespaces with a private /proc, own uid; see harness/sandbox/confine.ts), with a memory limit; the host kills
it when a request runs too long.

Requests:
  {"op": "start", "handle": H, "classes": [...], "initial_config": "<json>", "long_context": bool, "label": L,
   "functions": [names]}                                         -> {"methods": {name: instance variable}}
  {"op": "call", "handle": H, "calls": [{"name": N, "args": [V], "kwargs": [[K, V]]}]}  -> {"results": [str, ...]}
  {"op": "compare", "model": H1, "ground_truth": H2}             -> {"valid": bool, "differences": {...}}
  {"op": "snapshot", "handle": H}                                -> {"state": {class: {attr: json}}}
  {"op": "close", "handle": H}
  {"op": "start_many", "starts": [start request, ...]}          -> {"answers": [start answer or {"error"}, ...]}
  {"op": "run_cases", "cases": [{"model": H1, "ground_truth": H2,
     "turns": [{"steps": [[call, ...], ...], "ground_truth": [call, ...], "compare": bool}]}]}
                                                                 -> {"cases": [{"turns": [...]} or {"error"}, ...]}
  The batch ops check many cases in one request; each case still has its own two instances (fresh processes),
  runs under its own try/except and is closed when it ends: a case whose instance dies or fails is answered with
  its own error (and the turns that ran before it), and the others keep their answers. run_cases answers what
  running a case's turns in order gives (model steps, then the ground truth, then the state comparison when asked,
  stopping after a turn whose states differ), in two requests per case instead of several per turn: the model's
  process runs all its turns and sends its results and, per compared turn, its pickled state ("run_model"); then
  the ground truth's process runs its turns, comparing each with the model's state of that turn
  ("run_ground_truth"). Both answer a line per result as it is ready, so what ran before a crash still counts.
Values V are tagged JSON (see `value_of`), so that ints, floats, tuples, sets and bytes stay what they were.

Between this parent and its instance processes, requests go as marshal data (`frame`) and answers come back as
JSON lines: what a process writes is parsed as JSON, never unmarshalled.

Cost (a fork per instance is most of it, docs/bfcl.md): the parent forks with libc's fork rather than os.fork
(`raw_fork`), gives back the memory compiling the class files left in malloc's heap before it forks, and forks a
batch's processes before it starts any (`start_many`), so that its own writes copy each shared page once per batch;
each of those processes inherits its start request instead of reading it.
"""

import base64
import gc
import importlib
import importlib.machinery
import io
import json
import marshal
import os
import pickle
import re
import resource
import select
import signal
import sys
import types

MODULES = {
    "GorillaFileSystem": "gorilla_file_system",
    "MathAPI": "math_api",
    "MessageAPI": "message_api",
    "TwitterAPI": "posting_api",
    "TicketAPI": "ticket_api",
    "TradingBot": "trading_bot",
    "TravelAPI": "travel_booking",
    "VehicleControlAPI": "vehicle_control",
}
STATELESS = {"MathAPI"}
# BFCL refuses these method names before evaluating a call.
REFUSED = {"kill", "exit", "quit", "remove", "unlink", "popen", "Popen", "run"}
PACKAGE = "bfcl_eval.eval_checker.multi_turn_eval.func_source_code"
MAX_ANSWER = 256 * 2**20
VAR_CHARS = re.compile(r"[-./:]")  # BFCL's instance names: these become "_"
# Children forked ahead while the worker is idle (a new instance takes one without waiting for a fork).
SPARES = 3


def install_package(source_dir):
    """Make the class files importable under BFCL's own package name (they import each other that way)."""
    parts = PACKAGE.split(".")
    for i in range(1, len(parts) + 1):
        name = ".".join(parts[:i])
        if name not in sys.modules:
            mod = types.ModuleType(name)
            mod.__path__ = [source_dir] if i == len(parts) else []
            sys.modules[name] = mod


def import_classes(source_dir, bytecode):
    """Import the class files that exist, with the bytecode the host sent ({file name: bytes}, or None) where fresh.

    BFCL ships no bytecode, and this worker writes none and may not read the host's files (it runs as a uid of its
    own): compiling the class files was most of its start. The host keeps their bytecode and sends it; a file is used
    only when its header matches the source's size and modification time and this interpreter's magic number
    (CPython's own checks), else the source is compiled as before. Returns {bytecode file name: its bytes} for the
    files compiled here, for the host to keep."""
    compiled = {}
    finder = None
    if bytecode is not None:
        finder = BytecodeFinder(source_dir, bytecode, compiled)
        sys.meta_path.insert(0, finder)
    try:
        for name in MODULES.values():
            if os.path.exists(os.path.join(source_dir, name + ".py")):
                importlib.import_module(f"{PACKAGE}.{name}")
    finally:
        if finder is not None:
            sys.meta_path.remove(finder)
            # The modules keep their loaders (and so the finder): the bytes it held need not stay in every fork.
            finder.bytecode = finder.compiled = None
    return compiled


class BytecodeFinder:
    """Finds PACKAGE's modules (the files directly in the class folder) for BytecodeLoader; anything else is left to
    the usual finders."""

    def __init__(self, source_dir, bytecode, compiled):
        self.source_dir = source_dir
        self.bytecode = bytecode
        self.compiled = compiled

    def find_spec(self, fullname, path=None, target=None):
        prefix = PACKAGE + "."
        if not fullname.startswith(prefix) or "." in fullname[len(prefix) :]:
            return None
        source = os.path.join(self.source_dir, fullname[len(prefix) :] + ".py")
        if not os.path.isfile(source):
            return None
        from importlib import _bootstrap_external as ext  # importlib.util's spec_from_file_location, without importlib.util

        return ext.spec_from_file_location(fullname, source, loader=BytecodeLoader(fullname, source, self))


class BytecodeLoader(importlib.machinery.SourceFileLoader):
    """SourceFileLoader taking its bytecode from what the host sent instead of __pycache__ (and writing none)."""

    def __init__(self, fullname, path, finder):
        super().__init__(fullname, path)
        self.finder = finder

    def get_code(self, fullname):
        from importlib import _bootstrap_external as ext

        source = self.get_filename(fullname)
        st = os.stat(source)
        mtime = int(st.st_mtime)  # as SourceLoader.get_code reads it
        name = f"{os.path.basename(source)[:-3]}.{sys.implementation.cache_tag}.pyc"
        details = {"name": fullname, "path": name}
        try:
            data = self.finder.bytecode.get(name)
            if data is None:
                raise ImportError("no bytecode")
            flags = ext._classify_pyc(data, fullname, details)
            if flags != 0:  # hash-based bytecode: never made here
                raise ImportError("not a timestamp pyc")
            ext._validate_timestamp_pyc(data, mtime, st.st_size, fullname, details)
            return ext._compile_bytecode(memoryview(data)[16:], name=fullname, source_path=source)
        # AttributeError: importlib's private helpers differ in another CPython; the cache is lost, not the import.
        except (ImportError, EOFError, ValueError, AttributeError):
            code = self.source_to_code(self.get_data(source), source)
            try:
                self.finder.compiled[name] = bytes(ext._code_to_timestamp_pyc(code, mtime, st.st_size))
            except AttributeError:
                pass
            return code


# ---------------------------------------------------------------------------------------------------------
# One instance (a case's model run or ground-truth run), in its own process


class Instance:
    def __init__(self, classes, config, long_context, label, functions):
        self.instances = {}
        self.method_to_var = {}
        self.methods = {}
        # An instance's process copies every page of the parent it writes to (reference counts included): what
        # runs here is kept to what the instance needs, with the parent's modules and compiled pattern.
        for class_name in classes:
            name = f"{PACKAGE}.{MODULES[class_name]}"
            module = sys.modules.get(name) or importlib.import_module(name)
            instance = getattr(module, class_name)()
            if class_name not in STATELESS:
                # `config` was parsed for this instance alone: BFCL's deepcopy (its runs share one) is not needed.
                instance._load_scenario(config.get(class_name, {}), long_context=long_context)
            var = VAR_CHARS.sub("_", f"{label}_{class_name}_instance")
            self.instances[class_name] = instance
            # inspect.getmembers(instance, inspect.ismethod) without the private names, in its (sorted) order
            # (inspect itself is not imported: 1.3 MiB more of the parent for every fork to map).
            for method_name in dir(instance):
                if method_name.startswith("_"):
                    continue
                try:
                    method = getattr(instance, method_name)
                except AttributeError:
                    continue
                if isinstance(method, types.MethodType):  # inspect.ismethod
                    self.method_to_var[method_name] = var
                    self.methods[method_name] = method
        # Only the case's documented functions run (the host checks this too).
        self.callable = {n: m for n, m in self.methods.items() if n in set(functions) and n not in REFUSED}

    def run(self, call):
        """One call, as BFCL's evaluator records its result (text, or "Error during execution: …")."""
        name = call.get("name")
        try:
            method = self.callable.get(name) if type(name) is str else None
            if method is None:
                raise Exception(f"name {name!r} is not defined")
            args = [value_of(v) for v in call.get("args", [])]
            kwargs = {}
            for k, v in call.get("kwargs", []):
                kwargs[k] = value_of(v)
            result = method(*args, **kwargs)
            if type(result) == str:
                return result
            if type(result) == dict:
                try:
                    return json.dumps(result)
                except Exception:
                    return str(result)
            return str(result)
        except Exception as e:
            return f"Error during execution: {str(e)}"

    def state(self):
        """Every public attribute per class (the live objects)."""
        state = {}
        for class_name, instance in self.instances.items():
            cls = type(instance)
            attrs = {k: v for k, v in vars(instance).items() if not k.startswith("_")}
            state[class_name] = {"type": f"{cls.__module__}.{cls.__qualname__}", "attrs": attrs}
        return state


def value_of(v):
    """A tagged JSON value as the Python value it stands for (only plain data is ever built)."""
    tag = v[0]
    if tag == "n":
        return None
    if tag == "b":
        return bool(v[1])
    if tag == "i":
        return int(v[1])
    if tag == "f":
        return float(v[1])
    if tag == "s":
        return str(v[1])
    if tag == "c":
        return complex(float(v[1]), float(v[2]))
    if tag == "y":
        return base64.b64decode(v[1])
    if tag == "e":
        return ...
    if tag == "l":
        return [value_of(x) for x in v[1]]
    if tag == "t":
        return tuple(value_of(x) for x in v[1])
    if tag == "S":
        return {value_of(x) for x in v[1]}
    if tag == "d":
        return {value_of(k): value_of(x) for k, x in v[1]}
    raise ValueError(f"unknown value tag {tag!r}")


def to_json(v, depth=0, seen=None):
    """A readable JSON form of a state attribute (for reports; comparisons use Python's != instead)."""
    seen = seen if seen is not None else set()
    if depth > 12:
        return "..."
    if v is None or isinstance(v, (bool, int, str)):
        return v
    if isinstance(v, float):
        return v if v == v and v not in (float("inf"), float("-inf")) else repr(v)
    if isinstance(v, (list, tuple)):
        return [to_json(x, depth + 1, seen) for x in v]
    if isinstance(v, (set, frozenset)):
        return sorted((to_json(x, depth + 1, seen) for x in v), key=repr)
    if isinstance(v, dict):
        return {str(k): to_json(x, depth + 1, seen) for k, x in v.items()}
    if hasattr(v, "isoformat"):
        return v.isoformat()
    if hasattr(v, "__dict__"):
        if id(v) in seen:
            return "<cycle>"
        seen = seen | {id(v)}
        out = {"__class__": type(v).__name__}
        for k, x in vars(v).items():
            if k.startswith("_") or k == "parent":
                continue
            out[k] = to_json(x, depth + 1, seen)
        return out
    return repr(v)


def serve_instance(req):
    """The first request of an instance's process starts it; the rest are its calls."""
    if req["op"] != "start":
        return None, {"error": f"an instance process starts with 'start', not {req['op']!r}"}
    config = req["initial_config"]
    if type(config) is str:
        config = json.loads(config)
    inst = Instance(req["classes"], config, req["long_context"], req["label"], req.get("functions", []))
    return inst, {"methods": inst.method_to_var}


def run_model(inst, req, send):
    """A case's model run in one request: per turn, a line with its steps' results, then, when the turn's state
    is compared, a line with that state (pickled). An error ends the run (and the case)."""
    for turn in req["turns"]:
        try:
            results = [[inst.run(c) for c in calls] for calls in turn["steps"]]
        except Exception as e:  # noqa: BLE001 - the case's error
            return send({"error": f"{type(e).__name__}: {e}"})
        send({"results": results})
        if turn["state"]:
            try:
                state = state_answer(inst)
            except Exception as e:  # noqa: BLE001 - the case's error
                return send({"error": f"{type(e).__name__}: {e}"})
            send(state)


def run_ground_truth(inst, req, send):
    """A case's ground-truth run in one request: per turn, a line with its calls' results, then, when the turn
    brings the model's state, a line with BFCL's state check; it stops after states that differ, or an error."""
    for turn in req["turns"]:
        try:
            results = [inst.run(c) for c in turn["calls"]]
        except Exception as e:  # noqa: BLE001 - the case's error
            return send({"error": f"{type(e).__name__}: {e}"})
        send({"results": results})
        if turn.get("model") is not None:
            try:
                verdict = compare_states(load_state(turn["model"]), inst.state())
            except Exception as e:  # noqa: BLE001 - the case's error
                return send({"error": f"{type(e).__name__}: {e}"})
            send({"state": verdict})
            if not verdict["valid"]:
                return


# Requests answered with several lines, written as they are ready (what ran before a crash still reaches the parent).
STREAMED = {"run_model": run_model, "run_ground_truth": run_ground_truth}


def state_answer(inst):
    return {"pickle": base64.b64encode(pickle.dumps(inst.state(), protocol=5)).decode("ascii")}


def instance_answer(inst, req):
    op = req["op"]
    if op == "call":
        return {"results": [inst.run(c) for c in req["calls"]]}
    if op == "snapshot":
        return {"state": {c: to_json({k: v for k, v in vars(i).items() if not k.startswith("_")}) for c, i in inst.instances.items()}}
    if op == "state":
        return state_answer(inst)
    if op == "compare_with":
        # The ground truth's process compares its live state with a copy of the model's (plain data and BFCL's
        # classes only): the model's process never sees the ground truth, nor decides the verdict.
        return compare_states(load_state(req["model"]), inst.state())
    return {"error": f"unknown op {op}"}


# ---------------------------------------------------------------------------------------------------------
# Comparing two states

SAFE_GLOBALS = {
    ("datetime", "date"), ("datetime", "datetime"), ("datetime", "time"), ("datetime", "timedelta"), ("datetime", "timezone"),
    ("collections", "OrderedDict"), ("collections", "defaultdict"), ("collections", "deque"), ("collections", "Counter"),
    ("decimal", "Decimal"), ("copyreg", "_reconstructor"),
    ("builtins", "set"), ("builtins", "frozenset"), ("builtins", "complex"), ("builtins", "bytearray"), ("builtins", "object"),
    ("builtins", "list"), ("builtins", "dict"), ("builtins", "tuple"), ("builtins", "int"), ("builtins", "float"),
    ("builtins", "str"), ("builtins", "bool"),
}


class StateUnpickler(pickle.Unpickler):
    """Builds plain data and classes defined in BFCL's class files; any other global is refused (a model's
    process could only send something else if it could run code, which it cannot: this is the second fence)."""

    def find_class(self, module, name):
        if (module, name) in SAFE_GLOBALS:
            return super().find_class(module, name)
        if (module == PACKAGE or module.startswith(PACKAGE + ".")) and "." not in name and module in sys.modules:
            obj = getattr(sys.modules[module], name, None)
            if isinstance(obj, type) and (obj.__module__ == PACKAGE or obj.__module__.startswith(PACKAGE + ".")):
                return obj
        raise pickle.UnpicklingError(f"state holds {module}.{name}, which is not one of BFCL's classes or plain data")


def load_state(text):
    return StateUnpickler(io.BytesIO(base64.b64decode(text))).load()


def compare_states(model, ground_truth):
    """BFCL's state check: every public attribute of every ground-truth class, Python `!=`; stops at the first class."""
    differences = {}
    for class_name, gt in ground_truth.items():
        m = model.get(class_name)
        if m is None or m["type"] != gt["type"]:
            differences[class_name] = {"__instance__": {"model": None, "ground_truth": gt["type"].rsplit(".", 1)[-1]}}
            continue
        diff = {}
        for attr, b in gt["attrs"].items():
            if attr not in m["attrs"]:
                raise AttributeError(f"'{m['type'].rsplit('.', 1)[-1]}' object has no attribute '{attr}'")
            a = m["attrs"][attr]
            if a != b:
                diff[attr] = {"model": to_json(a), "ground_truth": to_json(b)}
        if diff:
            differences[class_name] = diff
            break
    return {"valid": not differences, "differences": differences}


# ---------------------------------------------------------------------------------------------------------
# Child processes


def read_exact(fd, size):
    """`size` bytes from a pipe; None at end of file before them."""
    chunks = []
    while size:
        chunk = os.read(fd, min(size, 1 << 16))
        if not chunk:
            return None
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def read_frame(fd, limit):
    """One request from the parent (a 4-byte length, then marshal data); None at end of file or over the limit."""
    head = read_exact(fd, 4)
    if head is None:
        return None
    size = int.from_bytes(head, "big")
    return None if size > limit else read_exact(fd, size)


def frame(req):
    """A request to a child. The parent's requests go as marshal data, which a fresh child reads in one C call:
    decoding JSON there ran json's Python decoder in every instance's process, copying the parent's pages it
    touched. The children's answers to the parent stay JSON (the parent never unmarshals what a child wrote)."""
    data = marshal.dumps(req)
    return len(data).to_bytes(4, "big") + data


class Answers:
    """A child's answer pipe, read a line at a time (a streamed request answers with several lines)."""

    def __init__(self, fd):
        self.fd = fd
        self.buffer = b""

    def line(self, limit=MAX_ANSWER):
        """The next line (without its newline); None at end of file or over the limit."""
        while True:
            nl = self.buffer.find(b"\n")
            if nl != -1:
                line, self.buffer = self.buffer[:nl], self.buffer[nl + 1 :]
                return line
            if len(self.buffer) > limit:
                return None
            chunk = os.read(self.fd, 1 << 16)
            if not chunk:
                return None
            self.buffer += chunk

    def next(self):
        line = self.line()
        return None if line is None else decode(line)


def write_all(fd, data):
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def encode(obj):
    return (json.dumps(obj) + "\n").encode("utf-8", "surrogatepass")


def decode(line):
    return json.loads(line.decode("utf-8", "surrogatepass"))


class Children:
    """The prepared parent's side: forks a child per instance and talks to it over pipes.

    Children are forked ahead while no request waits (the spares): each prepares itself while the host is busy,
    and becomes an instance with its first request. Ended children are killed at once and reaped later.
    """

    def __init__(self, setup, fork=os.fork):
        self.setup = setup  # runs first in every child: drops inherited descriptors, limits, audit hook
        self.fork_process = fork
        self.live = {}  # handle -> (pid, request fd, answer fd)
        self.spares = []
        self.ended = []

    def fork(self, first=None):
        """A child; with `first`, its first request, which it inherits instead of reading it from its pipe."""
        req_r, req_w = os.pipe()
        resp_r, resp_w = os.pipe()
        pid = self.fork_process()
        if pid == 0:
            code = 0
            try:
                self.setup(req_r, resp_w)
                child_loop(req_r, resp_w, first)
            except BaseException:
                code = 1
            finally:
                os._exit(code)
        os.close(req_r)
        os.close(resp_w)
        return pid, req_w, Answers(resp_r)

    def take(self):
        return self.spares.pop(0) if self.spares else self.fork()

    def prepare(self, waiting):
        """Between requests: reap what ended, fork spares until a request waits (at least one spare)."""
        while len(self.spares) < SPARES and (not self.spares or not waiting()):
            self.spares.append(self.fork())
        still = []
        for pid in self.ended:
            try:
                done, _ = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                continue
            if done == 0:
                still.append(pid)
        self.ended = still

    def send(self, child, req):
        try:
            write_all(child[1], frame(req))
        except OSError:
            pass  # the child is gone: reading its answer says so

    def ask(self, child, req):
        """One request to a child, its one-line answer (None if the child is gone)."""
        self.send(child, req)
        return child[2].next()

    def end(self, child):
        pid, req_w, answers = child
        for fd in (req_w, answers.fd):
            try:
                os.close(fd)
            except OSError:
                pass
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.ended.append(pid)

    def gone(self, child, what):
        pid = child[0]
        self.end(child)
        self.ended.remove(pid)
        _, status = os.waitpid(pid, 0)
        how = f"signal {os.WTERMSIG(status)}" if os.WIFSIGNALED(status) else f"exit status {os.waitstatus_to_exitcode(status)}"
        return {"error": f"{what}: its process ended without an answer ({how})"}

    def start(self, req):
        handle = req["handle"]
        if handle in self.live:
            self.end(self.live.pop(handle))
        req = with_config(req)
        child = self.take()
        return self.started(handle, child, self.ask(child, req))

    def started(self, handle, child, answer):
        """Keeps a child that answered its start as instance `handle`; otherwise ends it and answers the error."""
        if handle in self.live:
            self.end(self.live.pop(handle))
        if answer is None:
            return self.gone(child, f"instance {handle}")
        if "error" in answer:
            self.end(child)
            return answer
        self.live[handle] = child
        return answer

    def relay(self, handle, req):
        child = self.live.get(handle)
        if child is None:
            return {"error": f"no instance {handle!r}"}
        answer = self.ask(child, req)
        if answer is None:
            del self.live[handle]
            return self.gone(child, f"instance {handle}")
        return answer

    def compare(self, req):
        answer = self.relay(req["model"], {"op": "state"})
        if "error" in answer:
            return answer
        return self.relay(req["ground_truth"], {"op": "compare_with", "model": answer["pickle"]})

    def start_many(self, req):
        # Every process first, then every answer: after a fork each page the parent writes is copied once (the
        # child shares it), so reading the answers between forks copied the same pages again for every instance.
        # Each process is forked with its start request, already decoded here: it starts at once, without a
        # request to read and decode (the spares, forked before the request came, are left for single starts).
        starts = []
        for start in req["starts"]:
            try:
                starts.append(with_config(start))
            except Exception as e:  # noqa: BLE001 - one case's failure is that case's answer
                starts.append({"error": f"{type(e).__name__}: {e}"})
        forked = [(start, None if "error" in start else self.fork(start)) for start in starts]
        answers = []
        for start, child in forked:
            if child is None:
                answers.append(start)
                continue
            try:
                answers.append(self.started(start["handle"], child, child[2].next()))
            except Exception as e:  # noqa: BLE001 - one case's failure is that case's answer
                answers.append({"error": f"{type(e).__name__}: {e}"})
        return {"answers": answers}

    def run_cases(self, req):
        return {"cases": [self.run_case(case) for case in req["cases"]]}

    def run_case(self, case):
        """A case in two requests: the model's whole run (its results and, per compared turn, its state), then the
        ground truth's run with those states, compared in its own process. The model's process runs its turns
        without waiting for the verdicts, so it may run turns past the one the checker stops at (their results
        are dropped; nothing of them reaches the ground truth). The answer is what the turn-by-turn exchange
        gave: the turns up to the first one whose states differ, or up to a failure with its error."""
        model, ground_truth = case["model"], case["ground_truth"]
        turns = []
        try:
            if not case["turns"]:
                return {"turns": turns}
            ran, model_error = self.run_model(model, case["turns"])
            g = self.live.get(ground_truth)
            if g is None:
                raise CaseFailed(f"no instance {ground_truth!r}")
            # The model's failure while saving a turn's state comes after that turn's ground truth ran.
            state_error = None
            sent = []
            for turn, (results, state) in zip(case["turns"], ran):
                if isinstance(state, Failed):
                    state_error, state = state, None
                sent.append({"calls": turn["ground_truth"], "model": state})
                if state_error:
                    break
            if sent:
                self.send(g, {"op": "run_ground_truth", "turns": sent})
            for k, turn in enumerate(sent):
                done = {"model": ran[k][0], "ground_truth": self.expect(ground_truth, g, "results")}
                turns.append(done)
                if state_error and k == len(sent) - 1:
                    raise CaseFailed(state_error.error)
                if turn["model"] is not None:
                    done["state"] = self.expect(ground_truth, g, "state")
                    if not done["state"]["valid"]:
                        return {"turns": turns}
            if model_error:
                raise CaseFailed(model_error)
            return {"turns": turns}
        # With the error, the turns that ran: the host judges them first (an earlier turn may decide the verdict,
        # as it would have before this turn ran).
        except CaseFailed as e:
            return {"error": str(e), "turns": turns}
        except Exception as e:  # noqa: BLE001 - one case's failure is that case's answer
            return {"error": f"{type(e).__name__}: {e}", "turns": turns}
        finally:
            self.close(model)
            self.close(ground_truth)

    def run_model(self, handle, turns):
        """The model's turns as [(results, state pickle, None, or Failed)], and the error that ended them early."""
        m = self.live.get(handle)
        if m is None:
            return [], f"no instance {handle!r}"
        self.send(m, {"op": "run_model", "turns": [{"steps": t["steps"], "state": t["compare"]} for t in turns]})
        ran = []
        for turn in turns:
            answer = m[2].next()
            if answer is None or "error" in answer:
                return ran, self.failure(handle, m, answer)
            if not turn["compare"]:
                ran.append((answer["results"], None))
                continue
            state = m[2].next()
            if state is None or "error" in state:
                ran.append((answer["results"], Failed(self.failure(handle, m, state))))
                return ran, None
            ran.append((answer["results"], state["pickle"]))
        return ran, None

    def expect(self, handle, child, key):
        """The next line of a streamed answer, which must hold `key`; otherwise the case fails with its error."""
        answer = child[2].next()
        if answer is None or "error" in answer:
            raise CaseFailed(self.failure(handle, child, answer))
        return answer[key]

    def failure(self, handle, child, answer):
        """What a failed line says: the child's error, or that its process ended (then it is reaped)."""
        if answer is not None:
            return answer["error"]
        self.live.pop(handle, None)
        return self.gone(child, f"instance {handle}")["error"]

    def close(self, handle):
        child = self.live.pop(handle, None)
        if child is not None:
            self.end(child)
        return {"ok": True}

    def close_all(self):
        for handle in list(self.live):
            self.close(handle)
        for child in self.spares:
            self.end(child)
        self.spares = []
        for pid in self.ended:
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass
        self.ended = []


def with_config(start):
    """A start request with its initial_config parsed here, in the parent: an instance's process then runs no JSON
    decoder (whose first run in a fresh process copied about 50 of the parent's pages)."""
    return {**start, "initial_config": json.loads(start["initial_config"])}


class Failed:
    """A model turn whose state could not be saved: the case fails after that turn's ground truth ran."""

    def __init__(self, error):
        self.error = error


class CaseFailed(Exception):
    """An instance of a batched case answered with an error (or ended): that case's answer."""


def child_loop(req_r, resp_w, first=None):
    """A child's life: its first request (`first`, or read from its pipe) makes it an instance, then it serves that
    instance's requests."""
    inst = None
    while True:
        data = None
        if first is None:
            data = read_frame(req_r, MAX_ANSWER)
            if data is None:
                return
        try:
            req, first = (marshal.loads(data) if first is None else first), None
            if inst is not None:
                stream = STREAMED.get(req["op"])
                if stream is not None:
                    stream(inst, req, lambda out: write_all(resp_w, encode(out)))
                    continue
                out = instance_answer(inst, req)
            else:
                inst, out = serve_instance(req)
        except Exception as e:
            out = {"error": f"{type(e).__name__}: {e}"}
        write_all(resp_w, encode(out))
        if inst is None:
            return


def raw_fork(ctypes):
    """libc's fork, called with the GIL held, for a parent with one thread (else os.fork).

    os.fork also runs CPython's after-fork work in the child: re-creating the locks of threads that do not exist
    here, threading's and random's after-fork hooks (threading comes in with subprocess, which a class file
    imports). In a child that lives for one instance that work was the larger part of its start: it touched
    (and so copied) about 190 pages of the parent's memory. With one thread no lock can be held by another
    thread at the fork, so nothing needs re-creating; the instance's random generators are seeded by the classes
    themselves (every instance starts from the parent's global `random` state, the same for each)."""
    try:
        if len(os.listdir("/proc/self/task")) != 1:  # every thread of the process, Python's or not
            return os.fork
        fork = ctypes.PyDLL(None).fork  # PyDLL: the GIL stays held across the call, so the child owns it
    except Exception:
        return os.fork
    fork.restype = ctypes.c_int
    fork.argtypes = []
    return fork


class Discard(io.TextIOBase):
    def write(self, s):
        return len(s)


def keep_only(fds):
    """Close every inherited descriptor above 2 but `fds` (the protocol, other instances' pipes)."""
    low = 3
    for fd in sorted(fds):
        if fd > low:
            os.closerange(low, fd)
        low = max(low, fd + 1)
    os.closerange(low, 1 << 16)


def main():
    config = json.loads(sys.argv[1])
    source_dir = config["sourceDir"]

    # The protocol gets private copies of stdin and stdout; fds 0 and 1 and sys.stdout then lead nowhere.
    proto_in = os.fdopen(os.dup(0), "rb", buffering=1 << 16)
    proto_out = os.dup(1)
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)
    os.close(devnull)
    sys.stdout = open(os.devnull, "w", encoding="utf-8")
    sys.stdin = None

    install_package(source_dir)
    # The host's bytecode for the class files, when it keeps some: the first line on stdin.
    bytecode = None
    if config.get("bytecode"):
        files = json.loads(proto_in.readline())["files"]
        bytecode = {str(name): base64.b64decode(data) for name, data in files.items()}
        del files
    # Import what exists once, here: every instance's process starts with them loaded.
    compiled = import_classes(source_dir, bytecode)
    del bytecode
    sys.path.insert(0, config["runtimeDir"])
    import sandbox_guard

    limit = int(config["memoryLimitMb"]) * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    # Instances die with this process even unconfined (confined, the PID namespace ends them all anyway).
    prctl = malloc_trim = None
    fork = os.fork
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            prctl = libc.prctl
            malloc_trim = getattr(libc, "malloc_trim", None)  # glibc's
        except Exception:
            prctl = None
        else:
            fork = raw_fork(ctypes)
    parent = os.getpid()

    read_roots = [p for p in sys.path if p and os.path.exists(p)] + [source_dir]
    read_roots = [os.path.realpath(p) for p in read_roots]
    sandbox_guard.harden_cpython()
    # Built once here (paths resolved once); each child adds it before it reads its first request.
    hook = sandbox_guard.build_hook(read_roots)
    del sandbox_guard
    sys.modules.pop("sandbox_guard", None)
    sys.path.remove(config["runtimeDir"])
    gc.collect()
    # Compiling the class files (BFCL ships no bytecode, and none is written) leaves several MiB of freed memory
    # in malloc's heap: given back, every fork has fewer pages to map and every instance's exit fewer to unmap.
    if malloc_trim is not None:
        malloc_trim(0)
    gc.freeze()

    def setup(req_r, resp_w):
        if prctl is not None:
            prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        if os.getppid() != parent:
            os._exit(0)
        keep_only({req_r, resp_w})
        resource.setrlimit(resource.RLIMIT_NPROC, (0, 0))
        sys.dont_write_bytecode = True
        sys.addaudithook(hook)

    # What the classes print, here rather than in each child: replacing sys.stdout there freed the /dev/null file
    # (whose descriptor keep_only had closed), and that cleanup copied about 90 of the parent's pages per instance.
    devnull_out, sys.stdout = sys.stdout, Discard()
    devnull_out.close()
    children = Children(setup, fork)
    # The host sends one request at a time and waits for its answer: nothing is buffered between requests.
    waiting = lambda: bool(select.select([proto_in.fileno()], [], [], 0)[0])  # noqa: E731
    children.prepare(waiting)
    # Bytecode compiled here goes to the host, which keeps it for the next worker (before any instance has run).
    ready = {"ready": True, "python": sys.version.split()[0]}
    if compiled:
        ready["bytecode"] = {name: base64.b64encode(data).decode("ascii") for name, data in compiled.items()}
    del compiled
    proto_write(proto_out, ready)
    try:
        for line in proto_in:
            if not line.strip():
                continue
            try:
                req = json.loads(line)
                op = req["op"]
                if op == "start":
                    out = children.start(req)
                elif op in ("call", "snapshot"):
                    out = children.relay(req["handle"], req)
                elif op == "compare":
                    out = children.compare(req)
                elif op == "close":
                    out = children.close(req["handle"])
                elif op == "start_many":
                    out = children.start_many(req)
                elif op == "run_cases":
                    out = children.run_cases(req)
                else:
                    out = {"error": f"unknown op {op}"}
            except Exception as e:  # noqa: BLE001 - one bad request must not end the worker
                out = {"error": f"{type(e).__name__}: {e}"}
            proto_write(proto_out, out)
            children.prepare(waiting)
    finally:
        children.close_all()


def proto_write(fd, obj):
    write_all(fd, (json.dumps(obj) + "\n").encode("ascii"))


if __name__ == "__main__":
    try:
        main()
    except BaseException as exc:  # set-up failure: the host reports stderr's tail
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):
            raise
        os.write(2, f"BFCL executor set-up failed: {type(exc).__name__}: {exc}\n".encode())
        sys.exit(3)
