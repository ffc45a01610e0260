"""The build step: a record's text holds exactly what its entry points reach, across reference modules."""

from __future__ import annotations

import ast
import itertools
import textwrap

import pytest

from kernelgenbench.errors import SourceParseError
from kernelgenbench.reference_impls.inline import build_text, module_text, top_level_names

_COUNTER = itertools.count()


@pytest.fixture
def toy(tmp_path, monkeypatch):
    """Write modules of a fresh toy package (a new name each time: parsed modules are cached by name)."""
    root = f"kgb_toy_refs_{next(_COUNTER)}"
    (tmp_path / root).mkdir()
    (tmp_path / root / "__init__.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))

    def write(**modules: str) -> str:
        for name, text in modules.items():
            (tmp_path / root / f"{name}.py").write_text(textwrap.dedent(text).replace("ROOT", root))
        return root

    return write


def _defined(text: str) -> list[str]:
    names = []
    for node in ast.parse(text).body:
        if isinstance(node, ast.FunctionDef | ast.ClassDef):
            names.append(node.name)
        elif isinstance(node, ast.Assign):
            names += [t.id for t in node.targets if isinstance(t, ast.Name)]
    return names


def _run(text: str, entry: str, *args):
    namespace: dict = {"__name__": "record"}
    exec(compile(text, "record", "exec"), namespace)  # noqa: S102 - the record's code, as the evaluator runs it
    return namespace[entry](*args)


HELPERS = """
    import math

    SCALE = 3  # used only by scaled, which ref needs

    UNUSED_CONST = 99


    def scaled(x):
        return x * SCALE + math.floor(0.5)


    def unused(x):
        return UNUSED_CONST + x
"""


def test_a_needed_helper_from_another_module_travels_and_an_unneeded_one_does_not(toy):
    root = toy(helpers=HELPERS, ops="""
        \"\"\"Toy ops.\"\"\"
        from __future__ import annotations

        from ROOT.helpers import scaled, unused


        def ref(x: int) -> int:
            return scaled(x) + 1


        def make_inputs(n):
            return list(range(n))
    """)
    text = build_text([(f"{root}.ops", "ref"), (f"{root}.ops", "make_inputs")], root=root)
    assert _defined(text) == ["SCALE", "scaled", "ref", "make_inputs"]  # dependencies first, source order
    assert "import math" in text and root not in text and text.startswith('"""Toy ops."""')
    assert _run(text, "ref", 2) == 7 and _run(text, "make_inputs", 3) == [0, 1, 2]
    assert build_text([(f"{root}.ops", "ref"), (f"{root}.ops", "make_inputs")], root=root) == text


def test_recursion_and_import_cycles_terminate(toy):
    root = toy(a="""
        from ROOT.b import odd


        def even(n):
            return True if n == 0 else odd(n - 1)


        def fact(n):
            return 1 if n <= 1 else n * fact(n - 1)
    """, b="""
        from ROOT.a import even


        def odd(n):
            return False if n == 0 else even(n - 1)
    """)
    text = build_text([(f"{root}.a", "even"), (f"{root}.a", "fact")], root=root)
    assert sorted(_defined(text)) == ["even", "fact", "odd"]
    assert _run(text, "even", 10) is True and _run(text, "fact", 5) == 120


def test_a_local_variable_named_like_a_global_does_not_pull_the_global_in(toy):
    root = toy(m="""
        import torch

        scale = torch.ones(3)
        offset = 2


        def ref(x):
            scale = 2.0
            return [scale * v + offset for v in x] + [(lambda scale: scale)(1)]
    """)
    text = build_text([(f"{root}.m", "ref")], root=root)
    assert _defined(text) == ["offset", "ref"] and "import torch" not in text
    assert _run(text, "ref", [1, 2]) == [4.0, 6.0, 1]


def test_a_constant_built_from_a_helper_comes_after_it(toy):
    root = toy(tables="""
        def _build(n):
            return [i * i for i in range(n)]


        TABLE = _build(4)
    """, ops="""
        from ROOT.tables import TABLE


        def ref(i):
            return TABLE[i]
    """)
    text = build_text([(f"{root}.ops", "ref")], root=root)
    assert _defined(text) == ["_build", "TABLE", "ref"] and _run(text, "ref", 3) == 9


def test_two_definitions_of_one_name_cannot_share_a_record(toy):
    root = toy(x="""
        def helper():
            return 1


        def fx():
            return helper()
    """, y="""
        from ROOT.x import fx


        def helper():
            return 2


        def fy():
            return helper() + fx()
    """)
    with pytest.raises(SourceParseError, match="helper is defined in both"):
        build_text([(f"{root}.y", "fy")], root=root)


def test_one_name_imported_two_ways_cannot_share_a_record(toy):
    root = toy(x="""
        import math as m


        def fx():
            return m.pi
    """, y="""
        import torch as m

        from ROOT.x import fx


        def fy():
            return m.pi + fx()
    """)
    with pytest.raises(SourceParseError, match="m is imported as both"):
        build_text([(f"{root}.y", "fy")], root=root)


def test_an_undefined_name_and_an_aliased_helper_import_are_errors(toy):
    root = toy(m="""
        def ref():
            return missing_name()
    """, n="""
        from ROOT.m import ref as other


        def f():
            return other()
    """)
    with pytest.raises(SourceParseError, match="neither defines nor imports 'missing_name'"):
        build_text([(f"{root}.m", "ref")], root=root)
    with pytest.raises(SourceParseError, match="without `as`"):
        build_text([(f"{root}.n", "f")], root=root)


def test_a_facade_module_offers_its_re_exports(toy):
    root = toy(helpers=HELPERS, facade="""
        \"\"\"Re-exports.\"\"\"
        from ROOT.helpers import scaled
    """)
    assert top_level_names(f"{root}.facade", root=root) == {"scaled"}
    text = module_text(f"{root}.facade", root=root)
    assert _defined(text) == ["SCALE", "scaled"] and _run(text, "scaled", 1) == 3


def test_the_real_vllm_norm_record_text_imports_only_torch_and_defines_the_shared_helper():
    import torch

    text = build_text([("kernelgenbench.reference_impls.vllm_norm", "rms_norm"),
                       ("kernelgenbench.reference_impls.vllm_norm", "make_rms_norm_inputs")])
    imports = {n.module if isinstance(n, ast.ImportFrom) else a.name
               for n in ast.parse(text).body if isinstance(n, (ast.Import, ast.ImportFrom)) for a in n.names}
    assert imports == {"__future__", "torch"}
    assert "_dtype" in _defined(text) and "fused_add_rms_norm" not in _defined(text)
    namespace: dict = {}
    exec(compile(text, "vllm_norm", "exec"), namespace)  # noqa: S102
    args = namespace["make_rms_norm_inputs"]({"num_tokens": 3, "hidden_size": 8}, seed=0, device="cpu")
    namespace["rms_norm"](**args)
    assert not args["result"].isnan().any() and args["result"].dtype is torch.float16
