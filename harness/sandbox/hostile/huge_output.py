# Output that is too big: a huge return value, a bypass of the runtime's own cut (json.dumps made to answer
# with a 40 MB line), and floods on stdout and stderr.
def huge(n):
    return "x" * n


def bypass(size):
    sys = reach_sys()
    json = sys.modules["json"]
    real_dumps = json.dumps

    def dumps(obj, *args, **kwargs):
        if type(obj) is dict and "kind" in obj:
            obj = dict(obj)
            obj["content"] = "y" * size
            obj.pop("truncatedFrom", None)
        return real_dumps(obj, *args, **kwargs)

    json.dumps = dumps
    return "done"


def flood():
    sys = reach_sys()
    os = sys.modules["os"]
    print("o" * 5_000_000)
    os.write(2, b"e" * 5_000_000)
    return "flooded"


def read_stdin():
    sys = reach_sys()
    return attempt(lambda: sys.modules["os"].read(0, 100))
