# flowctl's python helper (package pyrun embeds it and runs it with -c).
#
# It says which interpreter this is, then answers requests, one JSON object
# a line on standard input, with one JSON object a line on standard output:
#
#   {"op": "check", "source": "..."}   the block's code, parsed (never run)
#   {"op": "libs", "modules": [...]}   the files the interpreter maps once
#                                      those modules are imported
#   {"op": "compile", "source": "..."} flowctl's runner, compiled and
#                                      marshalled, in hex
#
# It ends when standard input closes.
import ast
import json
import marshal
import os
import sys
import sysconfig


def hello():
    path = []
    for p in sys.path:
        if p and os.path.isdir(p):
            path.append(os.path.realpath(p))
    tz = []
    for p in (sysconfig.get_config_var("TZPATH") or "").split(os.pathsep):
        if p and os.path.isdir(p):
            tz.append(os.path.realpath(p))
    return {
        "executable": os.path.realpath(sys.executable),
        "version": list(sys.version_info[:3]),
        "path": path,
        "tzpath": tz,
    }


def position(node):
    end = node.end_col_offset if node.end_lineno == node.lineno else None
    return {"line": node.lineno, "col": node.col_offset + 1, "end_col": (end or 0) + (1 if end else 0)}


def imported(node, module, names=None, level=0):
    d = position(node)
    d["module"] = module
    if names is not None:
        d["names"] = names
    if level:
        d["level"] = level
    return d


def check(source):
    try:
        tree = ast.parse(source, "<block>")
    except SyntaxError as e:
        return {"syntax": {
            "line": e.lineno or 0, "col": e.offset or 0,
            "end_line": e.end_lineno or 0, "end_col": e.end_offset or 0,
            "msg": e.msg or "invalid syntax",
        }}
    except (ValueError, MemoryError, RecursionError) as e:
        return {"syntax": {"line": 0, "col": 0, "msg": str(e) or type(e).__name__}}
    imports, uses = [], []
    asyncio_names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                imports.append(imported(a, a.name))
                if a.name == "asyncio":
                    asyncio_names.add(a.asname or "asyncio")
        elif isinstance(node, ast.ImportFrom):
            imports.append(imported(node, node.module or "", [a.name for a in node.names], node.level))
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
              and node.func.id == "__import__"):
            arg = node.args[0] if node.args else None
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                imports.append(imported(node, arg.value))
            else:
                imports.append(imported(node, ""))
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                and node.value.id in asyncio_names):
            d = position(node)
            d["name"] = node.attr
            uses.append(d)
    return {"imports": imports, "asyncio": uses, "execute": execute_of(tree)}


def execute_of(tree):
    found = None
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == "execute":
            a = node.args
            positional = len(a.posonlyargs) + len(a.args)
            found = {
                "line": node.lineno, "col": node.col_offset + 1,
                "async": isinstance(node, ast.AsyncFunctionDef),
                "positional": positional,
                "required": positional - len(a.defaults),
                "varargs": a.vararg is not None,
                "kwonly_required": sum(1 for d in a.kw_defaults if d is None),
                "params": [x.arg for x in a.posonlyargs + a.args],
            }
        elif found is None and binds_execute(node):
            found = {"line": node.lineno, "col": node.col_offset + 1, "other": True}
    return found


def binds_execute(node):
    if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return any(isinstance(t, ast.Name) and t.id == "execute" for t in targets)
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return any((a.asname or a.name) == "execute" for a in node.names)
    if isinstance(node, ast.ClassDef):
        return node.name == "execute"
    return False


def libs(modules):
    for m in modules:
        try:
            __import__(m)
        except ImportError:
            pass
    files = set()
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                parts = line.split(None, 5)
                if len(parts) == 6 and parts[5].startswith("/"):
                    files.add(parts[5].rstrip("\n").removesuffix(" (deleted)"))
    except OSError:
        pass
    return {"files": sorted(files)}


def compile_runner(source):
    try:
        code = compile(source, "<string>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as e:
        return {"error": str(e)}
    return {"code": marshal.dumps(code).hex()}


def main():
    out = sys.stdout
    out.write(json.dumps(hello()) + "\n")
    out.flush()
    for line in sys.stdin.buffer:
        req = json.loads(line)
        op = req.get("op")
        if op == "check":
            reply = check(req.get("source", ""))
        elif op == "libs":
            reply = libs(req.get("modules", []))
        elif op == "compile":
            reply = compile_runner(req.get("source", ""))
        else:
            reply = {"error": "unknown op %r" % op}
        out.write(json.dumps(reply) + "\n")
        out.flush()


main()
