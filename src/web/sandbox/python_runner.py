"""The tab's Python runner, run by Pyodide in the sandbox frame's worker
(python_worker.js) with the project's files in the current directory.

- run_tests(paths, post): imports each test file and runs its unittest
  TestCases (discovered as `unittest` does) and its plain `def test_...`
  functions and `class Test...` methods (pytest's style, `assert` with the
  compared values shown); post(json) gets one result per test:
  {file, name, outcome: passed|failed|error, message}, the message naming
  the project's file and line.
- run_program(entry, post): runs the entry as __main__; an uncaught error
  is posted as {error, file, line}, its traceback cut to the project's
  frames.

Deliberately not: pytest itself, fixtures, plugins or conftest.py (a test
that asks for a fixture is reported as such), packages beyond the standard
library, any network. A small `pytest` stand-in gives raises, fail, skip,
approx and mark.parametrize.
"""

import ast
import contextlib
import importlib.util
import inspect
import io
import json
import linecache
import os
import sys
import traceback
import types
import unittest

ROOT = os.getcwd()
# Modules that need a display; the worker fills this from the core's list.
DISPLAY_MODULES = ()


def _project_path(filename):
    path = os.path.abspath(filename)
    if path.startswith(ROOT + os.sep):
        return os.path.relpath(path, ROOT).replace(os.sep, "/")
    return None


def _place(tb):
    """The deepest frame of a traceback in a project file: (path, line, frame)."""
    found = None
    for frame, line in traceback.walk_tb(tb):
        path = _project_path(frame.f_code.co_filename)
        if path is not None and not path.startswith("_tabteam"):
            found = (path, line, frame)
    return found


def _missing_module(error):
    name = (getattr(error, "name", None) or "").split(".")[0]
    if name in DISPLAY_MODULES:
        return (f"{name} needs a display window, which the tab does not have: Python here runs text programs "
                "(print and input) and their tests; for graphics, ask the team for a web page instead")
    if name and not os.path.exists(os.path.join(ROOT, name + ".py")) and not os.path.isdir(os.path.join(ROOT, name)):
        return (f"No module named {name!r}: Python runs in the browser tab with its standard library only "
                "(no packages from PyPI), and the project has no file of that name")
    return None


def _explain_assert(frame, path, line):
    """For a bare `assert a == b`: the statement and both sides' values."""
    source = linecache.getline(os.path.join(ROOT, path), line).strip()
    try:
        node = ast.parse(source).body[0]
    except (SyntaxError, IndexError):
        return source
    if not isinstance(node, ast.Assert):
        return source
    text = "assert " + ast.unparse(node.test)
    test = node.test
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        names = dict(frame.f_globals)
        names.update(frame.f_locals)
        try:
            left = eval(compile(ast.Expression(test.left), path, "eval"), names)
            right = eval(compile(ast.Expression(test.comparators[0]), path, "eval"), names)
        except Exception:
            return text
        return f"{text}\n  left:  {left!r}\n  right: {right!r}"
    return text


def describe(error):
    """A failure for the report: 'path:line: Type: message' (+ the values of a bare assert)."""
    where = _place(error.__traceback__)
    if isinstance(error, SyntaxError) and error.filename:
        path = _project_path(error.filename) or error.filename
        return f"{path}:{error.lineno}: SyntaxError: {error.msg}"
    head = _head(error, where)
    return f"{where[0]}:{where[1]}: {head}" if where else head


def _head(error, where):
    """'Type: message', with the missing module or the bare assert explained."""
    kind, value = type(error), error
    message = str(value)
    if isinstance(value, ModuleNotFoundError):
        message = _missing_module(value) or message
    if isinstance(value, AssertionError) and not message and where:
        message = _explain_assert(where[2], where[0], where[1])
    return f"{kind.__name__}: {message}" if message else kind.__name__


class _Skip(Exception):
    pass


class _Raises:
    def __init__(self, expected, match=None):
        self.expected, self.match, self.value = expected, match, None

    def __enter__(self):
        return self

    def __exit__(self, kind, value, tb):
        if kind is None:
            raise AssertionError(f"DID NOT RAISE {self.expected.__name__ if isinstance(self.expected, type) else self.expected}")
        if not issubclass(kind, self.expected):
            return False
        if self.match is not None:
            import re
            if not re.search(self.match, str(value)):
                raise AssertionError(f"the error {value!r} does not match {self.match!r}")
        self.value = value
        return True


class _Approx:
    def __init__(self, expected, rel=1e-6, abs=1e-12):
        self.expected, self.rel, self.abs = expected, rel, abs

    def __eq__(self, other):
        if isinstance(self.expected, (list, tuple)):
            return len(other) == len(self.expected) and all(_Approx(e, self.rel, self.abs) == o for e, o in zip(self.expected, other))
        return abs(other - self.expected) <= max(self.rel * abs(self.expected), self.abs)

    def __repr__(self):
        return f"approx({self.expected!r})"


def _parametrize(names, values, **_):
    names = [n.strip() for n in names.split(",")] if isinstance(names, str) else list(names)

    def mark(fn):
        fn._tabteam_params = getattr(fn, "_tabteam_params", []) + [(names, list(values))]
        return fn
    return mark


def _pytest_module():
    """The small stand-in for `import pytest`."""
    pytest = types.ModuleType("pytest")
    pytest.raises = lambda expected, match=None: _Raises(expected, match)
    pytest.approx = _Approx

    def fail(reason=""):
        raise AssertionError(reason)

    def skip(reason=""):
        raise _Skip(reason)
    pytest.fail, pytest.skip = fail, skip
    mark = types.SimpleNamespace(parametrize=_parametrize)
    mark.skip = lambda *a, **k: (lambda fn: fn) if not (a and callable(a[0])) else a[0]
    pytest.mark = mark
    pytest.fixture = lambda *a, **k: a[0] if a and callable(a[0]) else (lambda fn: fn)
    return pytest


def _load(path):
    """Imports a project file as a module named after its path."""
    name = path[:-3].replace("/", ".")
    folder = os.path.dirname(os.path.join(ROOT, path))
    if folder not in sys.path:
        sys.path.insert(1, folder)
    spec = importlib.util.spec_from_file_location(name, os.path.join(ROOT, path))
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


class _Result(unittest.TestResult):
    """unittest's result, posted one test at a time."""

    def __init__(self, out):
        super().__init__()
        self.out = out

    def _name(self, test):
        return f"{type(test).__name__}.{test._testMethodName}" if isinstance(test, unittest.TestCase) else str(test)

    def addSuccess(self, test):
        self.out(self._name(test), "passed", "")

    def addFailure(self, test, err):
        self.out(self._name(test), "failed", describe(err[1]))

    def addError(self, test, err):
        self.out(self._name(test), "failed", describe(err[1]))

    def addSkip(self, test, reason):
        self.out(self._name(test), "passed", f"skipped: {reason}")

    def addExpectedFailure(self, test, err):
        self.out(self._name(test), "passed", "failed as expected")

    def addUnexpectedSuccess(self, test):
        self.out(self._name(test), "failed", "passed, but was marked as an expected failure")

    def addSubTest(self, test, subtest, err):
        if err is not None:
            self.out(f"{self._name(test)} {subtest._subDescription()}", "failed", describe(err[1]))


def _call(fn, out, name):
    params = getattr(fn, "_tabteam_params", None)
    cases = [{}]
    for names, values in params or []:
        cases = [dict(c, **dict(zip(names, v if len(names) > 1 else (v,)))) for c in cases for v in values]
    for case in cases:
        label = name if not params else f"{name}[{'-'.join(repr(v) for v in case.values())}]"
        wanted = [p.name for p in inspect.signature(fn).parameters.values() if p.default is inspect.Parameter.empty and p.name not in case]
        if wanted:
            out(label, "failed", f"needs the pytest fixture(s) {', '.join(wanted)}, which the tab's test runner does not have: write the test without fixtures")
            continue
        try:
            fn(**case)
        except _Skip as e:
            out(label, "passed", f"skipped: {e}")
        except Exception as e:
            out(label, "failed", describe(e))
        else:
            out(label, "passed", "")


def _plain_tests(module, out):
    """pytest's style: module functions and `class Test...` methods named test*."""
    for name, value in list(vars(module).items()):
        if inspect.isfunction(value) and name.startswith("test") and value.__module__ == module.__name__:
            _call(value, out, name)
        elif (inspect.isclass(value) and name.startswith("Test") and value.__module__ == module.__name__
              and not issubclass(value, unittest.TestCase)):
            for method in [m for m in vars(value) if m.startswith("test") and callable(getattr(value, m))]:
                try:
                    instance = value()
                    if hasattr(instance, "setup_method"):
                        instance.setup_method(None)
                except Exception as e:
                    out(f"{name}.{method}", "failed", describe(e))
                    continue
                _call(getattr(instance, method), out, f"{name}.{method}")


def run_tests(paths, post):
    sys.modules.setdefault("pytest", _pytest_module())
    if ROOT not in sys.path:
        sys.path.insert(0, ROOT)
    for path in paths:
        def out(name, outcome, message, path=path):
            post(json.dumps({"file": path, "name": name, "outcome": outcome, "message": message[:4000]}))
        before = len(sys.modules)
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            try:
                module = _load(path)
            except BaseException as e:
                kind = "error" if isinstance(e, (SyntaxError, ImportError)) else "failed"
                out("(loading the file)", kind, describe(e))
                continue
            counted = [0]

            def counting(name, outcome, message):
                counted[0] += 1
                out(name, outcome, message)
            suite = unittest.defaultTestLoader.loadTestsFromModule(module)
            suite.run(_Result(counting))
            _plain_tests(module, counting)
            if counted[0] == 0:
                out("(the file ran without errors)", "passed", "")
        del before


def run_program(entry, post):
    """Runs the entry as __main__; posts {error, file, line} for an uncaught error."""
    import runpy
    if ROOT not in sys.path:
        sys.path.insert(0, ROOT)
    try:
        runpy.run_path(os.path.join(ROOT, entry), run_name="__main__")
    except SystemExit as e:
        if e.code not in (None, 0):
            post(json.dumps({"exit": str(e.code)}))
    except BaseException as e:
        where = _place(e.__traceback__)
        if isinstance(e, SyntaxError) and e.filename:
            where = (_project_path(e.filename) or e.filename, e.lineno or 1, None)
        frames = [f for f in traceback.extract_tb(e.__traceback__) if _project_path(f.filename) and "runpy" not in f.filename]
        lines = ["Traceback (most recent call last):"]
        for f in frames:
            lines.append(f'  File "{_project_path(f.filename)}", line {f.lineno}, in {f.name}')
            if f.line:
                lines.append(f"    {f.line}")
        lines.append(f"{type(e).__name__}: {e.msg}" if isinstance(e, SyntaxError) else _head(e, where))
        post(json.dumps({"error": "\n".join(lines), "file": where[0] if where else None, "line": where[1] if where else None}))
