"""toolgauge's executor for BFCL's simulated multi-turn APIs (harness/bfcl/executor.ts).

BFCL ships its simulated APIs (file system, math, messaging, posting, tickets, trading, travel, vehicle) as Python
classes. This long-lived worker imports them from the folder named on the command line, keeps instances per
handle with their state across turns, runs call strings (`cd(folder='x')`) the way BFCL's evaluator runs them,
and compares two handles' states the way its state checker does (every public attribute, Python `!=`).

Protocol: one JSON request per line on stdin, one JSON answer per line on the original stdout; anything the
classes print goes to /dev/null. Started confined where the host allows it (no network, uid nobody), with a
memory limit; the host kills it when a request runs too long.

Requests:
  {"op": "start", "handle": H, "classes": [...], "initial_config": "<json>", "long_context": bool, "label": L}
  {"op": "call", "handle": H, "calls": ["f(a=1)", ...]}        -> {"results": [str, ...]}
  {"op": "compare", "model": H1, "ground_truth": H2}             -> {"valid": bool, "differences": {...}}
  {"op": "snapshot", "handle": H}                                -> {"state": {class: {attr: json}}}
  {"op": "close", "handle": H}
"""

import copy
import importlib
import inspect
import json
import os
import re
import resource
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

# The names BFCL's eval sees besides the instances: the modules its evaluator module imports (and builtins).
BASE_NAMESPACE = {"copy": copy, "importlib": importlib, "inspect": inspect, "json": json, "re": re}


def install_package(source_dir):
    """Make the class files importable under BFCL's own package name (they import each other that way)."""
    parts = PACKAGE.split(".")
    for i in range(1, len(parts) + 1):
        name = ".".join(parts[:i])
        if name not in sys.modules:
            mod = types.ModuleType(name)
            mod.__path__ = [source_dir] if i == len(parts) else []
            sys.modules[name] = mod


class Handle:
    def __init__(self, classes, config, long_context, label):
        self.instances = {}
        self.namespace = dict(BASE_NAMESPACE)
        self.method_to_var = {}
        for class_name in classes:
            module = importlib.import_module(f"{PACKAGE}.{MODULES[class_name]}")
            instance = getattr(module, class_name)()
            if class_name not in STATELESS:
                instance._load_scenario(copy.deepcopy(config.get(class_name, {})), long_context=long_context)
            var = re.sub(r"[-./:]", "_", f"{label}_{class_name}_instance")
            self.instances[class_name] = instance
            self.namespace[var] = instance
            for method_name, _ in inspect.getmembers(instance, predicate=inspect.ismethod):
                if not method_name.startswith("_"):
                    self.method_to_var[method_name] = var

    def prefix_methods(self, call):
        def repl(m):
            name = m.group(1)
            return f"{self.method_to_var[name]}.{name}" if name in self.method_to_var else name

        return re.sub(r"\b([a-zA-Z_]\w*)\s*(?=\()", repl, call)

    def run(self, call):
        call = self.prefix_methods(call)
        try:
            head = call.split("(")[0] if "(" in call else call
            if "." in head:
                head = head.split(".")[1]
            if head in REFUSED:
                raise Exception(f"Function call {head} is not allowed.")
            result = eval(call, self.namespace)
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


def compare(model, ground_truth):
    differences = {}
    for class_name, gt in ground_truth.instances.items():
        m = model.instances.get(class_name)
        if m is None or type(m) != type(gt):
            differences[class_name] = {"__instance__": {"model": None, "ground_truth": type(gt).__name__}}
            continue
        diff = {}
        for attr in vars(gt):
            if attr.startswith("_"):
                continue
            a, b = getattr(m, attr), getattr(gt, attr)
            if a != b:
                diff[attr] = {"model": to_json(a), "ground_truth": to_json(b)}
        if diff:
            differences[class_name] = diff
            # BFCL's state checker stops at the first class that differs.
            break
    return {"valid": not differences, "differences": differences}


def main():
    source_dir = sys.argv[1]
    memory_mb = int(sys.argv[2]) if len(sys.argv) > 2 else 1024
    proto_out = os.fdopen(os.dup(1), "w", encoding="utf-8", newline="\n")
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.close(devnull)
    sys.stdout = open(os.devnull, "w", encoding="utf-8")

    install_package(source_dir)
    # Import what exists before the memory limit applies (modules load lazily otherwise).
    for name in MODULES.values():
        if os.path.exists(os.path.join(source_dir, name + ".py")):
            importlib.import_module(f"{PACKAGE}.{name}")
    limit = memory_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    handles = {}
    proto_out.write(json.dumps({"ready": True, "python": sys.version.split()[0]}) + "\n")
    proto_out.flush()
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            req = json.loads(line)
            op = req["op"]
            if op == "start":
                handles[req["handle"]] = Handle(req["classes"], json.loads(req["initial_config"]), req["long_context"], req["label"])
                out = {"ok": True}
            elif op == "call":
                h = handles[req["handle"]]
                out = {"results": [h.run(c) for c in req["calls"]]}
            elif op == "compare":
                out = compare(handles[req["model"]], handles[req["ground_truth"]])
            elif op == "snapshot":
                h = handles[req["handle"]]
                out = {"state": {c: to_json({k: v for k, v in vars(i).items() if not k.startswith("_")}) for c, i in h.instances.items()}}
            elif op == "close":
                handles.pop(req["handle"], None)
                out = {"ok": True}
            else:
                out = {"error": f"unknown op {op}"}
        except BaseException as e:  # noqa: BLE001 - one bad request must not end the worker
            if isinstance(e, KeyboardInterrupt):
                raise
            out = {"error": f"{type(e).__name__}: {e}"}
        proto_out.write(json.dumps(out) + "\n")
        proto_out.flush()


if __name__ == "__main__":
    main()
