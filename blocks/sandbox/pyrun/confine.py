# flowctl's python block runner, part 1 of 2: the confinement. Package
# pyrun embeds confine.py and runner.py; the pool starts
# `python3 -I -S -B -c CONFINE+RUNNER CONFIG` directly, with an empty
# environment.
#
# Before the runner reads a request, this part confines the process: a
# user and network namespace of its own (unshare), its resource limits,
# no_new_privs, the Landlock ruleset the pool built and passed as a file
# descriptor (reads of the interpreter's installation only), the memory
# limit and the seccomp filter it was given (no process
# creation, no execve, no sockets but a pair for asyncio, no file opened
# for writing). When any of it fails the runner refuses to run: it says
# why on standard error and exits before its hello. Then come an audit
# hook that refuses what blocks may not do with a clear error, and the
# import guard. runner.py then speaks the worker protocol.
# The runner imports only what the interpreter starts with, or nearly: JSON
# through _json (json itself imports re and enum, which would double the
# interpreter's start-up), signals through _signal, C functions through
# _ctypes (dropped once the confinement is in place).
import _json
import _signal
import os
import sys
import time
# The runner's own names for the builtins, which a block may replace in
# the interpreter's builtins module (the runner then replaces the worker).
from builtins import *  # noqa: F401,F403



class _Scanner:
    """What _json's scanner reads of a decoder (json.JSONDecoder's)."""
    strict = True
    object_hook = object_pairs_hook = None
    parse_int = int
    parse_constant = float

    def __init__(self, parse_float):
        self.parse_float = parse_float


def _decoder(parse_float=float):
    """json.loads of one JSON value, its floats made by parse_float."""
    scan = _json.make_scanner(_Scanner(parse_float))

    def decode(s):
        try:
            v, end = scan(s, 0)
        except StopIteration:
            raise ValueError("not JSON: %.40r" % s) from None
        if s[end:].strip():
            raise ValueError("extra data after JSON: %.40r" % s[end:])
        return v
    return decode


def _encoder(allow_nan=True):
    """json.JSONEncoder(separators=(",", ":"), allow_nan=allow_nan).encode,
    by the same C encoder."""
    def default(o):
        raise TypeError("Object of type %s is not JSON serializable" % o.__class__.__name__)

    def encode(o):
        # Markers of its own each time: a failed encoding leaves some behind.
        return "".join(_json.make_encoder({}, default, _json.encode_basestring_ascii, None, ":", ",",
                                          False, False, allow_nan)(o, 0))
    return encode


_cfg = _decoder()(sys.argv[1])
_missing = list(_cfg.get("missing") or [])
_REQ, _REP = 3, 4
_FILE = "<block>"  # the file name of every block's code object
_write, _read, _monotonic = os.write, os.read, time.monotonic


def _open_proc(name):
    try:
        return os.open("/proc/self/" + name, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return -1


# /proc/self/stat and status, opened before Landlock closes /proc: the
# runner reads its size and its number of threads in the one, the peak of
# its address space in the other (_memory_exhausted).
_statfd = _open_proc("stat")
_statusfd = _open_proc("status")
_memory_limit = 0  # the address space the worker may have; set by _confine


def _memory_exhausted():
    """Whether the address space reached the memory limit: its peak
    (VmPeak) within an allocation's reach of the limit."""
    if _statusfd < 0 or not _memory_limit:
        return False
    b = os.pread(_statusfd, 8192, 0)
    i = b.find(b"VmPeak:")
    if i < 0:
        return False
    peak = int(b[i + 7:b.index(b"kB", i)]) * 1024
    return peak + (16 << 20) >= _memory_limit


def _stat(field):
    """A field of /proc/self/stat (1-based, as proc(5) numbers them)."""
    b = os.pread(_statfd, 4096, 0)
    return int(b[b.rfind(b")") + 2:].split(b" ", field - 2)[field - 3])


def _ctypes():
    """The C types and functions the confinement needs, made as ctypes
    makes them from _ctypes, its C part: ctypes itself imports os, struct
    and more, which costs more than the rest of the runner's start. Returns
    the types (a class holding them) and the C library (its functions keep
    errno, for get_errno)."""
    import _ctypes as C

    class ct:
        Structure, byref, addressof, get_errno = C.Structure, C.byref, C.addressof, C.get_errno

    # c_ulong is 64 bits: amd64 and arm64 are LP64.
    for name, code in (("c_int", "i"), ("c_uint", "I"), ("c_long", "l"), ("c_ulong", "L"), ("c_ushort", "H"),
                       ("c_void_p", "P"), ("c_char", "c")):
        setattr(ct, name, type(name, (C._SimpleCData,), {"_type_": code}))

    class Func(C.CFuncPtr):  # ctypes.CDLL(None, use_errno=True)'s
        _flags_ = C.FUNCFLAG_CDECL | C.FUNCFLAG_USE_ERRNO
        _restype_ = ct.c_int

    class Libc:
        _handle = C.dlopen(None, C.RTLD_LOCAL)

        def __getattr__(self, name):
            return Func((name, self))

    return ct, Libc()


def _namespaces(ct, libc):
    """Moves the process into a user namespace of its own, which maps only
    its own user and group (and denies setgroups), and a network namespace
    of its own, which has no interface but loopback."""
    uid, gid = os.getuid(), os.getgid()
    if libc.unshare(ct.c_int(0x10000000 | 0x40000000)) != 0:  # CLONE_NEWUSER | CLONE_NEWNET
        n = ct.get_errno()
        raise OSError(n, os.strerror(n))
    for name, text in (("setgroups", "deny"), ("uid_map", "%d %d 1" % (uid, uid)), ("gid_map", "%d %d 1" % (gid, gid))):
        fd = os.open("/proc/self/" + name, os.O_WRONLY | os.O_CLOEXEC)
        try:
            os.write(fd, text.encode())
        finally:
            os.close(fd)


def _confine(ct, libc):
    """Confines the process; raises OSError naming the layer that failed."""
    landlock, nr, seccomp = _cfg.get("landlock", -1), _cfg.get("seccomp_nr", 0), _cfg.get("seccomp")
    if landlock < 0:
        raise OSError(0, "Landlock: no ruleset was given")
    if not seccomp:
        raise OSError(0, "the seccomp system call filter: none was given")
    if _statfd < 0:
        raise OSError(0, "the memory limit: /proc/self/stat cannot be read")
    ul = ct.c_ulong

    def check(ok, what):
        if not ok:
            n = ct.get_errno()
            raise OSError(n, "%s: %s" % (what, os.strerror(n)))

    class Rlimit(ct.Structure):
        _fields_ = [("cur", ct.c_ulong), ("max", ct.c_ulong)]

    def limit(res, n, name):
        check(libc.setrlimit(ct.c_int(res), ct.byref(Rlimit(n, n))) == 0, name)

    for res, n, name in _cfg.get("limits") or ():
        limit(res, n, name)
    # Two malloc arenas, not eight per processor: each reserves 64 MiB of
    # the address space the memory limit bounds, and threads would run out.
    libc.mallopt(ct.c_int(-8), ct.c_int(2))  # M_ARENA_MAX
    check(libc.prctl(ct.c_int(38), ul(1), ul(0), ul(0), ul(0)) == 0, "no_new_privs")  # PR_SET_NO_NEW_PRIVS
    # landlock_restrict_self(ruleset_fd, 0): the process (one thread yet)
    # and whatever it starts keep to the ruleset's rules.
    check(libc.syscall(ct.c_long(_cfg["landlock_nr"]), ct.c_int(landlock), ct.c_uint(0)) == 0,
          "Landlock")
    os.close(landlock)
    global _memory_limit
    _memory_limit = _stat(23) + int(_cfg["memory"])  # vsize: the size now
    limit(_cfg["memory_res"], _memory_limit, "the memory limit")
    filt = bytes.fromhex(seccomp)
    buf = (ct.c_char * len(filt))()
    buf.raw = filt

    class Fprog(ct.Structure):
        _fields_ = [("len", ct.c_ushort), ("filter", ct.c_void_p)]

    prog = Fprog(len(filt) // 8, ct.addressof(buf))
    # seccomp(SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &prog)
    check(libc.syscall(ct.c_long(nr), ul(1), ul(1), ct.byref(prog)) == 0,
          "the seccomp system call filter")


def _setup():
    """The namespaces and the confinement the configuration asks for; a
    worker that cannot confine itself refuses to run."""
    confine = _cfg.get("confine", True)  # not when the worker runs unconfined
    if not (confine or _cfg.get("namespaces")):
        return
    try:
        ct, libc = _ctypes()
        if _cfg.get("namespaces"):
            try:
                _namespaces(ct, libc)
            except OSError as e:  # the kernel lets no unprivileged process make them
                _missing.append("a user and network namespace (%s)" % (e.strerror or e))
        if confine:
            _confine(ct, libc)
    except BaseException as e:  # never run a block unconfined
        why = e.strerror if isinstance(e, OSError) and e.strerror else repr(e)
        os.write(2, ("refused to run: the python worker could not confine itself (%s)\n" % why).encode())
        os._exit(1)
    sys.modules.pop("_ctypes", None)


_setup()

# What a block may import: the allowlist of package pyrun, passed in.
_MODULES = frozenset(_cfg["modules"])
_MEMBERS = {k: frozenset(v) for k, v in (_cfg.get("members") or {}).items()}
_NO_SUBMODULES = frozenset(_cfg.get("no_submodules") or ())
_DENIED_NAMES = {k: frozenset(v) for k, v in (_cfg.get("denied_names") or {}).items()}


def _allowed(name, fromlist):
    if name in _MEMBERS:
        return bool(fromlist) and all(f in _MEMBERS[name] for f in fromlist)
    if name in _MODULES or (
            "." in name and name.partition(".")[0] in _MODULES
            and name.partition(".")[0] not in _NO_SUBMODULES):
        denied = _DENIED_NAMES.get(name)
        return not (denied and fromlist and any(f in denied for f in fromlist))
    return bool(fromlist) and all((name + "." + f) in _MODULES for f in fromlist)


def _listing():
    return ", ".join(sorted(_MODULES | {m + "." + n for m in _MEMBERS for n in _MEMBERS[m]}))


import builtins as _builtins  # noqa: E402

_real_import = _builtins.__import__


def _guarded_import(name, globals=None, locals=None, fromlist=(), level=0):
    if level:
        raise ImportError("python blocks cannot use relative imports (a block is one file)")
    if not _allowed(name, fromlist or ()):
        what = name
        if fromlist and name in _MEMBERS:
            what = "%s (only %s)" % (name, ", ".join(sorted(_MEMBERS[name])))
        raise ImportError("python blocks cannot import %s; they may import %s" % (what, _listing()))
    return _real_import(name, globals, locals, fromlist, level)


# The audit hook: the second layer, after the operating system's. It names
# what a block tried in words; the confinement refuses it anyway.
_ROOTS = tuple(p.rstrip("/") + "/" for p in _cfg.get("read") or ())
# A block's installed packages: readable, on the module path, not trusted
# as the standard library is.
_PACKAGES = _cfg.get("packages") or ""
_READ_ROOTS = _ROOTS + ((_PACKAGES.rstrip("/") + "/",) if _PACKAGES else ())
if _PACKAGES:
    sys.path.append(_PACKAGES)
_READ_FILES = frozenset(_cfg.get("read_files") or ())
_DENY = {
    "os.system": "start programs", "os.exec": "start programs", "os.posix_spawn": "start programs",
    "os.spawn": "start programs", "os.fork": "start programs", "os.forkpty": "start programs",
    "subprocess.Popen": "start programs", "pty.spawn": "start programs", "os.startfile": "start programs",
    "os.kill": "signal processes", "os.killpg": "signal processes", "signal.pthread_kill": "signal processes",
    "resource.setrlimit": "change their limits", "resource.prlimit": "change their limits",
    "os.putenv": "change the environment", "os.unsetenv": "change the environment",
    "os.chdir": "change directory", "os.truncate": "change files", "os.chmod": "change files",
    "os.chown": "change files", "os.link": "change files", "os.mkdir": "change files",
    "os.remove": "change files", "os.rename": "change files", "os.rmdir": "change files",
    "os.symlink": "change files", "os.utime": "change files", "os.setxattr": "change files",
    "os.removexattr": "change files", "shutil.rmtree": "change files", "shutil.move": "change files",
    "tempfile.mkstemp": "change files", "tempfile.mkdtemp": "change files",
    "urllib.Request": "use the network", "webbrowser.open": "start programs",
}
_DENY_PREFIXES = (
    ("socket.", "use the network"), ("http.client.", "use the network"), ("ftplib.", "use the network"),
    ("smtplib.", "use the network"), ("poplib.", "use the network"), ("imaplib.", "use the network"),
    ("nntplib.", "use the network"), ("telnetlib.", "use the network"), ("ctypes.", "call C functions (ctypes)"),
)
# Events refused when the block's own code (not the standard library's)
# raises them: reaching frames, code objects and every object.
_INTROSPECTION = frozenset((
    "object.__getattr__", "sys._getframe", "sys._current_frames", "gc.get_objects", "gc.get_referrers",
    "gc.get_referents", "sys.settrace", "sys.setprofile", "code.__new__", "function.__new__",
    "marshal.loads", "marshal.load", "sys.setrecursionlimit",
))
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
_getframe, _fspath, _normpath = sys._getframe, os.fspath, os.path.normpath


class _Guard:
    busy = False
    # preimport: the modules a block names are being imported before its
    # first call (reset.py), when no call's data is in the process. What
    # importing a package needs then is allowed: setting variables of the
    # process's environment (numpy sets OPENBLAS_MAIN_FREE; a worker
    # starts no program to read them), and what the standard library may
    # do to functions and code objects (numpy rewrites its functions'
    # __code__). Files, the network and programs stay refused.
    preimport = False


def _readable(path):
    try:
        p = _normpath(_fspath(path))
    except TypeError:
        return False
    if isinstance(p, bytes):
        p = p.decode("utf-8", "surrogateescape")
    return p in _READ_FILES or (p + "/").startswith(_READ_ROOTS)


def _refuse(what, event, path=None):
    detail = event if path is None else "%s %s" % (event, path)
    raise PermissionError("python blocks cannot %s (%s)" % (what, detail))


def _audit(event, args):
    if _Guard.busy:
        return
    what = _DENY.get(event)
    if what == "change the environment" and _Guard.preimport:
        return
    trusted = _Guard.preimport or None  # None: ask _trusted_caller
    if what is None:
        for prefix, w in _DENY_PREFIXES:
            if event.startswith(prefix):
                if event == "socket.__new__" and args[1] == 1:
                    return  # AF_UNIX: the pair asyncio's event loop wakes itself with
                if event in ("ctypes.dlopen", "ctypes.dlsym") and _Guard.preimport:
                    return  # loading a package's own C code (numpy imports ctypes)
                what = w
                break
    if what is not None:
        _refuse(what, event)
    if event == "open":
        path, mode, flags = args
        writes = (isinstance(mode, str) and any(c in mode for c in "wax+")) or (
            isinstance(flags, int) and flags & _WRITE_FLAGS)
        if writes:
            _refuse("write files", "open", repr(path))
        if not _readable(path):
            _refuse("open files", "open", repr(path))
    elif event in ("os.listdir", "os.scandir"):
        if args[0] is not None and not _readable(args[0]):
            _refuse("read directories", event, repr(args[0]))
    elif event in _INTROSPECTION:
        if not (trusted or _trusted_caller()):
            _refuse("inspect or change the interpreter", event)
    elif event == "compile" and isinstance(args[1], str) and _trusted_file(args[1]):
        # Code may not pass itself off as the standard library's.
        if not (trusted or _trusted_caller()):
            _refuse("inspect or change the interpreter", "compile", repr(args[1]))
    elif event == "object.__setattr__":
        # The code, defaults or keyword defaults of a module's function
        # (json.dumps's, print's), which later calls would run.
        _Guard.busy = True  # reading __globals__ is an event of its own
        try:
            g = getattr(args[0], "__globals__", None)
            m = sys.modules.get(g.get("__name__")) if type(g) is dict else None
            theirs = m is not None and getattr(m, "__dict__", None) is g
        finally:
            _Guard.busy = False
        if theirs and not (trusted or _trusted_caller()):
            _refuse("change what their other calls share", "%s of %s" % (args[1], getattr(args[0], "__qualname__", "?")))
    elif event == "sys.addaudithook":
        # A hook of the block's would see later calls' events.
        _refuse("add audit hooks", event)


def _trusted_file(filename):
    return filename.startswith(_ROOTS) or filename.startswith("<frozen ")


def _trusted_caller():
    """Whether the code that raised the event being audited is the
    standard library's (the interpreter's own installation)."""
    _Guard.busy = True
    try:
        return _trusted_file(_getframe(2).f_code.co_filename)
    finally:
        _Guard.busy = False


if _cfg.get("audit", True):
    sys.addaudithook(_audit)
