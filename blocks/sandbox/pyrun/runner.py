# flowctl's python block runner. Package pyrun embeds it; a sandbox worker
# becomes `python3 -I -S -B -c RUNNER CONFIG` once it has confined itself.
#
# Before it reads a request it sets its memory limit, installs the seccomp
# filter it was given (no process creation, no execve, no sockets but a
# pair for asyncio, no file opened for writing), an audit hook that refuses
# what blocks may not do with a clear error, and an import guard. Then it
# speaks the worker protocol of package isolate: requests, one JSON object
# a line, on file descriptor 3; log lines and replies on file descriptor 4.
import json
import os
import signal
import sys
import time

_cfg = json.loads(sys.argv[1])
_missing = list(_cfg.get("missing") or [])
_REQ, _REP = 3, 4
_FILE = "<block>"  # the file name of every block's code object
_write, _read, _monotonic = os.write, os.read, time.monotonic


def _limit_memory():
    fd = _cfg.get("statusfd", -1)
    if fd < 0:
        return "no status file"
    try:
        status = os.pread(fd, 8192, 0).decode("ascii", "replace")
    finally:
        os.close(fd)
    for line in status.splitlines():
        if line.startswith("VmSize:"):
            size = int(line.split()[1]) << 10
            break
    else:
        return "no VmSize in /proc/self/status"
    import resource
    n = size + int(_cfg["memory"])
    resource.setrlimit(resource.RLIMIT_AS, (n, n))
    return None


def _install_seccomp(hexfilter, nr):
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    filt = bytes.fromhex(hexfilter)
    buf = ctypes.create_string_buffer(filt, len(filt))

    class Fprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    prog = Fprog(len(filt) // 8, ctypes.addressof(buf))
    ul = ctypes.c_ulong
    if libc.prctl(ctypes.c_int(38), ul(1), ul(0), ul(0), ul(0)) != 0:  # PR_SET_NO_NEW_PRIVS
        raise OSError(ctypes.get_errno(), "no_new_privs: " + os.strerror(ctypes.get_errno()))
    # seccomp(SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &prog)
    if libc.syscall(ctypes.c_long(nr), ul(1), ul(1), ctypes.byref(prog)) != 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
    for name in [m for m in sys.modules if m == "ctypes" or m.startswith("ctypes.")]:
        del sys.modules[name]


try:
    _why = _limit_memory()
except (OSError, ValueError, ImportError) as e:
    _why = str(e)
if _why:
    _missing.append("the memory limit (%s)" % _why)
if _cfg.get("seccomp"):
    try:
        _install_seccomp(_cfg["seccomp"], _cfg["seccomp_nr"])
    except (OSError, ValueError, ImportError, AttributeError) as e:
        _missing.append("the seccomp system call filter (%s)" % e)

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


def _readable(path):
    try:
        p = _normpath(_fspath(path))
    except TypeError:
        return False
    if isinstance(p, bytes):
        p = p.decode("utf-8", "surrogateescape")
    return p in _READ_FILES or (p + "/").startswith(_ROOTS)


def _refuse(what, event, path=None):
    detail = event if path is None else "%s %s" % (event, path)
    raise PermissionError("python blocks cannot %s (%s)" % (what, detail))


def _audit(event, args):
    if _Guard.busy:
        return
    what = _DENY.get(event)
    if what is None:
        for prefix, w in _DENY_PREFIXES:
            if event.startswith(prefix):
                if event == "socket.__new__" and args[1] == 1:
                    return  # AF_UNIX: the pair asyncio's event loop wakes itself with
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
        if not _trusted_caller():
            _refuse("inspect or change the interpreter", event)
    elif event == "compile" and isinstance(args[1], str) and _trusted_file(args[1]):
        # Code may not pass itself off as the standard library's.
        if not _trusted_caller():
            _refuse("inspect or change the interpreter", "compile", repr(args[1]))


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


# A call's log: what it prints, a line a message, at most max_log bytes.
class _Log:
    def __init__(self, limit):
        self.limit, self.id, self.buf, self.size, self.cut = limit, 0, "", 0, False

    def begin(self, id):
        self.id, self.buf, self.size, self.cut = id, "", 0, False

    def write(self, s):
        if not isinstance(s, str):
            raise TypeError("write() argument must be str, not %s" % type(s).__name__)
        if self.id and not self.cut:
            self.buf += s
            if "\n" in self.buf or len(self.buf) > self.limit:
                lines = self.buf.split("\n")
                self.buf = lines.pop()
                if len(self.buf) > self.limit:
                    lines.append(self.buf)
                    self.buf = ""
                self._send(lines)
        return len(s)

    def _send(self, lines):
        out = []
        for line in lines:
            self.size += len(line) + 1
            if self.size > self.limit:
                line, self.cut = "[log truncated]", True
            out.append(b'{"id":%d,"log":%s}\n' % (self.id, _dumps(line).encode()))
            if self.cut:
                break
        _send(b"".join(out))

    def end(self):
        if self.buf and not self.cut:
            self._send([self.buf])
        self.id, self.buf = 0, ""

    def flush(self):
        pass

    def isatty(self):
        return False

    encoding, errors = "utf-8", "strict"


_log = _Log(int(_cfg.get("max_log", 64 << 10)))
sys.stdout = sys.stderr = _log
_real_print = _builtins.print


def _print(*args, sep=" ", end="\n", file=None, flush=False):
    if file is not None and file is not _log:
        return _real_print(*args, sep=sep, end=end, file=file, flush=flush)
    if sep is None:
        sep = " "
    if end is None:
        end = "\n"
    _log.write(sep.join([a if type(a) is str else str(a) for a in args]) + end)


class Logger:
    """ctx.logger: lines of the step's log, with a level."""

    def _emit(self, level, msg, args):
        text = str(msg)
        if args:
            text = text % args
        _log.write(level + " " + text + "\n")

    def debug(self, msg, *args):
        self._emit("DEBUG", msg, args)

    def info(self, msg, *args):
        self._emit("INFO", msg, args)

    def warning(self, msg, *args):
        self._emit("WARNING", msg, args)

    def error(self, msg, *args):
        self._emit("ERROR", msg, args)

    warn = warning
    exception = error


_logger = Logger()


class Context:
    """What execute is given besides its inputs: the step's name and attempt,
    the call's deadline (time.time() seconds; None without one) and a logger.
    It reads as an object (ctx.step) or a mapping (ctx["step"])."""

    __slots__ = ("step", "attempt", "deadline", "logger")

    def __init__(self, step, attempt, deadline):
        self.step, self.attempt, self.deadline, self.logger = step, attempt, deadline, _logger

    def remaining(self):
        """Seconds left before the deadline; None without one."""
        return None if self.deadline is None else max(0.0, self.deadline - time.time())

    def log(self, *args):
        _print(*args)

    def __getitem__(self, key):
        if key not in self.__slots__:
            raise KeyError(key)
        return getattr(self, key)

    def get(self, key, default=None):
        return getattr(self, key) if key in self.__slots__ else default

    def __repr__(self):
        return "Context(step=%r, attempt=%r)" % (self.step, self.attempt)


# The builtins a block's code sees: a fresh copy per call, with the import
# guard and print to the step's log.
_BUILTINS = dict(_builtins.__dict__)
_BUILTINS["__import__"] = _guarded_import
_BUILTINS["print"] = _print
for _name in ("breakpoint", "input", "help", "exit", "quit", "copyright", "credits", "license"):
    _BUILTINS.pop(_name, None)
_SNAPSHOT = list(_builtins.__dict__.items())
_REAL = _builtins.__dict__

_encode = json.JSONEncoder(separators=(",", ":"), allow_nan=False).encode
_dumps = json.JSONEncoder(separators=(",", ":")).encode


def _number(s):
    f = float(s)
    return int(f) if f.is_integer() else f


_decode = json.JSONDecoder(parse_float=_number).decode


async def _a():
    pass


_c = _a()
_Coroutine = type(_c)
_c.close()
del _a, _c


class _Deadline(BaseException):
    pass


class _Fail(Exception):
    def __init__(self, msg, kind="", line=0):
        Exception.__init__(self, msg)
        self.msg, self.kind, self.line = msg, kind, line


def _alarm(signum, frame):
    raise _Deadline()


signal.signal(signal.SIGALRM, _alarm)


class _Block:
    def __init__(self, d):
        self.name = d["name"]
        first = int(d.get("source_line") or 1)
        src = d["source"]
        # Blank lines before the code put it at its lines of the file.
        self.code = compile("\n" * (first - 1) + src, _FILE, "exec", dont_inherit=True)
        self.asyncio = "asyncio" in src


def _line_of(tb):
    _Guard.busy = True
    try:
        line = 0
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == _FILE:
                line = tb.tb_lineno
            tb = tb.tb_next
        return line
    finally:
        _Guard.busy = False


def _describe(e):
    try:
        text = str(e)
    except Exception:
        text = ""
    name = type(e).__name__
    return name + ": " + text if text else name


def _await(blk, coro):
    if blk.asyncio:
        import asyncio
        return asyncio.run(coro)
    try:
        coro.send(None)
    except StopIteration as stop:
        return stop.value
    coro.close()
    raise _Fail("execute awaited something that needs an event loop; import asyncio to use one")


def _run(blk, req):
    g = {"__builtins__": dict(_BUILTINS), "__name__": "block"}
    exec(blk.code, g)
    execute = g.get("execute")
    if not callable(execute):
        raise _Fail("the code defines no function execute(input, ctx)")
    ms = req.get("timeout_ms") or 0
    ctx = Context(req.get("step", ""), req.get("attempt") or 1, time.time() + ms / 1000 if ms else None)
    result = execute(req["inputs"], ctx)
    if type(result) is _Coroutine:
        result = _await(blk, result)
    return result


def _outputs(result, fields):
    if not isinstance(result, dict):
        if fields:
            want = "a dict with the outputs " + ", ".join(fields)
        else:
            want = "a dict"
        raise _Fail("execute must return %s; it returned %s" % (want, _short(result)), "output")
    names = fields if fields else [k for k in result if isinstance(k, str)]
    parts = []
    for name in names:
        if name not in result:
            raise _Fail("execute returned no output %s" % _dumps(name), "output")
        parts.append(_dumps(name) + ":" + _encode_output(name, result[name]))
    return "{" + ",".join(parts) + "}"


def _encode_output(name, v):
    try:
        return _encode(v)
    except (TypeError, ValueError, RecursionError) as e:
        msg = str(e)
        if "not JSON serializable" in msg:
            why = msg.replace("Object of type ", "holds a ").replace(" is not JSON serializable", "")
            why += ", which has no JSON form (return dicts, lists, str, int, float, bool or None)"
        elif "Out of range float" in msg:
            why = "holds %s, which is not a number a flow can hold" % _nonfinite(v)
        elif "Circular reference" in msg:
            why = "refers to itself"
        elif isinstance(e, RecursionError):
            why = "is nested too deeply"
        else:
            why = "cannot be written as JSON: " + msg
        raise _Fail("output %s %s" % (_dumps(name), why), "output")


def _nonfinite(v, depth=0):
    if isinstance(v, float) and v != v:
        return "NaN"
    if isinstance(v, float) and v in (float("inf"), float("-inf")):
        return "Infinity" if v > 0 else "-Infinity"
    if depth < 100 and isinstance(v, (list, tuple)):
        for x in v:
            r = _nonfinite(x, depth + 1)
            if r:
                return r
    if depth < 100 and isinstance(v, dict):
        for x in v.values():
            r = _nonfinite(x, depth + 1)
            if r:
                return r
    return "" if depth else "NaN or Infinity"


def _short(v):
    try:
        text = repr(v)
    except Exception:
        text = "a " + type(v).__name__
    return text if len(text) <= 200 else text[:200] + "…"


def _handle(req, blk):
    """Runs one call; returns the reply's fields (a dict) and whether the
    worker is to be replaced."""
    _log.begin(req["id"])
    ms = req.get("timeout_ms") or 0
    if ms:
        signal.setitimer(signal.ITIMER_REAL, ms / 1000, 0.05)
    try:
        try:
            out = _outputs(_run(blk, req), req.get("fields") or [])
            return {"outputs": out}, False
        finally:
            if ms:
                signal.setitimer(signal.ITIMER_REAL, 0)
    except _Deadline as e:
        return {"error": "exceeded its timeout", "timeout": True, "line": _line_of(e.__traceback__)}, True
    except _Fail as e:
        return {"error": e.msg, "kind": e.kind, "line": e.line}, False
    except MemoryError:
        return {"error": "exceeded its memory limit", "kind": "memory"}, True
    except RecursionError as e:
        return {"error": _describe(e), "line": _line_of(e.__traceback__)}, False
    except Exception as e:
        return {"error": _describe(e), "line": _line_of(e.__traceback__)}, False
    except BaseException as e:  # SystemExit, KeyboardInterrupt, GeneratorExit
        msg = "raised %s; a python block returns its outputs (or raises an Exception) instead" % _describe(e)
        return {"error": msg, "kind": "exit", "line": _line_of(e.__traceback__)}, False
    finally:
        _log.end()


def _tampered():
    if len(_REAL) != len(_SNAPSHOT):
        return "added or removed a builtin"
    for k, v in _SNAPSHOT:
        if _REAL.get(k, _SNAPSHOT) is not v:
            return "replaced the builtin %s" % k
    return None


def _threads_left():
    import _thread
    end = _monotonic() + 0.1
    while _thread._count() and _monotonic() < end:
        time.sleep(0.005)
    return _thread._count()


def _send(b):
    while b:
        n = _write(_REP, b)
        b = b[n:]


def _reply(id, fields, recycle):
    if "outputs" in fields:
        head = b'{"id":%d,"done":true' % id
        if recycle:
            head += b',"recycle":true'
        _send(head + b',"outputs":' + fields["outputs"].encode() + b"}\n")
        return
    fields["id"], fields["done"] = id, True
    if recycle:
        fields["recycle"] = True
    _send(_dumps({k: v for k, v in fields.items() if v}).encode() + b"\n")


def _serve():
    blocks = {}
    cpu = float(_cfg.get("cpu") or 0)
    buf, pos = b"", 0
    while True:
        nl = buf.find(b"\n", pos)
        if nl < 0:
            chunk = _read(_REQ, 1 << 16)
            if not chunk:
                return
            buf, pos = buf[pos:] + chunk, 0
            continue
        req = _decode(buf[pos:nl].decode("utf-8"))
        pos = nl + 1
        key = req["block_key"]
        if "block" in req:
            try:
                blocks[key] = _Block(req["block"])
            except (SyntaxError, ValueError) as e:
                _reply(req["id"], {"error": _describe(e), "line": getattr(e, "lineno", 0) or 0}, False)
                continue
        blk = blocks.get(key)
        if blk is None:
            _reply(req["id"], {"error": "the python worker was sent an unknown block"}, True)
            return
        req["fields"] = [f["name"] for f in req.get("outputs") or ()]
        fields, recycle = _handle(req, blk)
        why = _tampered()
        if why is None and _threads_left():
            why = "left threads running"
        if why is not None:
            recycle = True
            if "outputs" in fields:
                fields = {"error": "%s; python blocks must not change the interpreter they share" % why, "kind": "tamper"}
        if cpu and time.process_time() > cpu / 2:
            recycle = True
        _reply(req["id"], fields, recycle)
        if recycle:
            return


_send(_dumps({"hello": True, "missing": _missing}).encode() + b"\n")
try:
    _serve()
except BaseException as e:  # the runner's own failure: say why, for the pool's message
    _write(2, ("flowctl python runner: %s\n" % _describe(e)).encode("utf-8", "replace"))
    os._exit(1)
os._exit(0)
