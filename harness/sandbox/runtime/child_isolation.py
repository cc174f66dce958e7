"""Kernel-level walls between the CPython server's children, so that several rows' children may live at once.

The children of one server share a uid and a PID namespace: without these walls one row's child could stop, kill,
trace, read or re-limit another row's child (os.kill, pidfd_send_signal, /proc/PID/mem, prlimit, F_SETOWN + SIGIO).
`isolate()`, called in a fresh child before any row code runs, makes the child die with its parent, non-dumpable (its /proc files and
memory are closed to same-uid processes) and installs a seccomp filter that refuses, with EPERM:
  - signals to any process but itself (kill, tkill, tgkill, rt_sigqueueinfo, rt_tgsigqueueinfo: the target must be
    its own pid; pid 0 and negative pids, which name process groups, are refused too);
  - pidfds, ptrace, process_vm_readv/writev, kcmp, and changing another process's limits or scheduling
    (prlimit64 on a pid other than 0 or its own; setpriority, sched_set*, ioprio_set, migrate_pages, move_pages);
  - signal ownership (fcntl F_SETOWN / F_SETOWN_EX, ioctl FIOSETOWN / SIOCSPGRP: SIGIO/SIGURG to another process);
  - new namespaces (unshare, setns) and perf_event_open;
  - any other ABI than the native one (x32 syscall numbers, the 32-bit entry).
The filter cannot be removed by the process it is installed in, whatever the row patches in Python.

`available()` says whether the walls can be put up here (x86_64 Linux with ctypes and seccomp); where they cannot,
the server keeps its one-child-at-a-time rule.
"""

import os
import struct

AUDIT_ARCH_X86_64 = 0xC000003E
X32_SYSCALL_BIT = 0x40000000

# x86_64 syscall numbers.
SIGNAL_SELF_ONLY = (62, 200, 234, 129, 297)  # kill, tkill, tgkill, rt_sigqueueinfo, rt_tgsigqueueinfo
PRLIMIT64 = 302
FCNTL = 72
IOCTL = 16
DENIED = (
    101,  # ptrace
    310,  # process_vm_readv
    311,  # process_vm_writev
    312,  # kcmp
    424,  # pidfd_send_signal
    434,  # pidfd_open
    438,  # pidfd_getfd
    440,  # process_madvise
    448,  # process_mrelease
    141,  # setpriority
    142,  # sched_setparam
    144,  # sched_setscheduler
    203,  # sched_setaffinity
    314,  # sched_setattr
    251,  # ioprio_set
    256,  # migrate_pages
    279,  # move_pages
    274,  # get_robust_list
    298,  # perf_event_open
    272,  # unshare
    308,  # setns
)
F_SETOWN, F_SETOWN_EX = 8, 15
FIOSETOWN, SIOCSPGRP = 0x8901, 0x8902

RET_ALLOW = 0x7FFF0000
RET_EPERM = 0x00050000 | 1
LD_ABS_W = 0x20
JEQ = 0x15
JGE = 0x35
RET = 0x06
OFF_NR, OFF_ARCH, OFF_ARG0, OFF_ARG1 = 0, 4, 16, 24

PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
PR_SET_SECCOMP = 22
PR_SET_NO_NEW_PRIVS = 38
SECCOMP_MODE_FILTER = 2


def _ins(code, k, jt=0, jf=0):
    return (code, jt, jf, k)


def build_filter(pid):
    """The BPF program (a list of (code, jt, jf, k)) for a child whose pid is `pid`."""
    prog = [
        _ins(LD_ABS_W, OFF_ARCH),
        _ins(JEQ, AUDIT_ARCH_X86_64, 1, 0),
        _ins(RET, RET_EPERM),
        _ins(LD_ABS_W, OFF_NR),
        _ins(JGE, X32_SYSCALL_BIT, 0, 1),
        _ins(RET, RET_EPERM),
    ]
    for nr in DENIED:
        prog += [_ins(JEQ, nr, 0, 1), _ins(RET, RET_EPERM)]
    # Each block below loads an argument, so it ends in a return; the jump over it keeps the syscall number.
    for nr in SIGNAL_SELF_ONLY:
        prog += [
            _ins(JEQ, nr, 0, 4),
            _ins(LD_ABS_W, OFF_ARG0),
            _ins(JEQ, pid, 1, 0),
            _ins(RET, RET_EPERM),
            _ins(RET, RET_ALLOW),
        ]
    prog += [
        _ins(JEQ, PRLIMIT64, 0, 5),
        _ins(LD_ABS_W, OFF_ARG0),
        _ins(JEQ, pid, 2, 0),
        _ins(JEQ, 0, 1, 0),
        _ins(RET, RET_EPERM),
        _ins(RET, RET_ALLOW),
    ]
    for nr, bad in ((FCNTL, (F_SETOWN, F_SETOWN_EX)), (IOCTL, (FIOSETOWN, SIOCSPGRP))):
        prog += [
            _ins(JEQ, nr, 0, 5),
            _ins(LD_ABS_W, OFF_ARG1),
            _ins(JEQ, bad[0], 2, 0),
            _ins(JEQ, bad[1], 1, 0),
            _ins(RET, RET_ALLOW),
            _ins(RET, RET_EPERM),
        ]
    prog.append(_ins(RET, RET_ALLOW))
    return prog


def _libc():
    try:
        if os.uname().machine != "x86_64":
            return None
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return ctypes, libc.prctl
    except Exception:
        return None


_LIBC = _libc()


def isolate():
    """Put up the walls in the calling process (a fresh child); raises OSError when the kernel refuses."""
    if _LIBC is None:
        raise OSError("child isolation is not available on this platform")
    ctypes, prctl = _LIBC
    prog = build_filter(os.getpid())
    raw = b"".join(struct.pack("HBBI", *ins) for ins in prog)
    buf = ctypes.create_string_buffer(raw, len(raw))

    class SockFprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    fprog = SockFprog(len(prog), ctypes.cast(buf, ctypes.c_void_p))
    parent = os.getppid()
    for args in (
        # A kept child is stopped between calls: it must die with the server even where no PID namespace ends it.
        (PR_SET_PDEATHSIG, 9, 0, 0, 0),
        (PR_SET_DUMPABLE, 0, 0, 0, 0),
        (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0),
        (PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.addressof(fprog), 0, 0),
    ):
        if prctl(*[ctypes.c_ulong(a) for a in args]) != 0:
            err = ctypes.get_errno()
            raise OSError(err, f"prctl({args[0]}) failed: {os.strerror(err)}")
    if os.getppid() != parent:
        raise OSError("the server ended before the child was set up")


def available():
    """Whether isolate() works here: tried once in a throwaway child, which reports whether a wall held."""
    if _LIBC is None:
        return False
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        ok = b"0"
        try:
            os.close(r)
            isolate()
            try:
                os.kill(os.getppid(), 0)  # a signal to another process: must be refused now
            except PermissionError:
                os.kill(os.getpid(), 0)  # and one to itself still allowed
                ok = b"1"
        except BaseException:
            pass
        finally:
            os.write(w, ok)
            os._exit(0)
    os.close(w)
    got = os.read(r, 1)
    os.close(r)
    os.waitpid(pid, 0)
    return got == b"1"
