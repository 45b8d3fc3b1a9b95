"""A Wadler-Lindig pretty printer: documents of text, breaks, groups and nesting laid out to a width.

The jaxpr printer (``engine.ir``) builds the same documents JAX builds and lays them out with the
same rule JAX uses (a group prints flat when the group itself fits in what is left of the line), so
line breaks fall where JAX puts them.

  >>> doc = group(concat([text("["), nest(2, concat([brk(""), join(brk(), [text("a=1"), text("b=2")])])),
  ...                     brk(""), text("]")]))
  >>> doc.format(80)
  '[a=1 b=2]'
"""

from __future__ import annotations

from typing import Sequence


class Doc:
    __slots__ = ()

    def __add__(self, other: "Doc") -> "Doc":
        return concat([self, other])

    def format(self, width: int = 80) -> str:
        return _format(self, width)

    __str__ = format


class _Nil(Doc):
    __slots__ = ()


class _Text(Doc):
    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text


class _Concat(Doc):
    __slots__ = ("children",)

    def __init__(self, children):
        self.children = children


class _Break(Doc):
    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text


class _Group(Doc):
    __slots__ = ("child",)

    def __init__(self, child: Doc):
        self.child = child


class _Nest(Doc):
    __slots__ = ("n", "child")

    def __init__(self, n: int, child: Doc):
        self.n, self.child = n, child


_NIL = _Nil()


def nil() -> Doc:
    return _NIL


def text(s: str) -> Doc:
    return _Text(s)


def concat(docs: Sequence[Doc]) -> Doc:
    docs = list(docs)
    return docs[0] if len(docs) == 1 else _Concat(docs)


def brk(s: str = " ") -> Doc:
    """A break: ``s`` when its group prints flat, else a newline at the current indentation."""
    return _Break(s)


def group(doc: Doc) -> Doc:
    """Prints flat if the whole group fits on the rest of the line, else with its breaks as newlines."""
    return _Group(doc)


def nest(n: int, doc: Doc) -> Doc:
    return _Nest(n, doc)


def join(sep: Doc, docs: Sequence[Doc]) -> Doc:
    docs = list(docs)
    if not docs:
        return _NIL
    out = [docs[0]]
    for d in docs[1:]:
        out += [sep, d]
    return concat(out)


def _fits(doc: Doc, width: int) -> bool:
    agenda = [doc]
    while width >= 0 and agenda:
        d = agenda.pop()
        t = type(d)  # (the document classes are final: a type test is cheaper than isinstance)
        if t is _Text or t is _Break:
            width -= len(d.text)  # type: ignore[attr-defined]
        elif t is _Concat:
            agenda.extend(reversed(d.children))  # type: ignore[attr-defined]
        elif t is _Group or t is _Nest:
            agenda.append(d.child)  # type: ignore[attr-defined]
    return width >= 0


def _flat(doc: Doc, line: list[str]) -> int:
    """Append ``doc`` laid out flat to ``line``; its length. Inside a group that fits, every group
    fits too (it is part of the text that fits, further right), so flat is all there is to decide."""
    n = 0
    agenda = [doc]
    while agenda:
        d = agenda.pop()
        t = type(d)
        if t is _Text or t is _Break:
            line.append(d.text)  # type: ignore[attr-defined]
            n += len(d.text)  # type: ignore[attr-defined]
        elif t is _Concat:
            agenda.extend(reversed(d.children))  # type: ignore[attr-defined]
        elif t is _Group or t is _Nest:
            agenda.append(d.child)  # type: ignore[attr-defined]
    return n


def _format(doc: Doc, width: int) -> str:
    lines: list[str] = []
    line: list[str] = []
    k = 0
    agenda: list[tuple[int, Doc]] = [(0, doc)]  # (indentation, document) laid out broken
    while agenda:
        i, d = agenda.pop()
        t = type(d)
        if t is _Text:
            line.append(d.text)  # type: ignore[attr-defined]
            k += len(d.text)  # type: ignore[attr-defined]
        elif t is _Concat:
            agenda.extend((i, c) for c in reversed(d.children))  # type: ignore[attr-defined]
        elif t is _Break:
            lines.append("".join(line))
            line, k = [" " * i], i
        elif t is _Nest:
            agenda.append((i + d.n, d.child))  # type: ignore[attr-defined]
        elif t is _Group:
            if _fits(d.child, width - k):  # type: ignore[attr-defined]
                k += _flat(d.child, line)  # type: ignore[attr-defined]
            else:
                agenda.append((i, d.child))  # type: ignore[attr-defined]
    lines.append("".join(line))
    return "\n".join(lines)
