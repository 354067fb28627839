# flowctl's python block runner, part 3 of 3: the calls (after confine.py
# and reset.py, in the same module). It speaks the worker protocol of
# package isolate: requests, one JSON object a line, on file descriptor 3;
# log lines and replies on file descriptor 4. Each call runs the block's
# code, compiled once, in fresh globals with the guarded builtins and a
# fresh contextvars.Context, then its execute; after it the interpreter is
# put back as it was before the first call (reset.py).

# A call's log: what it prints, a line a message, at most max_log bytes.
class _Log:
    # No __dict__: its fields change with every call, and it is the
    # runner's, not state a call could leave (reset.py records dicts).
    __slots__ = ("limit", "id", "buf", "size", "cut")

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
        self.id, self.buf, self.size, self.cut = 0, "", 0, False

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
_REAL = _builtins.__dict__

_encode = _encoder(allow_nan=False)
_dumps = _encoder()


def _number(s):
    f = float(s)
    return int(f) if f.is_integer() else f


_decode = _decoder(parse_float=_number)


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


_signal.signal(_signal.SIGALRM, _alarm)


class _Block:
    def __init__(self, d):
        self.name = d["name"]
        first = int(d.get("source_line") or 1)
        src = d["source"]
        # Blank lines before the code put it at its lines of the file.
        self.code = compile("\n" * (first - 1) + src, _FILE, "exec", dont_inherit=True)
        self.asyncio = "asyncio" in src
        # The modules it names, imported now, outside any call, and
        # recorded with the rest of the interpreter's state.
        n = len(sys.modules)
        _preimport(self.code)
        if len(sys.modules) != n:
            _slate.modules()


def _frames(tb):
    """The block's own frames of a traceback, outermost first: (line, name)."""
    _Guard.busy = True
    try:
        frames = []
        while tb is not None:
            code = tb.tb_frame.f_code
            if code.co_filename == _FILE:
                frames.append((tb.tb_lineno, code.co_name))
            tb = tb.tb_next
        return frames
    finally:
        _Guard.busy = False


def _line_of(tb):
    frames = _frames(tb)
    return frames[-1][0] if frames else 0


def _log_traceback(e, limit=10):
    """Writes the block's frames of an exception's traceback to the log."""
    frames = _frames(e.__traceback__)
    if not frames:
        return
    _log.write("Traceback (most recent call last):\n")
    if len(frames) > limit:
        _log.write("  … %d more\n" % (len(frames) - limit))
    for line, name in frames[-limit:]:
        _log.write("  line %d, in %s\n" % (line, name))
    _log.write(_describe(e) + "\n")


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
        _signal.setitimer(_signal.ITIMER_REAL, ms / 1000, 0.05)
    try:
        try:
            # A context of its own: contextvars, decimal's context among
            # them, start unset in every call.
            out = _outputs(_contextvars.Context().run(_run, blk, req), req.get("fields") or [])
            return {"outputs": out}, False
        finally:
            if ms:
                _signal.setitimer(_signal.ITIMER_REAL, 0)
    except _Deadline as e:
        return {"error": "exceeded its timeout", "timeout": True, "line": _line_of(e.__traceback__)}, True
    except _Fail as e:
        return {"error": e.msg, "kind": e.kind, "line": e.line}, False
    except MemoryError:
        return {"error": "exceeded its memory limit", "kind": "memory"}, True
    except SystemError as e:
        # CPython 3.11 raises no MemoryError when it cannot allocate a
        # Python frame (deep recursion at the memory limit): the call ends
        # in this SystemError instead. The address space's peak at the
        # limit tells it from an interpreter error of another kind.
        if str(e) == "error return without exception set" and _memory_exhausted():
            return {"error": "exceeded its memory limit", "kind": "memory"}, True
        _log_traceback(e)
        return {"error": _describe(e), "line": _line_of(e.__traceback__)}, False
    except Exception as e:
        _log_traceback(e)
        return {"error": _describe(e), "line": _line_of(e.__traceback__)}, False
    except BaseException as e:  # SystemExit, KeyboardInterrupt, GeneratorExit
        msg = "raised %s; a python block returns its outputs (or raises an Exception) instead" % _describe(e)
        return {"error": msg, "kind": "exit", "line": _line_of(e.__traceback__)}, False
    finally:
        _log.end()


def _tampered():
    """Threads a call left running, which would run on in later calls, or
    None. (What else it changed, reset.py puts back.)"""
    n = _threads_left()
    if n:
        return ("execute returned with %d thread%s of its own still running; a python block may not leave "
                "threads behind" % (n, "" if n == 1 else "s"))
    return None


def _threads_left():
    """The threads other than this one, waiting a little for them to end:
    the kernel's count, which a thread has from the moment it is made."""
    if _statfd < 0:
        return 0
    end = _monotonic() + 0.1
    while _stat(20) > 1 and _monotonic() < end:
        time.sleep(0.005)
    return _stat(20) - 1


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
        if cpu and time.process_time() > cpu / 2:
            recycle = True
        if why is None and not recycle:
            # The interpreter put back for the next call (a worker about
            # to be replaced serves none).
            why = _slate.reset()
            if why is not None:
                why += "; a python block may not change what its other calls share"
        if why is not None:
            recycle = True
            if "outputs" in fields:
                fields = {"error": why, "kind": "tamper"}
        _reply(req["id"], fields, recycle)
        if recycle:
            return


try:
    # The interpreter as every call is to find it.
    _slate = _Slate()
    _slate.take()
    _send(_dumps({"hello": True, "missing": _missing}).encode() + b"\n")
    _serve()
except BaseException as e:  # the runner's own failure: say why, for the pool's message
    _write(2, ("flowctl python runner: %s\n" % _describe(e)).encode("utf-8", "replace"))
    os._exit(1)
os._exit(0)
