# n8n's Code node in Python, as n8n 1.x runs it (PythonSandbox, on
# Pyodide): the code is the body of a function whose globals are the
# node's context with $ spelled _ (_input, _json, _('Node'), items or
# item...); the items are JavaScript objects, which Python reads through
# proxies (attributes and keys alike, .to_py() for a dict); what the code
# returns is made JavaScript again (dicts objects, lists and tuples
# arrays) and read as the JavaScript Code node's result is.

ITEM_KEYS = ("json", "binary", "pairedItem", "error", "index")


class AdapterError(Exception):
    pass


class JsObject:
    """A JavaScript object as Pyodide's JsProxy gives it (as an object
    map): keys and attributes read the same, a missing one is an error."""

    __slots__ = ("_o",)

    def __init__(self, o):
        object.__setattr__(self, "_o", o)

    def __getattr__(self, k):
        try:
            return proxy(self._o[k])
        except KeyError:
            raise AttributeError(k) from None

    def __setattr__(self, k, v):
        self._o[k] = to_js(v)

    def __delattr__(self, k):
        del self._o[k]

    def __getitem__(self, k):
        return proxy(self._o[k])

    def __setitem__(self, k, v):
        self._o[k] = to_js(v)

    def __delitem__(self, k):
        del self._o[k]

    def __contains__(self, k):
        return k in self._o

    def __iter__(self):
        return iter(list(self._o))

    def __len__(self):
        return len(self._o)

    def get(self, k, default=None):
        return proxy(self._o[k]) if k in self._o else default

    def keys(self):
        return list(self._o.keys())

    def values(self):
        return [proxy(v) for v in self._o.values()]

    def items(self):
        return [(k, proxy(v)) for k, v in self._o.items()]

    def to_py(self):
        return copy_json(self._o)

    def __repr__(self):
        return "[object Object]"


class JsArray:
    """A JavaScript array as Pyodide's JsProxy gives it."""

    __slots__ = ("_a",)

    def __init__(self, a):
        object.__setattr__(self, "_a", a)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [proxy(v) for v in self._a[i]]
        return proxy(self._a[i])

    def __setitem__(self, i, v):
        self._a[i] = to_js(v)

    def __len__(self):
        return len(self._a)

    def __iter__(self):
        return iter([proxy(v) for v in self._a])

    def __contains__(self, v):
        return to_js(v) in self._a

    def append(self, v):
        self._a.append(to_js(v))

    def extend(self, vs):
        self._a.extend(to_js(v) for v in vs)

    def index(self, v):
        return self._a.index(to_js(v))

    def count(self, v):
        return self._a.count(to_js(v))

    def to_py(self):
        return copy_json(self._a)

    def __repr__(self):
        return repr(copy_json(self._a))


def proxy(v):
    if v is UNDEFINED:
        return None
    if isinstance(v, dict):
        return JsObject(v)
    if isinstance(v, list):
        return JsArray(v)
    return v


def copy_json(v):
    if v is UNDEFINED:
        return None
    if isinstance(v, dict):
        return {k: copy_json(x) for k, x in v.items()}
    if isinstance(v, list):
        return [copy_json(x) for x in v]
    return v


class Undefined:
    """JavaScript's undefined, which Pyodide makes of None: a key that
    holds it is left out of the item's JSON, an array's element is null."""

    __slots__ = ()


UNDEFINED = Undefined()


def js_key(k):
    """The property name Object.fromEntries makes of a Python key, as
    JavaScript writes the value Pyodide gives it."""
    if isinstance(k, str):
        return k
    if isinstance(k, bool):
        return "true" if k else "false"
    if k is None:
        return "undefined"
    if isinstance(k, int):
        return str(k)
    if isinstance(k, float) and k == k and abs(k) < 1e21:
        if k == int(k):
            return str(int(k))
        if "e" not in repr(k):
            return repr(k)
    raise AdapterError("the code returns a dictionary with the key %r, which flowctl does not write as n8n's JavaScript does" % (k,))


def to_js(v):
    """What Pyodide's toJs makes of a value (dict_converter
    Object.fromEntries): a proxy its JavaScript value, a dict an object, a
    list or tuple an array, None undefined."""
    if isinstance(v, JsObject):
        return v._o
    if isinstance(v, JsArray):
        return v._a
    if v is None:
        return UNDEFINED
    if isinstance(v, dict):
        return {js_key(k): to_js(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [to_js(x) for x in v]
    if isinstance(v, (str, bool, int, float)):
        return v
    raise AdapterError("the code returns a %s, which n8n's Python Code node does not give as JSON" % type(v).__name__)


def to_json(v):
    """The JSON n8n keeps of an item's value: undefined keys left out,
    undefined elements null."""
    if isinstance(v, dict):
        return {k: to_json(x) for k, x in v.items() if x is not UNDEFINED}
    if isinstance(v, list):
        return [None if x is UNDEFINED else to_json(x) for x in v]
    return v


class Accessor:
    """_input, or _('Node'): the items of a node."""

    def __init__(self, name, items, index):
        self._name, self._items, self._index = name, items, index

    def all(self):
        return [proxy(it) for it in self._items]

    def first(self):
        return proxy(self._items[0]) if self._items else None

    def last(self):
        return proxy(self._items[-1]) if self._items else None

    @property
    def item(self):
        if self._index is None:
            raise AdapterError("The paired item in the items of %s is not known" % self._name)
        if self._index >= len(self._items):
            raise AdapterError("No item %d in the items of %s" % (self._index, self._name))
        return proxy(self._items[self._index])


def wrap(jsons):
    return [{"json": j, "pairedItem": {"item": i}} for i, j in enumerate(jsons)]


NOT_ITEMS = "Code doesn't return items properly: please return a list of dictionaries, one for each item you would like to output."


def normalize_items(result):
    """n8n's normalizeItems."""
    if isinstance(result, dict):
        result = [result] if js_truthy(result.get("json", UNDEFINED)) else [{"json": result}]
    if all("json" in it for it in result):
        return result
    if any("json" in it for it in result):
        raise AdapterError("Inconsistent item format")
    if any("binary" in it for it in result):
        raise AdapterError("the code returns binary data, which a flow's items do not carry")
    return [{"json": it} for it in result]


def check_item(it, i):
    """n8n's validateItem."""
    if not isinstance(it.get("json", UNDEFINED), dict):
        raise AdapterError("A 'json' property isn't a dictionary [item %d]" % i)
    if "binary" in it:
        raise AdapterError("the code returns binary data, which a flow's items do not carry [item %d]" % i)


def check_keys(it, i):
    """n8n's validateTopLevelKeys."""
    unknown = [k for k in it if k not in ITEM_KEYS]
    if unknown:
        if any(k in ITEM_KEYS for k in it):
            raise AdapterError("Unknown top-level item key: %s, beside %s [item %d]" % (unknown[0], [k for k in it if k in ITEM_KEYS][0], i))
        raise AdapterError("Unknown top-level item key: %s [item %d]" % (unknown[0], i))


def items_of_all(result):
    """The items n8n makes of what the code run once for all items returns
    (validateRunCodeAllItems)."""
    if not isinstance(result, (dict, list)):
        raise AdapterError(NOT_ITEMS)
    if isinstance(result, list):
        for it in result:
            if not isinstance(it, dict):
                raise AdapterError(NOT_ITEMS)
        if any(k in ITEM_KEYS for it in result for k in it):
            for i, it in enumerate(result):
                check_keys(it, i)
    out = normalize_items(result)
    for i, it in enumerate(out):
        check_item(it, i)
    return out


def item_of_each(result, index):
    """The item n8n makes of what the code run once for each item returns
    (validateRunCodeEachItem)."""
    if isinstance(result, list):
        raise AdapterError("Code doesn't return a single dictionary [item %d]" % index)
    if not isinstance(result, dict):
        raise AdapterError("Code doesn't return a dictionary [item %d]" % index)
    it = normalize_items([result])[0]
    check_item(it, index)
    check_keys(it, index)
    return it


def js_truthy(v):
    if v is UNDEFINED or v is None or v is False or v == "":
        return False
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return v == v and v != 0
    return True


def pairs_of(out, inputs):
    """The index of the input item each output item pairs with, as n8n
    sets it (assignPairedItems): an input item returned keeps its own, a
    new one (toJs makes every dict new) pairs with item 0 when one item
    came in, item i when as many came in as went out, item 0 when one went
    out; else none."""
    n_in, n_out = len(inputs), len(out)
    pairs = []
    for i, it in enumerate(out):
        p = it.get("pairedItem")
        if p is None:
            if n_in == 1:
                pairs.append(0)
            elif n_in == n_out:
                pairs.append(i)
            elif n_out == 1 and n_in > 1:
                pairs.append(0)
            else:
                pairs.append(None)
            continue
        own = [k for k, x in enumerate(inputs) if x is it]
        pairs.append(own[0] if own else None)
    return pairs


def run(code, scope):
    body = "\n".join("  " + line for line in code.split("\n"))
    src = "def __main():\n" + body + "\n"
    g = dict(scope)
    exec(compile(src, "<n8n Code node>", "exec"), g)
    return g["__main"]()


def execute(input, ctx):
    jsons = input["items"] or []
    mode, index = input["mode"], int(input["index"])
    items = wrap(jsons)
    nodes = {name: wrap(list(js)) for name, js in (input["nodes"] or {}).items()}
    pairs = input["pairs"] or {}

    def node(name):
        if name not in nodes:
            raise AdapterError('Referenced node "%s" is unknown or has not run' % name)
        p = pairs.get(name)
        return Accessor(name, nodes[name], p[index] if p is not None else None)

    each = mode == "runOnceForEachItem"
    if not each and not items:
        return {"items": [], "pairs": []}
    current = items[index if each else 0] if items else None
    scope = {
        "_input": Accessor("$input", items, index),
        "_json": proxy(current["json"]) if current else None,
        "_": node,
        "_itemIndex": index,
        "_runIndex": 0,
        "_workflow": JsObject({"name": input["workflow"], "active": False}),
    }
    if each:
        scope["item"] = proxy(current)
    else:
        scope["items"] = [proxy(it) for it in items]
    result = to_js(run(input["code"], scope))
    if each:
        return {"items": [to_json(item_of_each(result, index)["json"])], "pairs": [index]}
    out = items_of_all(result)
    return {"items": [to_json(it["json"]) for it in out], "pairs": pairs_of(out, items)}
