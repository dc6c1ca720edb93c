"""Making mutants: every single-point mutant of a source, its id and its diff.

Mutants are made on the syntax tree and written back with :func:`ast.unparse`, so a
mutant's diff against the unparsed reference shows the change and nothing of the
formatting. A mutant that does not compile, or is the same code as the reference or as an
earlier mutant, is skipped. An id is ``operator@line:column description``, where line and
column (both from 1) are those of the changed node in ``solution.py``: it stays the same
while the lines above it do not move.

No mutation library is used: mutmut, cosmic-ray and mutatest all mutate files of a
project on disk and run its test command; here a mutant is a string that the grader
grades in its sandbox, and half of the operators (copies, ``with`` blocks, keywords) are
this project's own.
"""

from __future__ import annotations

import ast
import copy
import difflib
from collections.abc import Callable
from dataclasses import dataclass

OPERATORS = (
    "flip-compare",  # < <= > >= == != in / not in, is / is not
    "off-by-one",  # integer constants, range() arguments and slice bounds, n -> n+1, n-1
    "swap-bool",  # and <-> or
    "swap-sign",  # + <-> - in index arithmetic
    "drop-copy",  # .copy() .clone() .detach() np.copy(x) copy.copy(x) copy.deepcopy(x)
    "remove-with",  # a with block's context manager gone, its body kept
    "keyword",  # a bool keyword argument flipped; a keyword argument removed
    "max-min",  # max <-> min (and maximum/minimum, argmax/argmin, amax/amin)
    "sorted-reverse",  # sorted(...) and .sort(...) in the other order
    "break-continue",  # break <-> continue
    "remove-stmt",  # a statement removed where the code still runs without it
)
CONTEXT_LINES = 2
_COMPARE_FLIPS: dict[type[ast.cmpop], tuple[type[ast.cmpop], ...]] = {
    ast.Lt: (ast.LtE, ast.Gt),
    ast.LtE: (ast.Lt, ast.GtE),
    ast.Gt: (ast.GtE, ast.Lt),
    ast.GtE: (ast.Gt, ast.LtE),
    ast.Eq: (ast.NotEq,),
    ast.NotEq: (ast.Eq,),
    ast.In: (ast.NotIn,),
    ast.NotIn: (ast.In,),
    ast.Is: (ast.IsNot,),
    ast.IsNot: (ast.Is,),
}
_COMPARE_TEXT: dict[type[ast.cmpop], str] = {
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.In: "in",
    ast.NotIn: "not in",
    ast.Is: "is",
    ast.IsNot: "is not",
}
_MAX_MIN = {
    "max": "min",
    "min": "max",
    "maximum": "minimum",
    "minimum": "maximum",
    "amax": "amin",
    "amin": "amax",
    "argmax": "argmin",
    "argmin": "argmax",
    "nanmax": "nanmin",
    "nanmin": "nanmax",
}
_COPY_METHODS = {"copy", "clone", "detach"}  # x.copy() -> x
_COPY_MODULES = {"np", "numpy", "torch", "copy"}  # np.copy(x) -> x
_COPY_FUNCTIONS = {"copy", "clone", "deepcopy"}
_NEVER_MUTATED = {"annotation", "returns", "type_comment", "type_params", "decorator_list"}

Replacement = ast.AST | list[ast.stmt]


# --- making mutants ---


@dataclass(frozen=True)
class Mutant:
    id: str
    operator: str
    line: int
    col: int  # from 1
    description: str
    code: str  # ast.unparse of the mutated tree
    diff: str  # unified diff of the unparsed reference and ``code``


@dataclass(frozen=True)
class Mutants:
    original: str  # ast.unparse of the reference: what the mutants are diffed against
    mutants: list[Mutant]
    skipped: dict[str, str]  # id -> why (identical, does not compile, same as another)


@dataclass
class _Site:
    node: ast.AST
    parent: _Site | None
    field: str  # the parent's field holding node
    index: int | None  # its position when that field is a list
    in_index: bool  # inside a subscript's brackets or range()'s arguments
    scope: ast.AST  # the innermost function (or the module) holding node


@dataclass(frozen=True)
class _Candidate:
    operator: str
    site: int  # position of the node in the traversal order
    node: ast.AST  # for its position
    description: str
    transform: Callable[[ast.AST], Replacement]


def _sites(tree: ast.AST) -> list[_Site]:
    """Every node (annotations and decorators aside) in a fixed order: a deep copy of
    the tree walks in the same order, which is how a mutation finds its node there."""
    out: list[_Site] = []

    def visit(node: ast.AST, parent: _Site | None, name: str, index: int | None) -> None:
        in_index = parent is not None and (
            parent.in_index
            or (isinstance(parent.node, ast.Subscript) and name == "slice")
            or (_is_call_to(parent.node, "range") and name == "args")
        )
        if parent is None:
            scope = node
        elif isinstance(parent.node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            scope = parent.node
        else:
            scope = parent.scope
        site = _Site(node, parent, name, index, in_index, scope)
        out.append(site)
        for child_name, value in ast.iter_fields(node):
            if child_name in _NEVER_MUTATED:
                continue
            if isinstance(value, list):
                for i, item in enumerate(value):
                    if isinstance(item, ast.AST):
                        visit(item, site, child_name, i)
            elif isinstance(value, ast.AST):
                visit(value, site, child_name, None)

    visit(tree, None, "", None)
    return out


def generate(source: str) -> Mutants:
    """Every single-point mutant of ``source`` that compiles and changes its code."""
    tree = ast.parse(source)
    original = ast.unparse(tree)
    sites = _sites(tree)
    candidates = [c for number, site in enumerate(sites) for c in _candidates(number, site)]
    made: list[Mutant] = []
    skipped: dict[str, str] = {}
    seen: dict[str, str] = {original: "the reference"}
    ids: dict[str, int] = {}
    for candidate in candidates:
        line = getattr(candidate.node, "lineno", 0)
        col = getattr(candidate.node, "col_offset", -1) + 1
        mutant_id = f"{candidate.operator}@{line}:{col} {candidate.description}"
        ids[mutant_id] = ids.get(mutant_id, 0) + 1
        if ids[mutant_id] > 1:  # two changes at one place that read alike
            mutant_id += f" #{ids[mutant_id]}"
        mutated = copy.deepcopy(tree)
        _apply(_sites(mutated)[candidate.site], candidate.transform)
        try:
            code = ast.unparse(ast.fix_missing_locations(mutated))
            compile(code, "solution.py", "exec", dont_inherit=True)
        except (SyntaxError, ValueError, RecursionError) as exc:
            skipped[mutant_id] = f"does not compile ({exc})"
            continue
        if code in seen:
            same = seen[code]
            skipped[mutant_id] = (
                "identical to the reference"
                if same == "the reference"
                else (f"same code as {same}")
            )
            continue
        seen[code] = mutant_id
        made.append(
            Mutant(
                mutant_id,
                candidate.operator,
                line,
                col,
                candidate.description,
                code,
                unified_diff(original, code),
            )
        )
    return Mutants(original, made, skipped)


def unified_diff(original: str, mutant: str) -> str:
    lines = difflib.unified_diff(
        original.splitlines(),
        mutant.splitlines(),
        "solution.py",
        "mutant",
        n=CONTEXT_LINES,
        lineterm="",
    )
    return "\n".join(lines)


def _apply(site: _Site, transform: Callable[[ast.AST], Replacement]) -> None:
    new = transform(site.node)
    assert site.parent is not None
    parent = site.parent.node
    if site.index is None:
        assert isinstance(new, ast.AST)
        setattr(parent, site.field, new)
        return
    items = getattr(parent, site.field)
    replacement = new if isinstance(new, list) else [new]
    items[site.index : site.index + 1] = replacement
    if not items and site.field == "body":
        items.append(ast.Pass())


def _text(node: ast.AST, limit: int = 60) -> str:
    text = " ".join(ast.unparse(node).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _quote(text: str) -> str:
    return "'" + text.replace("'", '"') + "'"


def _change(before: str, after: str) -> str:
    return f"{_quote(before)} -> {_quote(after)}"


def _is_call_to(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name


def _int_value(node: ast.AST) -> int | None:
    """The value of an integer literal (``-1`` included), or None."""
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if (
        isinstance(node, ast.UnaryOp)
        and isinstance(node.op, ast.USub)
        and isinstance(node.operand, ast.Constant)
        and type(node.operand.value) is int
    ):
        return -node.operand.value
    return None


def _int_node(value: int) -> ast.expr:
    if value < 0:
        return ast.UnaryOp(ast.USub(), ast.Constant(-value))
    return ast.Constant(value)


def _has_own_constant(node: ast.AST) -> bool:
    """Whether an off-by-one of ``node`` is already made on an integer literal of it."""
    if _int_value(node) is not None:
        return True
    return (
        isinstance(node, ast.BinOp)
        and isinstance(node.op, ast.Add | ast.Sub)
        and (_int_value(node.left) is not None or _int_value(node.right) is not None)
    )


def _candidates(number: int, site: _Site) -> list[_Candidate]:
    node = site.node
    out: list[_Candidate] = []

    def add(operator: str, description: str, transform: Callable[[ast.AST], Replacement]) -> None:
        out.append(_Candidate(operator, number, node, description, transform))

    # flip-compare
    if isinstance(node, ast.Compare):
        for i, op in enumerate(node.ops):
            for new_op in _COMPARE_FLIPS.get(type(op), ()):
                anchor = node if i == 0 else node.comparators[i - 1]
                out.append(
                    _Candidate(
                        "flip-compare",
                        number,
                        anchor,
                        _change(_COMPARE_TEXT[type(op)], _COMPARE_TEXT[new_op]),
                        _replace_op(i, new_op),
                    )
                )

    # off-by-one: integer literals, and bounds written without one
    value = _int_value(node)
    inner_of_negative = (
        isinstance(node, ast.Constant)
        and site.parent is not None
        and _int_value(site.parent.node) is not None
        and isinstance(site.parent.node, ast.UnaryOp)
    )
    if value is not None and not inner_of_negative:
        for new_value in (value + 1, value - 1):
            add(
                "off-by-one",
                _change(str(value), str(new_value)),
                _constant(new_value),
            )
    is_bound = (
        site.parent is not None
        and (
            (isinstance(site.parent.node, ast.Slice) and site.field in ("lower", "upper"))
            or (_is_call_to(site.parent.node, "range") and site.field == "args")
        )
        and isinstance(node, ast.expr)
    )
    if is_bound and not _has_own_constant(node):
        for step in (1, -1):
            sign = "+" if step > 0 else "-"
            add("off-by-one", _change(_text(node), f"{_text(node)} {sign} 1"), _shift(step))

    # swap-bool
    if isinstance(node, ast.BoolOp):
        before, after = ("and", "or") if isinstance(node.op, ast.And) else ("or", "and")
        add("swap-bool", _change(before, after), _swap_bool)

    # swap-sign, in index arithmetic
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Sub):
        counting = _int_value(node.left) is not None or _int_value(node.right) is not None
        if site.in_index or counting:
            before, after = ("+", "-") if isinstance(node.op, ast.Add) else ("-", "+")
            add("swap-sign", _change(before, after), _swap_sign)
    if (
        isinstance(node, ast.AugAssign)
        and isinstance(node.op, ast.Add | ast.Sub)
        and _int_value(node.value) is not None
    ):
        before, after = ("+=", "-=") if isinstance(node.op, ast.Add) else ("-=", "+=")
        add("swap-sign", _change(before, after), _swap_sign)

    if isinstance(node, ast.Call):
        out += [
            _Candidate(c.operator, number, c.node, c.description, c.transform)
            for c in _call_candidates(node)
        ]

    # remove-with
    if isinstance(node, ast.With):
        if len(node.items) == 1:
            add("remove-with", f"{_quote('with ' + _text(node.items[0]))} removed", _unwrap_with)
        else:
            for i, item in enumerate(node.items):
                add("remove-with", f"{_quote('with ' + _text(item))} removed", _drop_item(i))

    # break-continue
    if isinstance(node, ast.Break):
        add("break-continue", _change("break", "continue"), lambda _n: ast.Continue())
    if isinstance(node, ast.Continue):
        add("break-continue", _change("continue", "break"), lambda _n: ast.Break())

    # remove-stmt
    if isinstance(node, ast.stmt) and _removable(site):
        first_line = _text(node).split(":")[0] if isinstance(node, ast.If) else _text(node)
        add("remove-stmt", f"{_quote(first_line)} removed", lambda _n: [])
    return out


def _call_candidates(node: ast.Call) -> list[_Candidate]:
    """drop-copy, keyword, max-min and sorted-reverse mutants of one call (site filled in
    by the caller)."""
    out: list[_Candidate] = []

    def add(
        operator: str,
        anchor: ast.AST,
        description: str,
        transform: Callable[[ast.AST], Replacement],
    ) -> None:
        out.append(_Candidate(operator, -1, anchor, description, transform))

    func = node.func
    # drop-copy
    if isinstance(func, ast.Attribute) and func.attr in _COPY_METHODS and not node.args:
        add(
            "drop-copy",
            node,
            _change(_text(node), _text(func.value)),
            lambda n: n.func.value,  # type: ignore[attr-defined]
        )
    elif node.args and (
        (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Name)
            and func.value.id in _COPY_MODULES
            and func.attr in _COPY_FUNCTIONS
        )
        or (isinstance(func, ast.Name) and func.id in ("copy", "deepcopy"))
    ):
        add(
            "drop-copy",
            node,
            _change(_text(node), _text(node.args[0])),
            lambda n: n.args[0],  # type: ignore[attr-defined]
        )

    # max-min
    name = (
        func.id
        if isinstance(func, ast.Name)
        else func.attr
        if isinstance(func, ast.Attribute)
        else None
    )
    if name in _MAX_MIN:
        add("max-min", func, _change(name, _MAX_MIN[name]), _swap_max_min)

    # sorted-reverse
    sorting = _is_call_to(node, "sorted") or (
        isinstance(func, ast.Attribute) and func.attr == "sort" and not node.args
    )
    reverse = next((k for k in node.keywords if k.arg == "reverse"), None) if sorting else None
    if sorting and reverse is None:
        add("sorted-reverse", node, "'reverse=True' added", _add_reverse)
    elif reverse is not None:
        if isinstance(reverse.value, ast.Constant) and isinstance(reverse.value.value, bool):
            after = f"reverse={not reverse.value.value}"
        else:
            after = f"reverse=not ({_text(reverse.value)})"
        add(
            "sorted-reverse",
            reverse,
            _change(_text(reverse), after),
            _flip_reverse,
        )

    # keyword: a bool flipped, or the keyword removed
    for i, keyword in enumerate(node.keywords):
        if keyword.arg is None or keyword is reverse:
            continue
        if isinstance(keyword.value, ast.Constant) and isinstance(keyword.value.value, bool):
            add(
                "keyword",
                keyword,
                _change(_text(keyword), f"{keyword.arg}={not keyword.value.value}"),
                _flip_keyword(i),
            )
        add("keyword", keyword, f"{_quote(_text(keyword))} removed", _drop_keyword(i))
    return out


def _removable(site: _Site) -> bool:
    """A statement whose removal leaves code that still runs: a call for its effect, a
    store into a container or object, a counter step, a rebinding of a name bound
    before, or the only statement of an ``if`` branch."""
    node = site.node
    if site.index is None or site.parent is None:
        return False
    if isinstance(node, ast.Expr):
        return not (isinstance(node.value, ast.Constant) and isinstance(node.value.value, str))
    if isinstance(node, ast.AugAssign):
        return True
    parent = site.parent.node
    if isinstance(parent, ast.If) and len(getattr(parent, site.field)) == 1:
        return not isinstance(node, ast.Return | ast.FunctionDef | ast.ClassDef)
    if isinstance(node, ast.Assign):
        targets = node.targets
    elif isinstance(node, ast.AnnAssign) and node.value is not None:
        targets = [node.target]
    else:
        return False
    if any(isinstance(t, ast.Subscript | ast.Attribute) for t in targets):
        return True
    names = [t.id for t in targets if isinstance(t, ast.Name)]
    if len(names) != len(targets):
        return False
    bound = _bound_before(site.scope, getattr(node, "lineno", 0))
    return all(n in bound for n in names)


def _bound_before(scope: ast.AST, line: int) -> set[str]:
    """Names of ``scope`` bound on lines before ``line`` (its parameters included)."""
    bound: set[str] = set()
    if isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
        args = scope.args
        every = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
        bound.update(a.arg for a in every if a is not None)
    for node in ast.walk(scope):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) and node.lineno < line:
            bound.add(node.id)
    return bound


# --- the transforms: each gets the node of a deep copy, and may change it ---


def _replace_op(i: int, new_op: type[ast.cmpop]) -> Callable[[ast.AST], Replacement]:
    def transform(node: ast.AST) -> Replacement:
        assert isinstance(node, ast.Compare)
        node.ops = [*node.ops[:i], new_op(), *node.ops[i + 1 :]]
        return node

    return transform


def _constant(value: int) -> Callable[[ast.AST], Replacement]:
    return lambda _node: _int_node(value)


def _shift(step: int) -> Callable[[ast.AST], Replacement]:
    def transform(node: ast.AST) -> Replacement:
        assert isinstance(node, ast.expr)
        return ast.BinOp(node, ast.Add() if step > 0 else ast.Sub(), ast.Constant(1))

    return transform


def _swap_bool(node: ast.AST) -> Replacement:
    assert isinstance(node, ast.BoolOp)
    node.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
    return node


def _swap_sign(node: ast.AST) -> Replacement:
    assert isinstance(node, ast.BinOp | ast.AugAssign)
    node.op = ast.Sub() if isinstance(node.op, ast.Add) else ast.Add()
    return node


def _unwrap_with(node: ast.AST) -> Replacement:
    assert isinstance(node, ast.With)
    return list(node.body)


def _drop_item(i: int) -> Callable[[ast.AST], Replacement]:
    def transform(node: ast.AST) -> Replacement:
        assert isinstance(node, ast.With)
        del node.items[i]
        return node

    return transform


def _swap_max_min(node: ast.AST) -> Replacement:
    assert isinstance(node, ast.Call)
    if isinstance(node.func, ast.Name):
        node.func.id = _MAX_MIN[node.func.id]
    else:
        assert isinstance(node.func, ast.Attribute)
        node.func.attr = _MAX_MIN[node.func.attr]
    return node


def _add_reverse(node: ast.AST) -> Replacement:
    assert isinstance(node, ast.Call)
    node.keywords.append(ast.keyword("reverse", ast.Constant(True)))
    return node


def _flip_reverse(node: ast.AST) -> Replacement:
    assert isinstance(node, ast.Call)
    keyword = next(k for k in node.keywords if k.arg == "reverse")
    if isinstance(keyword.value, ast.Constant) and isinstance(keyword.value.value, bool):
        keyword.value = ast.Constant(not keyword.value.value)
    else:
        keyword.value = ast.UnaryOp(ast.Not(), keyword.value)
    return node


def _flip_keyword(i: int) -> Callable[[ast.AST], Replacement]:
    def transform(node: ast.AST) -> Replacement:
        assert isinstance(node, ast.Call)
        value = node.keywords[i].value
        assert isinstance(value, ast.Constant)
        node.keywords[i].value = ast.Constant(not value.value)
        return node

    return transform


def _drop_keyword(i: int) -> Callable[[ast.AST], Replacement]:
    def transform(node: ast.AST) -> Replacement:
        assert isinstance(node, ast.Call)
        del node.keywords[i]
        return node

    return transform
