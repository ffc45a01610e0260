"""Parse cublas_api.h with a real preprocessor (gcc -E) and C parser (pycparser) into frozen objects.

The CUDA headers cublas_api.h includes are replaced by small stand-ins (data/cublas_stub_headers.yaml),
except library_types.h, which is used for real when found, so that cudaDataType_t resolves to its values.
Every prototype prints back to C text that parses to an equal object (see `Prototype.__str__`).
"""

from __future__ import annotations

import functools
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from pycparser import c_ast, c_parser

from kernelgenbench.datafiles import load_data
from kernelgenbench.errors import SourceNotFound, SourceParseError
from kernelgenbench.locations import Location, context

# 12.x headers refuse to be included unless CUBLASAPI is defined (it carries dllexport on Windows);
# 13.x dropped the prefix, and defining it there is harmless.
_DEFINES = ("-DCUBLASAPI=", "-DCUBLASWINAPI=")
_GCC_ERROR = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?:\d+:)? (?:fatal )?error: (?P<msg>.*)$", re.M)
_PYC_ERROR = re.compile(r"^(?P<file>.*?):(?P<line>\d+):(?:\d+:)?\s*(?P<msg>.*)$", re.S)


@dataclass(frozen=True)
class CType:
    """A C type as written: base name, const on the base, and one const flag per pointer level.

    `pointers[0]` is the pointer nearest the base: `const float* const*` is
    CType("float", True, (True, False)).
    """

    base: str
    const: bool = False
    pointers: tuple[bool, ...] = ()

    @property
    def depth(self) -> int:
        """Number of pointer levels."""
        return len(self.pointers)

    def __str__(self) -> str:
        text = ("const " if self.const else "") + self.base
        for const_ptr in self.pointers:
            text += "* const" if const_ptr else "*"
        return text


@dataclass(frozen=True)
class CParam:
    """One parameter of a prototype. `array` is a trailing `[]` (pointer arrays of Batched routines)."""

    name: str
    type: CType
    array: bool = False

    @property
    def pointer_depth(self) -> int:
        """Levels of indirection, counting a trailing [] as one."""
        return self.type.depth + int(self.array)

    def __str__(self) -> str:
        return f"{self.type} {self.name}{'[]' if self.array else ''}"


@dataclass(frozen=True)
class Prototype:
    """A function declaration of the header."""

    name: str
    returns: CType
    params: tuple[CParam, ...]
    location: Location

    def __str__(self) -> str:
        args = ", ".join(str(p) for p in self.params) or "void"
        return f"{self.returns} {self.name}({args});"

    def __eq__(self, other: object) -> bool:
        # The location is where the text was read, not part of what the prototype says.
        if not isinstance(other, Prototype):
            return NotImplemented
        return (self.name, self.returns, self.params) == (other.name, other.returns, other.params)

    def __hash__(self) -> int:
        return hash((self.name, self.returns, self.params))


@dataclass(frozen=True)
class Enumerator:
    """One named constant of an enum, with its resolved integer value."""

    name: str
    value: int


@dataclass(frozen=True)
class EnumType:
    """An enum reachable by a typedef name (`cublasOperation_t`), with every enumerator resolved."""

    name: str
    enumerators: tuple[Enumerator, ...]
    location: Location

    def value_of(self, enumerator: str) -> int:
        """The value of one enumerator."""
        for e in self.enumerators:
            if e.name == enumerator:
                return e.value
        raise KeyError(f"{self.name} has no enumerator {enumerator}")

    def __str__(self) -> str:
        body = ", ".join(f"{e.name} = {e.value}" for e in self.enumerators)
        return f"typedef enum {{ {body} }} {self.name};"


@dataclass(frozen=True)
class Header:
    """What one cublas_api.h declares: functions in header order, enums by typedef name, and its version."""

    file: str
    version: str
    functions: tuple[Prototype, ...]
    enums: tuple[EnumType, ...]

    def enum(self, name: str) -> EnumType | None:
        """The enum a typedef name stands for, or None when the name is not an enum here."""
        return next((e for e in self.enums if e.name == name), None)


@functools.cache
def _stub_headers() -> dict[str, str]:
    return load_data("cublas_stub_headers.yaml", top=dict)


def preprocess(header: Path, *, library_types: Path | None = None) -> str:
    """Run gcc -E on a copy of `header` next to the stand-in includes; line markers name `header`."""
    gcc = shutil.which("gcc") or shutil.which("cc")
    if gcc is None:
        raise SourceNotFound("no C preprocessor: install gcc (the cuBLAS extractor runs `gcc -E`)")
    with tempfile.TemporaryDirectory(prefix="kgb-cublas-") as tmp:
        stubs = Path(tmp) / "stubs"
        stubs.mkdir()
        for name, text in _stub_headers().items():
            (stubs / name).write_text(text)
        if library_types is not None:
            shutil.copyfile(library_types, stubs / "library_types.h")
        # A copy, so that "driver_types.h" resolves to the stand-in and not to a toolkit file beside it.
        copy = Path(tmp) / header.name
        copy.write_text(enable_cplusplus_declarations(header.read_text(errors="replace")))
        proc = subprocess.run(
            [gcc, "-E", "-nostdinc", "-undef", "-x", "c", *_DEFINES, "-I", str(stubs), str(copy)],
            capture_output=True, text=True, check=False,
        )
        if proc.returncode != 0:
            m = _GCC_ERROR.search(proc.stderr)
            if m:
                file = str(header) if Path(m["file"]).name == header.name else Path(m["file"]).name
                raise SourceParseError(m["msg"].strip(), at=Location(file, int(m["line"])))
            raise SourceParseError(f"gcc -E failed: {proc.stderr.strip().splitlines()[-1:]}", at=Location(str(header)))
        return proc.stdout.replace(f'"{copy}"', f'"{header}"')


_CPP_IF = re.compile(r"^\s*#\s*if\s+defined\s*\(?\s*__cplusplus\s*\)?\s*$")


def enable_cplusplus_declarations(raw: str) -> str:
    """Turn on `#if defined(__cplusplus)` blocks that hold only declarations; lines keep their numbers.

    12.x guards the __half routines (cublasHgemm...) with __cplusplus because __half is a C++ class;
    they are exported C functions all the same. The extern "C" braces and the C++-only inline overloads
    (cublasGemmEx taking a cudaDataType compute type) stay out: they are not library symbols.
    """
    lines = raw.split("\n")
    for i, line in enumerate(lines):
        if not _CPP_IF.match(line):
            continue
        depth, j = 1, i + 1
        while j < len(lines) and depth:
            d = lines[j].lstrip()
            if d.startswith("#"):
                word = d[1:].lstrip().split(" ", 1)[0]
                depth += word in ("if", "ifdef", "ifndef")
                depth -= word == "endif"
            j += 1
        body = "\n".join(lines[i + 1:j - 1])
        if 'extern "C"' in body or "static inline" in body or body.strip() == "}":
            continue
        lines[i] = "#if 1 /* kgb: declarations guarded by __cplusplus */"
    return "\n".join(lines)


def parse_header(header: Path, *, library_types: Path | None = None) -> Header:
    """Preprocess and parse a cublas_api.h; every error names the file and line."""
    text = preprocess(header, library_types=library_types)
    version = _version(header.read_text(errors="replace"))
    return parse_preprocessed(text, file=str(header), version=version)


def _version(raw: str) -> str:
    parts = [re.search(rf"#define\s+CUBLAS_VER_{k}\s+(\d+)", raw) for k in ("MAJOR", "MINOR", "PATCH", "BUILD")]
    return ".".join(m[1] for m in parts if m) or "unknown"


def parse_preprocessed(text: str, *, file: str, version: str = "unknown") -> Header:
    """Parse preprocessed C text; functions are those whose line markers point into `file`."""
    parser = c_parser.CParser()
    try:
        ast = parser.parse(text, filename=file)
    except c_parser.ParseError as exc:
        m = _PYC_ERROR.match(str(exc))
        if m and m["line"]:
            msg = re.sub(r"^before: (.*)$", r"syntax error before '\1'", m["msg"].strip())
            raise SourceParseError(f"cannot parse C: {msg}", at=Location(m["file"] or file, int(m["line"]))) from None
        # Some pycparser errors carry no position; the token it stopped at has one.
        tok = parser._peek()  # noqa: SLF001
        msg = str(exc).rsplit(": ", 1)[-1]
        if tok is not None:
            raise SourceParseError(f"cannot parse C: {msg} near {tok.value!r} (an undeclared type name?)",
                                   at=Location(tok.filename or file, tok.lineno)) from None
        raise SourceParseError(f"cannot parse C: {msg}", at=Location(file)) from None
    functions: list[Prototype] = []
    enums: list[EnumType] = []
    tagged: dict[str, c_ast.Enum] = {}
    consts: dict[str, int] = {}
    for node in ast.ext:
        if isinstance(node, c_ast.Typedef):
            enum = _enum_of(node.type, tagged)
            if enum is not None:
                enums.append(_resolve_enum(node.name, enum, consts, _loc(node)))
            elif (target := _alias_of(node.type)) is not None:
                known = next((e for e in enums if e.name == target), None)
                if known is not None:  # `typedef cudaDataType cublasDataType_t;`
                    enums.append(EnumType(node.name, known.enumerators, _loc(node)))
        elif isinstance(node, c_ast.Decl):
            if isinstance(node.type, c_ast.FuncDecl) and _loc(node).file == file and "static" not in node.storage:
                functions.append(_prototype(node))
            elif isinstance(node.type, c_ast.Enum) and node.type.name:
                tagged[node.type.name] = node.type
                _resolve_enum(node.type.name, node.type, consts, _loc(node))
    return Header(file=file, version=version, functions=tuple(functions), enums=tuple(enums))


def _loc(node: c_ast.Node) -> Location:
    return Location(str(node.coord.file), int(node.coord.line))


def _alias_of(t: c_ast.Node) -> str | None:
    if isinstance(t, c_ast.TypeDecl) and isinstance(t.type, c_ast.IdentifierType) and len(t.type.names) == 1:
        return t.type.names[0]
    return None


def _enum_of(t: c_ast.Node, tagged: dict[str, c_ast.Enum]) -> c_ast.Enum | None:
    if isinstance(t, c_ast.TypeDecl) and isinstance(t.type, c_ast.Enum):
        e = t.type
        if e.values is None:  # `typedef enum tag name;` refers to an enum defined earlier
            return tagged.get(e.name)
        if e.name:
            tagged[e.name] = e
        return e
    return None


def _resolve_enum(name: str, enum: c_ast.Enum, consts: dict[str, int], loc: Location) -> EnumType:
    out: list[Enumerator] = []
    nxt = 0
    for item in enum.values.enumerators if enum.values else ():
        value = nxt if item.value is None else _const_eval(item.value, consts, loc)
        consts[item.name] = value
        out.append(Enumerator(item.name, value))
        nxt = value + 1
    return EnumType(name, tuple(out), loc)


_BINOPS = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "/": lambda a, b: int(a / b), "%": lambda a, b: a % b, "<<": lambda a, b: a << b,
    ">>": lambda a, b: a >> b, "|": lambda a, b: a | b, "&": lambda a, b: a & b, "^": lambda a, b: a ^ b,
}


def _const_eval(node: c_ast.Node, consts: dict[str, int], loc: Location) -> int:
    if isinstance(node, c_ast.Constant):
        return int(node.value.rstrip("uUlL"), 0)
    if isinstance(node, c_ast.ID) and node.name in consts:
        return consts[node.name]
    if isinstance(node, c_ast.UnaryOp) and node.op in ("-", "+", "~"):
        v = _const_eval(node.expr, consts, loc)
        return {"-": -v, "+": v, "~": ~v}[node.op]
    if isinstance(node, c_ast.BinaryOp) and node.op in _BINOPS:
        return _BINOPS[node.op](_const_eval(node.left, consts, loc), _const_eval(node.right, consts, loc))
    if isinstance(node, c_ast.Cast):
        return _const_eval(node.expr, consts, loc)
    raise SourceParseError(f"enumerator value is not an integer constant: {type(node).__name__}",
                           at=loc.at(int(node.coord.line)) if node.coord else loc)


def _ctype(t: c_ast.Node) -> tuple[CType, bool]:
    """The CType of a declarator and whether it ended in [] (errors are placed by the caller's context)."""
    array = False
    if isinstance(t, c_ast.ArrayDecl):
        array, t = True, t.type
    pointers: list[bool] = []
    while isinstance(t, c_ast.PtrDecl):
        pointers.append("const" in t.quals)
        t = t.type
    if not isinstance(t, c_ast.TypeDecl):
        raise SourceParseError(f"unsupported declarator {type(t).__name__}")
    inner = t.type
    if isinstance(inner, c_ast.IdentifierType):
        base = " ".join(inner.names)
    elif isinstance(inner, (c_ast.Struct, c_ast.Enum)):
        base = f"{'struct' if isinstance(inner, c_ast.Struct) else 'enum'} {inner.name}"
    else:
        raise SourceParseError(f"unsupported type {type(inner).__name__}")
    # pycparser lists pointer levels outermost first; CType keeps them nearest-the-base first.
    return CType(base, "const" in t.quals, tuple(reversed(pointers))), array


def _prototype(decl: c_ast.Decl) -> Prototype:
    loc = _loc(decl)
    with context(loc):
        return _prototype_at(decl, loc)


def _prototype_at(decl: c_ast.Decl, loc: Location) -> Prototype:
    fn: c_ast.FuncDecl = decl.type
    returns, _ = _ctype(fn.type)
    params: list[CParam] = []
    for i, p in enumerate(fn.args.params if fn.args else ()):
        if isinstance(p, c_ast.Typename) and isinstance(p.type, c_ast.TypeDecl) and \
                getattr(p.type.type, "names", None) == ["void"] and not p.type.quals:
            continue  # f(void)
        if isinstance(p, c_ast.EllipsisParam):
            raise SourceParseError("variadic prototypes are not supported")
        t = p.type
        if isinstance(t, c_ast.PtrDecl) and isinstance(t.type, c_ast.FuncDecl):
            # A callback parameter (cublasLoggerConfigure's, cublasSetLoggerCallback's): keep its text.
            params.append(CParam(p.name or f"arg{i}", CType(_callback_text(t), False, ()), False))
            continue
        ctype, array = _ctype(t)
        params.append(CParam(p.name or f"arg{i}", ctype, array))
    return Prototype(decl.name, returns, tuple(params), loc)


def _callback_text(t: c_ast.PtrDecl) -> str:
    from pycparser import c_generator

    return c_generator.CGenerator().visit(c_ast.Typename(None, [], None, t))


_C_WORDS = {"const", "void", "int", "char", "short", "long", "unsigned", "signed", "float", "double",
            "struct", "enum", "size_t"}


def parse_prototype(text: str) -> Prototype:
    """Parse one prototype printed by `Prototype.__str__`; unknown type names are declared as stand-ins."""
    stubs = _stub_headers()
    prelude = "\n".join(stubs[h] for h in ("stdint.h", "driver_types.h", "cuComplex.h", "cuda_fp16.h", "cuda_bf16.h"))
    known = set(re.findall(r"\b(\w+);", prelude))
    head, _, args = text.partition("(")
    words: set[str] = set(re.findall(r"[A-Za-z_]\w*", head)[:-1])
    for arg in args.rsplit(")", 1)[0].split(","):
        words.update(re.findall(r"[A-Za-z_]\w*", arg)[:-1])
    decls = "".join(f"typedef int {w};\n" for w in sorted(words - _C_WORDS - known))
    header = parse_preprocessed(f"{prelude}\n{decls}# 1 \"<prototype>\"\n{text}\n", file="<prototype>")
    if len(header.functions) != 1:
        raise SourceParseError(f"expected one prototype, found {len(header.functions)}", at=Location("<prototype>"))
    return header.functions[0]
