"""Code inspection: does an answer call the library's implementation? (the student's own kernel)

:func:`require_own_code` reads the source of the notebook cell that defined a function (and of
every helper function it reaches) with :mod:`ast`, resolves the global names the compiled code
loads, and rejects library functions under an alias, ``getattr``/``eval``-style tricks,
introspection (frames, ``__dict__``, ``sys``, ``inspect``…) and file access.

This is the *static* check: it runs in the student's own kernel, where it tells a student early
that an answer will not count. It is not what decides a grade. A kernel the student controls can
defeat any check that runs inside it, so grades come from isolated grading
(:mod:`ccb_helpers.grading.isolation`), where the library's functions are stubs that record the
call and return nothing — the *dynamic* check, whatever name, container or compile trick reached
them.
"""

from __future__ import annotations

import ast
import builtins
import dis
import functools
import linecache
import sys
import types
from typing import Iterable

from .values import GradingError, describe

__all__ = ["require_own_code", "library_names", "tampering"]

# Builtins that reach objects by name, run strings, or touch files and the interpreter: an
# answer never needs them.
_DYNAMIC_BUILTINS = frozenset(
    {
        "getattr",
        "setattr",
        "delattr",
        "eval",
        "exec",
        "compile",
        "__import__",
        "globals",
        "locals",
        "vars",
        "open",
        "input",
        "breakpoint",
        "help",
        "exit",
        "quit",
        "memoryview",
    }
)


def _dynamic_message(name: str) -> str:
    if name in ("open", "input", "breakpoint", "help", "exit", "quit", "memoryview"):
        return f"使用了 {name}：本题不允许读写文件或操作解释器"
    return f"使用了 {name}：本题不允许按名字取对象或执行字符串"


# Modules that read files, the kernel, the interpreter or the grader: never needed by an answer.
_BANNED_MODULES = frozenset(
    {
        "sys",
        "os",
        "io",
        "pathlib",
        "glob",
        "shutil",
        "subprocess",
        "sqlite3",
        "inspect",
        "importlib",
        "gc",
        "ctypes",
        "builtins",
        "__main__",
        "traceback",
        "linecache",
        "pickle",
        "marshal",
        "dis",
        "types",
        "code",
        "codeop",
        "runpy",
        "tokenize",
        "ast",
        "nbformat",
        "nbgrader",
        "nbclient",
        "IPython",
        "ipykernel",
        "jupyter_client",
        "threading",
        "multiprocessing",
        "signal",
        "socket",
        "urllib",
        "requests",
        "json",
        "csv",
        "tempfile",
        "zipfile",
        "tarfile",
        "operator",
        "weakref",
        "networkx",
        "scipy",
        "sympy",
    }
)
# Attribute names that walk frames, code objects or namespaces.
_INTROSPECTION_ATTRS = frozenset(
    {
        "f_back",
        "f_locals",
        "f_globals",
        "f_builtins",
        "f_code",
        "tb_frame",
        "tb_next",
        "gi_frame",
        "cr_frame",
        "ag_frame",
        "co_consts",
        "co_names",
        "co_code",
        "attrgetter",
        "methodcaller",
        "user_ns",
        "user_global_ns",
        "history_manager",
        "modules",
    }
)
_ALLOWED_DUNDERS = frozenset({"__init__", "__name__", "__doc__"})
_ALLOWED_MAGICS = frozenset({"time", "timeit", "matplotlib"})


# --------------------------------------------------------------------------------------------
# "Implement it yourself": inspect the answer's code
# --------------------------------------------------------------------------------------------


def library_names() -> frozenset:
    """Names of every function and class defined in the loaded ``ccb_helpers`` modules.

    >>> "info_steps" in library_names() and "torus" in library_names()
    True
    """
    names = set()
    # The facade loads a module on first use (``_lazy_from``): the names of modules not loaded
    # yet count too, or an answer calling one would pass until something else loaded it.
    facade = sys.modules.get("ccb_helpers")
    names.update(name for name in getattr(facade, "_LAZY", {}) if not name.isupper())
    for module_name, module in list(sys.modules.items()):
        if module is None or not (module_name == "ccb_helpers" or module_name.startswith("ccb_helpers.")):
            continue
        for name, obj in list(vars(module).items()):
            if callable(obj) and str(getattr(obj, "__module__", "") or "").startswith("ccb_helpers"):
                names.add(name)
                names.add(getattr(obj, "__name__", name))
    return frozenset(n for n in names if isinstance(n, str))


def _from_library(obj) -> bool:
    module = getattr(obj, "__module__", None)
    return isinstance(module, str) and (module == "ccb_helpers" or module.startswith("ccb_helpers."))


def _module_root(name: str) -> str:
    return name.split(".")[0]


class _Inspector:
    """Collects the reasons an answer does not count as the student's own code."""

    def __init__(self, allow: Iterable[str], forbid: Iterable[str], allow_modules: Iterable[str]):
        self.allow = frozenset(allow)
        self.forbid = frozenset(forbid)
        self.banned_modules = _BANNED_MODULES - frozenset(allow_modules)
        self.catalog = library_names() - self.allow
        self.problems: list[str] = []
        self.seen_cells: set[str] = set()
        self.seen_objects: set[int] = set()
        self.queue: list = []

    def problem(self, text: str) -> None:
        if text not in self.problems:
            self.problems.append(text)

    # -- objects --------------------------------------------------------------------------
    def visit_object(self, obj, name: str) -> None:
        if id(obj) in self.seen_objects:
            return
        self.seen_objects.add(id(obj))
        if isinstance(obj, types.ModuleType):
            if _module_root(obj.__name__) in self.banned_modules:
                self.problem(f"使用了模块 {obj.__name__}（{name}）：本题不允许")
            return
        if isinstance(obj, functools.partial):
            self.visit_object(obj.func, name)
            for arg in (*obj.args, *obj.keywords.values()):
                self.visit_object(arg, name)
            return
        if isinstance(obj, types.MethodType):
            self.visit_object(obj.__func__, name)
            self.visit_object(obj.__self__, name)
            return
        if _from_library(obj):
            real = getattr(obj, "__name__", name)
            if callable(obj) and real not in self.allow:
                self.problem(f"调用了库的实现 ccb.{real}（名字 {name}）：本题要自己实现")
            elif not callable(obj) and type(obj).__name__ not in self.allow:
                self.problem(f"用到了库算出的对象 {name}（{type(obj).__name__}）：本题要自己算")
            return
        if _from_library(type(obj)) and not isinstance(obj, type) and type(obj).__name__ not in self.allow:
            self.problem(f"用到了库算出的对象 {name}（ccb.{type(obj).__name__}）：本题要自己算")
            return
        if any(obj is getattr(builtins, n, None) for n in _DYNAMIC_BUILTINS):
            if not any(p.endswith(_dynamic_message(name)) for p in self.problems):
                self.problem(_dynamic_message(name))
            return
        if isinstance(obj, types.FunctionType):
            self.queue.append(obj)
            return
        if isinstance(obj, type) and obj.__module__ == "__main__":
            for value in vars(obj).values():
                if isinstance(value, (staticmethod, classmethod)):
                    value = value.__func__
                if isinstance(value, types.FunctionType):
                    self.queue.append(value)
            return
        if type(obj).__module__ == "__main__":
            self.visit_object(type(obj), name)

    # -- functions ------------------------------------------------------------------------
    def visit_function(self, func: types.FunctionType) -> None:
        label = getattr(func, "__qualname__", "函数")
        if _from_library(func):
            self.problem(f"{label} 就是库函数 ccb.{func.__name__}：本题要自己实现")
            return
        code = func.__code__
        lines = linecache.getlines(code.co_filename)
        if not lines:
            self.problem(f"读不到 {label} 的源代码：请在 notebook 的单元格里用 def 定义它（不要用 exec）")
            return
        if code.co_filename not in self.seen_cells:
            self.seen_cells.add(code.co_filename)
            self.visit_source("".join(lines), func.__globals__, label)
        namespace = func.__globals__
        for inner in _code_objects(code):
            for instr in dis.get_instructions(inner):
                if instr.opname in ("LOAD_GLOBAL", "LOAD_NAME") and isinstance(instr.argval, str):
                    name = instr.argval
                    if name in namespace:
                        self.visit_object(namespace[name], name)
                    elif hasattr(builtins, name):
                        self.visit_object(getattr(builtins, name), name)
                    else:
                        self.problem(f"{label} 用到了评分时尚未定义的名字 {name}")
        for value in (*(func.__defaults__ or ()), *(func.__kwdefaults__ or {}).values()):
            self.visit_object(value, f"{label} 的默认参数")
        for cell in func.__closure__ or ():
            try:
                contents = cell.cell_contents
            except ValueError:
                continue
            self.visit_object(contents, f"{label} 的闭包变量")

    # -- source ---------------------------------------------------------------------------
    def visit_source(self, source: str, namespace: dict, label: str) -> None:
        try:
            tree = ast.parse(source)
        except SyntaxError:
            self.problem(f"{label} 所在单元格无法解析")
            return
        allowed_magic_calls = set()
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("run_line_magic", "run_cell_magic")
                and isinstance(node.func.value, ast.Call)
                and isinstance(node.func.value.func, ast.Name)
                and node.func.value.func.id == "get_ipython"
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and node.args[0].value in _ALLOWED_MAGICS
            ):
                allowed_magic_calls.add(id(node.func.value.func))
        for node in ast.walk(tree):
            where = f"第 {getattr(node, 'lineno', '?')} 行"
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if _module_root(alias.name) in self.banned_modules:
                        self.problem(f"{where} 导入了 {alias.name}：本题不允许")
            elif isinstance(node, ast.ImportFrom):
                module = node.module or ""
                if _module_root(module) in self.banned_modules:
                    self.problem(f"{where} 从 {module} 导入：本题不允许")
                if module.startswith("ccb_helpers"):
                    for alias in node.names:
                        if alias.name == "*":
                            self.problem(f"{where} from {module} import *：请只导入允许的名字")
                        elif alias.name in self.catalog or alias.name in self.forbid:
                            self.problem(f"{where} 导入了库的实现 {module}.{alias.name}：本题要自己实现")
            elif isinstance(node, ast.Attribute):
                attr = node.attr
                if attr.startswith("__") and attr.endswith("__") and attr not in _ALLOWED_DUNDERS:
                    self.problem(f"{where} 访问了 {attr}：本题不允许内省")
                elif attr in _INTROSPECTION_ATTRS:
                    self.problem(f"{where} 访问了 {attr}：本题不允许内省")
                elif attr in self.forbid:
                    self.problem(f"{where} 用到了 .{attr}：本题要自己算出它")
                elif attr in self.catalog and self._library_base(node.value, namespace):
                    self.problem(f"{where} 调用了库的实现 ccb.{attr}：本题要自己实现")
            elif isinstance(node, ast.Name):
                if node.id in _DYNAMIC_BUILTINS and node.id not in namespace:
                    self.problem(f"{where} {_dynamic_message(node.id)}")
                elif node.id == "get_ipython" and id(node) not in allowed_magic_calls:
                    self.problem(f"{where} 使用了 get_ipython：本题不允许")
                elif (
                    node.id in self.forbid
                    and isinstance(node.ctx, ast.Load)
                    and node.id in namespace
                    and _from_library(namespace[node.id])
                ):
                    self.problem(f"{where} 用到了 {node.id}：本题要自己实现")
            elif isinstance(node, ast.Global):
                self.problem(f"{where} global {', '.join(node.names)}：答案不能改写全局变量")
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                if (node.value in self.catalog and "_" in node.value) or node.value in self.forbid:
                    self.problem(f"{where} 字符串 {node.value!r} 是库函数的名字：本题要自己实现")

    def _library_base(self, node, namespace: dict) -> bool:
        """Whether an attribute is read from the library (or from something we cannot tell)."""
        while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
            node = node.value if not isinstance(node, ast.Call) else node.func
        if not isinstance(node, ast.Name):
            return True
        if node.id not in namespace:
            return True  # a local variable: it may hold a library object
        base = namespace[node.id]
        if isinstance(base, types.ModuleType):
            return base.__name__.startswith("ccb_helpers")
        return True

    def run(self, func) -> list[str]:
        if not isinstance(func, types.FunctionType):
            if _from_library(func):
                return [f"这是库的实现 ccb.{getattr(func, '__name__', '?')}：本题要自己实现"]
            return [f"应是一个用 def 定义的 Python 函数，得到 {describe(func)}"]
        self.queue.append(func)
        while self.queue:
            self.visit_function(self.queue.pop())
        return self.problems


def _code_objects(code: types.CodeType):
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _code_objects(const)


def require_own_code(
    func, *, allow: Iterable[str] = (), forbid: Iterable[str] = (), allow_modules: Iterable[str] = ()
) -> None:
    """Raise :class:`GradingError` unless ``func`` is the student's own implementation.

    Parameters
    ----------
    func : function
        The answer: a function defined with ``def`` (or ``lambda``) in a notebook cell.
    allow : iterable of str
        Library names the part allows (e.g. ``{"Transfer", "Schedule"}``); every other function
        or class of ``ccb_helpers`` is rejected, under any alias.
    forbid : iterable of str
        Extra attribute names the part rejects (e.g. ``{"diameter"}``, a property of a topology).
    allow_modules : iterable of str
        Modules normally rejected that the part allows (e.g. ``{"networkx"}``).

    Everything the function can reach is inspected: the whole cell that defines it, the global
    names its compiled code loads (resolved to the objects they are bound to now), its default
    arguments and closure, and — recursively — every function or class of the notebook it uses.
    """
    problems = _Inspector(allow, forbid, allow_modules).run(func)
    if problems:
        name = getattr(func, "__name__", "答案")
        raise GradingError(
            f"{name} 不能算作自己的实现：" + "；".join(problems[:4]) + ("……" if len(problems) > 4 else "")
        )


def tampering() -> list[str]:
    """Cells of this kernel's history that modify the library or the interpreter.

    Assignments to attributes of ``ccb_helpers`` modules, classes or functions (e.g. replacing
    ``grading.Part.score``), of ``sys`` or ``builtins``, and ``setattr``/``delattr`` on them.
    """
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - outside IPython there is no history
        return []
    shell = get_ipython()
    if shell is None:
        return []
    namespace = shell.user_ns
    history = list(shell.history_manager.input_hist_parsed) if shell.history_manager else []
    found = []

    def sensitive(node) -> bool:
        while isinstance(node, (ast.Attribute, ast.Subscript)):
            node = node.value
        if not isinstance(node, ast.Name) or node.id not in namespace:
            return False
        obj = namespace[node.id]
        if isinstance(obj, types.ModuleType):
            return obj.__name__.startswith("ccb_helpers") or obj.__name__ in ("sys", "builtins", "numpy", "math")
        return _from_library(obj) and (isinstance(obj, type) or callable(obj))

    for number, source in enumerate(history):
        try:
            tree = ast.parse(source or "")
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            targets = []
            if isinstance(node, (ast.Assign, ast.Delete)):
                targets = node.targets
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
                targets = [node.target]
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ("setattr", "delattr")
                and node.args
            ):
                targets = [ast.Attribute(value=node.args[0], attr="?", ctx=ast.Store())]
            for target in targets:
                if isinstance(target, (ast.Attribute, ast.Subscript)) and sensitive(target):
                    found.append(
                        f"输入 [{number}] 第 {target.lineno if hasattr(target, 'lineno') else node.lineno} 行修改了库或解释器的对象"
                    )
    return found
