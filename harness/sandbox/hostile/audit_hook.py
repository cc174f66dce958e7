# Add an audit hook of our own that breaks what later rows do (time-zone files, imports, compiling their code).
def attack():
    sys = reach_sys()

    def evil(event, args):
        if event in ("open", "import", "compile", "exec"):
            raise RuntimeError("POISON " + event)

    return attempt(lambda: sys.addaudithook(evil))
