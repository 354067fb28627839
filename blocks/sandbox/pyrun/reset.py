# flowctl's python block runner, part 2 of 3: what a call leaves behind
# (after confine.py, before runner.py, in the same module). A worker runs
# many calls; each must find the interpreter as the worker had it before
# any call ran, whatever the calls before it changed. After each call the
# runner puts back, by what it recorded before the first (and after each
# module it imports for the block, outside any call):
#
#   - every module's attributes, and which modules are imported: a module
#     a call imported is dropped and imported again by the runner, after
#     the rest is put back, so that what the call did to it is gone;
#   - one level below: the attributes of the classes, functions and other
#     objects a module holds (json.JSONEncoder.x, random._inst's), its
#     lists, dicts and sets (but those whose names begin with one
#     underscore: the standard library's caches, re's compiled patterns);
#   - the interpreter's settings: the recursion limit, the limit of int
#     digits, the switch interval, trace and profile functions, the
#     garbage collector's, the working directory, the SIGALRM handler and
#     timer;
#   - decimal's contexts: each call runs in a fresh contextvars.Context
#     (so decimal.getcontext() is a new one), and DefaultContext,
#     BasicContext and ExtendedContext get back their settings;
#   - random's generator, seeded anew from os.urandom, as in a new
#     interpreter;
#   - file descriptors: every one the worker did not have is closed (a
#     pipe kept as a hiding place), and a call that put something else in
#     place of its standard input, output or error fails, and its worker
#     is replaced (as one that changed the builtins).
#
# Telling what a call changed is most of the cost: the runner reads the
# version CPython keeps in each dict (PEP 509) where it can, and compares
# a dict with its record only when its version moved; elsewhere (an
# interpreter whose dicts it cannot read that way) it compares them all.
#
# What this cannot reach is said in docs/runtime.md: state deeper than one
# level below a module (a function's or object's __dict__ replaced whole), C extensions' own (the codec registry, ABC
# registrations), and what code reaching past the audit hook undoes. Such
# state never crosses from a call given a sensitive value to one that is
# not: the pool keeps their workers apart.
import gc as _gc
import _contextvars
import _operator

_FunctionType = type(_decoder)
_ModuleType = type(sys)
_CodeType = type(compile("", "<runner>", "exec"))
_IMMUTABLE = 1 << 8  # Py_TPFLAGS_IMMUTABLETYPE: a type whose attributes cannot be set
# Values a module holds that hold nothing a call could change: skipped
# at once when recording (most of a module's names).
_PLAIN = frozenset(map(type, (0, 0.0, 0j, "", b"", True, None, (), frozenset(), len, Ellipsis, NotImplemented,
                              object.__init__, str.join, range(0), _ModuleType.__dict__["__dict__"])))


def _versions():
    """How to read a dict's version (PEP 509's ma_version_tag, which
    CPython changes with every change to the dict), or None where this
    interpreter has none to read: a view of the 64 bits after the dict's
    object header and size, found to change when a dict does. With it the
    reset tells which of the dicts it records a call changed by reading a
    number each, rather than comparing every entry (most of its cost)."""
    try:
        import _ctypes
    except ImportError:
        return None
    finally:
        sys.modules.pop("_ctypes", None)

    class u64(_ctypes._SimpleCData):
        _type_ = "Q"

    # PyObject_HEAD and ma_used; a build that traces references has two
    # more pointers in each header.
    off = 24 + (16 if hasattr(sys, "getobjects") else 0)

    def view(d):
        return u64.from_address(id(d) + off)

    d = {}
    v = view(d)
    seen = [v.value]
    for k, x in (("a", 1), ("b", 2), ("a", 3)):
        d[k] = x
        seen.append(v.value)
    del d["b"]
    seen.append(v.value)
    if any(a == b for a, b in zip(seen, seen[1:])):
        return None
    return view


_value = _operator.attrgetter("value")


def _differs(a, b):
    """Whether a live dict (or container) differs from its record; one whose
    comparison fails (a value's __eq__ raised) differs."""
    try:
        return a != b
    except BaseException:
        return True


class _Slate:
    """What the interpreter had before any call, and putting it back."""

    def __init__(self):
        self.known = {}  # sys.modules as recorded
        # What a call could change, compared with its record after each
        # call: modules' dicts, the __dict__ and __kwdefaults__ of their
        # functions and objects, their mutable classes' __dict__ (owner:
        # the class), their lists, dicts and sets (owner: None).
        self.live, self.snap, self.owner = [], [], []
        # The dicts among them (a class's own dict for its mappingproxy):
        # their indexes in live, a view of each one's version, and the
        # versions recorded. The others (lists, sets; every one where
        # there are no versions to read) are compared whole.
        self.vindex, self.views, self.versions = [], [], []
        self.others = []
        self.view = None
        self.empty = []  # functions' __dict__ that were empty: checked at once
        self.seen = set()  # ids of what is recorded (each once)
        self.keep = []  # the worker's own file descriptors: (fd, (st_dev, st_ino))
        self.contexts = []  # decimal's module-level contexts: (context, record)
        self.seed = None  # random's generator's seed method
        self.settings = None
        self.cwd = None
        self.gc = None
        # Not recorded as state: the record itself, and sys.modules (which
        # the reset puts back on its own).
        self.seen.update((id(self), id(self.__dict__), id(sys.modules)))

    def take(self):
        """Records the interpreter as it is: called once the runner is
        defined, before the first request is read."""
        self.settings = (sys.getrecursionlimit(), sys.get_int_max_str_digits(), sys.getswitchinterval())
        self.cwd = os.getcwd()
        self.gc = (_gc.isenabled(), _gc.get_threshold())
        busy, _Guard.busy = _Guard.busy, True  # ctypes's events
        try:
            self.view = _versions() if _cfg.get("versions", True) else None
        finally:
            _Guard.busy = busy
        self.keep = []
        for fd in range(min(_MAXFD, 256)):  # the worker starts with a few
            try:
                st = os.fstat(fd)
            except OSError:
                continue
            self.keep.append((fd, (st.st_dev, st.st_ino)))
        self.modules()

    def modules(self):
        """Records the modules imported since the last record, and the state
        of the others again: importing a module changes some (its package's
        attributes, sys.path_importer_cache). Called only when the
        interpreter is as recorded but for those imports."""
        busy, _Guard.busy = _Guard.busy, True  # reading functions' attributes raises events
        try:
            for name, m in list(sys.modules.items()):
                if name in self.known:
                    continue
                self.known[name] = m
                if not isinstance(m, _ModuleType):
                    continue
                d = m.__dict__
                self.record(d, d)
                for k, v in list(d.items()):
                    if type(v) not in _PLAIN:
                        self.member(k, v, name)
            self.snap = [v.copy() for v in self.live]  # a class's mappingproxy copies to a dict
            self.contexts = [(c, self.context(c)) for c, _ in self.contexts]
            self.vindex, self.views, self.others = [], [], []
            for i, (v, cls) in enumerate(zip(self.live, self.owner)):
                d = v if cls is None else _gc.get_referents(v)[0]
                if self.view is not None and type(d) is dict:
                    self.vindex.append(i)
                    self.views.append(self.view(d))
                else:
                    self.others.append(i)
            self.versions = list(map(_value, self.views))
        finally:
            _Guard.busy = busy

    def record(self, v, key, owner=None):
        if id(key) not in self.seen:
            self.seen.add(id(key))
            self.live.append(v)
            self.snap.append(None)  # made by modules()
            self.owner.append(owner)

    def member(self, name, v, module):
        t = type(v)
        if t is _ModuleType or id(v) in self.seen:
            return  # a module is recorded as one
        if t is _FunctionType:
            d = v.__dict__
            if not d:
                if id(d) not in self.seen:
                    self.seen.add(id(d))
                    self.empty.append(d)
            else:
                self.record(d, d)
            if v.__kwdefaults__ is not None:
                self.record(v.__kwdefaults__, v.__kwdefaults__)
            return
        if t in (list, dict, set):
            if name.startswith("_") and not name.endswith("__") and module != "__main__":
                return  # the module's own, a cache: re._cache
            self.record(v, v)
            return
        if isinstance(v, type):
            if not v.__flags__ & _IMMUTABLE and v is not _Guard:
                self.record(v.__dict__, v, v)
            return
        if module in ("decimal", "_decimal", "_pydecimal") and t.__name__ == "Context":
            self.seen.add(id(v))
            self.contexts.append((v, None))
            return
        if module == "random" and name == "_inst":
            self.seed = v.seed
        try:
            d = object.__getattribute__(v, "__dict__")
        except Exception:
            return
        if type(d) is dict:
            self.record(d, d)

    @staticmethod
    def context(c):
        """A context's settings: prec, rounding, Emin, Emax, capitals, clamp,
        and the lists of its flags and traps (what pickling it keeps; its
        flags and traps as mappings would be read through
        collections.abc, many times slower)."""
        return c.__reduce__()[1]

    def changed(self):
        """What may have changed since recorded: pairs of the index in live
        and the index in views (-1 for what has no version)."""
        out = []
        if self.views:
            now = list(map(_value, self.views))
            if now != self.versions:
                out = [(self.vindex[j], j) for j, (a, b) in enumerate(zip(now, self.versions)) if a != b]
        if self.others:
            out += [(i, -1) for i in self.others if _differs(self.live[i], self.snap[i])]
        return out

    def reset(self):
        """Puts the interpreter back as recorded. Returns why the worker must
        be replaced when something cannot be put back, else None."""
        _Guard.busy = True  # the runner's own changes are not the block's
        _gc.disable()
        trash = []  # what the call left, freed once all is back
        try:
            why = self._reset(trash)
            if trash:
                # Finalizers of what the call left run now, and may change
                # things again.
                trash.clear()
                if why is None and (self.changed() or _differs(sys.modules, self.known) or any(map(len, self.empty))):
                    why = "left objects whose finalizers changed the interpreter's state"
            return why
        finally:
            if self.gc[0]:
                _gc.enable()
            _Guard.busy = False

    def _reset(self, trash):
        why = None
        mods = sys.modules
        new = ()
        if _differs(mods, self.known):
            new = [name for name in mods if name not in self.known]
            trash.append(mods.copy())
            mods.clear()
            mods.update(self.known)
        changed = self.changed()
        if changed:
            for i, j in changed:
                v, s, cls = self.live[i], self.snap[i], self.owner[i]
                if j >= 0:
                    self.versions[j] = -1  # read again below, once it is back
                if not _differs(v, s):
                    continue  # changed and changed back
                trash.append(v.copy())
                if cls is not None:
                    if not self._class(cls, v, s):
                        why = "changed the class %s, which could not be put back" % cls.__qualname__
                    continue
                if v is _REAL and why is None:
                    why = "changed the interpreter's builtins (%s)" % _which(v, s)
                v.clear()
                if type(v) is list:
                    v.extend(s)
                else:
                    v.update(s)
            for _, j in changed:
                if j >= 0:
                    self.versions[j] = self.views[j].value
            w = mods.get("warnings")
            if w is not None and hasattr(w, "_filters_mutated"):
                w._filters_mutated()
        if any(map(len, self.empty)):
            for d in self.empty:
                if d:
                    trash.append(d.copy())
                    d.clear()
        for c, s in self.contexts:
            if self.context(c) != s:
                c.prec, c.rounding, c.Emin, c.Emax, c.capitals, c.clamp = s[:6]
                c.clear_flags()
                c.clear_traps()
                for f in s[6]:
                    c.flags[f] = True
                for f in s[7]:
                    c.traps[f] = True
        limit, digits, interval = self.settings
        if sys.getrecursionlimit() != limit:
            sys.setrecursionlimit(limit)
        if sys.get_int_max_str_digits() != digits:
            sys.set_int_max_str_digits(digits)
        if sys.getswitchinterval() != interval:
            sys.setswitchinterval(interval)
        if sys.gettrace() is not None:
            sys.settrace(None)
        if sys.getprofile() is not None:
            sys.setprofile(None)
        if _gc.get_threshold() != self.gc[1]:
            _gc.set_threshold(*self.gc[1])
        if _signal.getsignal(_signal.SIGALRM) is not _alarm:
            _signal.signal(_signal.SIGALRM, _alarm)
        _signal.setitimer(_signal.ITIMER_REAL, 0)
        if os.getcwd() != self.cwd:
            os.chdir(self.cwd)
        why = self._fds() or why
        if new:
            # The modules the call imported, imported again from a clean
            # interpreter: the next call finds them as the first did.
            for name in new:
                try:
                    _real_import(name)
                except BaseException:
                    pass
            self.modules()
        if self.seed is not None:
            self.seed(int.from_bytes(os.urandom(32), "little"))
        return why

    @staticmethod
    def _class(cls, live, s):
        ok = True
        for k in [k for k in live if k not in s]:
            try:
                type.__delattr__(cls, k)
            except BaseException:
                ok = False
        for k, v in s.items():
            if live.get(k, _differs) is not v:
                try:
                    type.__setattr__(cls, k, v)
                except BaseException:
                    ok = False
        return ok

    def _fds(self):
        """Closes the descriptors the call opened; says why the worker must
        go when it put something else in place of its standard input,
        output or error, where a later call could read it. (A call that
        replaces the protocol's pipes or /proc/self/stat breaks its worker,
        which is then replaced.)"""
        why = None
        low = 0
        for fd, ident in self.keep:
            if low < fd:
                os.closerange(low, fd)
            low = fd + 1
            if fd > 2:
                continue
            try:
                st = os.fstat(fd)
                if (st.st_dev, st.st_ino) != ident:
                    why = "replaced the worker's file descriptor %d" % fd
            except OSError:
                why = "closed the worker's file descriptor %d" % fd
        os.closerange(low, _MAXFD)
        return why


def _which(d, s):
    """Which builtin a call replaced, added or removed."""
    for k, v in s.items():
        if d.get(k, _which) is not v:
            return "replaced the builtin %s" % k
    return "added or removed a builtin"


# The descriptors that can be open: RLIMIT_NOFILE's (32, confined).
try:
    _MAXFD = min(os.sysconf("SC_OPEN_MAX"), 1 << 16)
except (ValueError, OSError):
    _MAXFD = 1 << 10


def _names(code, out):
    """The names a code object and those inside it use: the modules it
    imports among them."""
    out.update(code.co_names)
    for c in code.co_consts:
        if type(c) is _CodeType:
            _names(c, out)
    return out


def _preimport(code):
    """Imports, outside any call, the modules of the allowlist a block's
    code names, so that its calls find them imported and recorded."""
    names = _names(code, set())
    for m in sorted(_MODULES | frozenset(_MEMBERS)):
        parts = m.split(".")
        if m in names or all(p in names for p in parts):
            _Guard.preimport = True
            try:
                _real_import(m)
            except BaseException:
                pass
            finally:
                _Guard.preimport = False
