"""Tests for engine.tree_util and engine.tree (pytrees)."""

import collections
import dataclasses
import doctest
import functools
import operator
import pickle
import timeit

import numpy as np
import pytest

import engine.tree as jtree
import engine.tree_util as tu
from engine.tree_util import (
    Partial,
    PyTreeDef,
    broadcast_prefix,
    keystr,
    register_pytree_node,
    register_pytree_node_class,
    tree_all,
    tree_flatten,
    tree_leaves,
    tree_map,
    tree_reduce,
    tree_structure,
    tree_unflatten,
    treedef_is_leaf,
)

Point = collections.namedtuple("Point", ["x", "y"])


class Box:
    def __init__(self, v, tag="t"):
        self.v, self.tag = v, tag

    def __eq__(self, other):
        return isinstance(other, Box) and self.v == other.v and self.tag == other.tag

    def __repr__(self):
        return f"Box({self.v!r}, {self.tag!r})"


register_pytree_node(Box, lambda b: ((b.v,), b.tag), lambda tag, c: Box(c[0], tag))


@register_pytree_node_class
class Pair:
    def __init__(self, a, b):
        self.a, self.b = a, b

    def tree_flatten(self):
        return (self.a, self.b), None

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(*children)

    def __eq__(self, other):
        return isinstance(other, Pair) and (self.a, self.b) == (other.a, other.b)


TREES = [
    1,
    None,
    (),
    [],
    {},
    (1,),
    (1, 2),
    [1, [2, 3]],
    (1, {"a": 2}),
    [1, (2, None), {"b": 4, "a": 3}],
    {"x": None},
    [None, [None]],
    Point(1, (2, 3)),
    collections.OrderedDict([("b", 1), ("a", 2)]),
    collections.defaultdict(list, {"z": 1, "y": 2}),
    Box((1, 2)),
    Pair(1, [2, 3]),
    {"p": Point([1], {"q": 2}), "l": [Box(3, "u"), ()]},
    tuple(range(20)),
    [np.ones(2), np.zeros(3)],
]


@pytest.mark.parametrize("tree", TREES, ids=lambda t: type(t).__name__)
def test_roundtrip(tree):
    leaves, treedef = tree_flatten(tree)
    assert treedef.num_leaves == len(leaves)
    back = tree_unflatten(treedef, leaves)
    assert type(back) is type(tree)
    assert tree_structure(back) == treedef
    assert hash(tree_structure(back)) == hash(treedef)
    l2 = tree_leaves(back)
    assert len(l2) == len(leaves) and all(a is b for a, b in zip(l2, leaves))
    assert treedef.unflatten(leaves) is not None or tree is None


def test_leaves_order_and_none():
    assert tree_leaves([1, (2, None), {"b": 4, "a": 3}]) == [1, 2, 3, 4]
    assert tree_leaves(None) == []
    assert tree_leaves([None, {"a": None}]) == []
    assert tree_leaves({"b": 1, "a": 2, "c": {"y": 3, "x": 4}}) == [2, 1, 4, 3]
    # OrderedDict keeps insertion order; defaultdict sorts.
    assert tree_leaves(collections.OrderedDict([("b", 1), ("a", 2)])) == [1, 2]
    assert tree_leaves(collections.defaultdict(int, {"b": 1, "a": 2})) == [2, 1]
    # Strings, arrays and unregistered objects are leaves.
    obj = object()
    arr = np.arange(3)
    assert tree_leaves(["ab", arr, obj])[2] is obj
    # dict subclasses and other mappings are leaves, as in JAX.

    class D(dict):
        pass

    d = D(a=1)
    assert tree_leaves(d) == [d]


def test_repr_matches_jax_format():
    assert repr(tree_structure((1, {"a": 2}))) == "PyTreeDef((*, {'a': *}))"
    assert repr(tree_structure([1, (2, 3), [4, 5]])) == "PyTreeDef([*, (*, *), [*, *]])"
    assert repr(tree_structure(None)) == "PyTreeDef(None)"
    assert repr(tree_structure(1)) == "PyTreeDef(*)"
    assert repr(tree_structure((1,))) == "PyTreeDef((*,))"
    assert repr(tree_structure(())) == "PyTreeDef(())"
    assert repr(tree_structure(Point(1, (2, 3)))) == "PyTreeDef(CustomNode(namedtuple[Point], [*, (*, *)]))"
    assert (
        repr(tree_structure(collections.OrderedDict([("b", 1), ("a", 2)])))
        == "PyTreeDef(CustomNode(OrderedDict[('b', 'a')], [*, *]))"
    )
    assert repr(tree_structure(Box(1, "q"))) == "PyTreeDef(CustomNode(Box[q], [*]))"  # (str of the aux data)
    assert (
        repr(tree_structure(Partial(max, 1, key=2)))
        == "PyTreeDef(CustomNode(Partial[<built-in function max>], [(*,), {'key': *}]))"
    )


def test_treedef_properties():
    td = tree_structure([1, (2, None), {"a": 3}])
    assert td.num_leaves == 3
    assert td.num_nodes == 7
    assert [repr(c) for c in td.children()] == ["PyTreeDef(*)", "PyTreeDef((*, None))", "PyTreeDef({'a': *})"]
    assert tu.treedef_children(td) == td.children()
    assert treedef_is_leaf(tree_structure(1))
    assert treedef_is_leaf(tree_structure(None))
    assert treedef_is_leaf(tree_structure(()))
    assert not treedef_is_leaf(tree_structure((1,)))
    assert tree_structure((1, 2)).node_data() == (tuple, None)
    assert tree_structure({"a": 1}).node_data() == (dict, ["a"])  # (JAX 0.10.2: the keys as a list)


def test_treedef_eq_hash():
    a = tree_structure((1, {"a": 2, "b": [3]}))
    b = tree_structure(("x", {"b": ["y"], "a": "z"}))
    assert a == b and hash(a) == hash(b)
    assert a != tree_structure((1, {"a": 2, "b": (3,)}))
    assert tree_structure((1, 2)) != tree_structure([1, 2])
    assert tree_structure({"a": 1}) != tree_structure({"b": 1})
    assert tree_structure(Box(1, "p")) != tree_structure(Box(1, "q"))
    assert tree_structure(Box(1, "p")) == tree_structure(Box(2, "p"))
    assert tree_structure(Point(1, 2)) != tree_structure((1, 2))
    assert tree_structure(None) != tree_structure(())
    assert tree_structure(1) == tree_structure(np.ones(3))
    cache = {tree_structure((1, 2)): "hit"}
    assert cache[tree_structure((np.ones(1), np.ones(2)))] == "hit"
    assert tree_structure(1) != "not a treedef"
    with pytest.raises(TypeError):
        PyTreeDef()


def test_unflatten_errors_and_iterables():
    td = tree_structure((1, [2, 3]))
    assert td.unflatten(iter([4, 5, 6])) == (4, [5, 6])
    assert td.unflatten("abc") == ("a", ["b", "c"])
    with pytest.raises(ValueError, match="Too few leaves"):
        td.unflatten([1, 2])
    with pytest.raises(ValueError, match="Too many leaves"):
        td.unflatten([1, 2, 3, 4])
    assert tree_structure(None).unflatten([]) is None
    assert tree_unflatten(tree_structure(5), ["leaf"]) == "leaf"


def test_is_leaf():
    tree = [(1, 2), {"a": (3, 4)}, None]
    leaves = tree_leaves(tree, is_leaf=lambda x: isinstance(x, tuple))
    assert leaves == [(1, 2), (3, 4)]
    assert tree_leaves([None, 1], is_leaf=lambda x: x is None) == [None, 1]
    leaves, td = tree_flatten(tree, is_leaf=lambda x: isinstance(x, tuple))
    assert td.unflatten(["p", "q"]) == ["p", {"a": "q"}, None]
    assert tree_map(lambda t: sum(t), tree, is_leaf=lambda x: isinstance(x, tuple)) == [3, {"a": 7}, None]
    # is_leaf applies at the root too.
    assert tree_leaves((1, 2), is_leaf=lambda x: isinstance(x, tuple)) == [(1, 2)]


def test_tree_map_multi_and_prefix():
    assert tree_map(lambda x, y: x + y, {"a": 1, "b": (2, 3)}, {"a": 10, "b": (20, 30)}) == {
        "a": 11,
        "b": (22, 33),
    }
    # rest trees may have deeper structure below the first tree's leaves.
    assert tree_map(lambda x, y: (x, y), (1, 2), ([3], {"a": 4})) == ((1, [3]), (2, {"a": 4}))
    # None in the first tree is an empty node: the other tree can be None there...
    assert tree_map(lambda x, y: x + y, (1, None), (2, None)) == (3, None)
    # ...and a leaf of the first tree can face None in the others.
    assert tree_map(lambda x, y: y, (1, 2), (1, None)) == (1, None)
    assert tree_map(lambda x, y, z: x * y * z, [1, 2], [3, 4], [5, 6]) == [15, 48]
    assert tree_map(lambda x: x, Box(1, "k")) == Box(1, "k")
    assert tree_map(lambda x: x + 1, Pair(1, [2])) == Pair(2, [3])
    assert tree_map(lambda x: x * 2, Point(1, 2)) == Point(2, 4)
    od = tree_map(lambda x: -x, collections.OrderedDict([("b", 1), ("a", 2)]))
    assert isinstance(od, collections.OrderedDict) and list(od.items()) == [("b", -1), ("a", -2)]
    dd = tree_map(lambda x: -x, collections.defaultdict(list, {"b": 1}))
    assert isinstance(dd, collections.defaultdict) and dd.default_factory is list and dd["b"] == -1


@pytest.mark.parametrize(
    "a,b,kind,where",
    [  # (what JAX 0.10.2 reports for each: the kind of difference and its key path)
        ((1, 2), (1, 2, 3), "different lengths of tuple", ""),
        ((1, 2), [1, 2], "different types", ""),
        ({"a": 1}, {"b": 1}, "different pytree metadata", ""),
        ((1, None), (1, 2), "different types", "[1]"),
        ([1, (2, 3)], [1, (2, [3], 4)], "different lengths of tuple", "[1]"),
        ({"a": [1, 2]}, {"a": [1]}, "different lengths of list", "['a']"),
        (Point(1, 2), (1, 2), "different types", ""),
        (Box(1, "p"), Box(1, "q"), "different pytree metadata", ""),
    ],
)
def test_tree_map_mismatch_errors(a, b, kind, where):
    with pytest.raises(ValueError) as ei:
        tree_map(lambda x, y: x, a, b)
    head, path = str(ei.value).split("\n")[:2]
    assert head == f"pytree structure error: {kind} at key path"
    assert path == f"    tree_map tree{where}"


def test_flatten_up_to():
    td = tree_structure((1, 2))
    assert td.flatten_up_to(([1, 2], {"a": 3})) == [[1, 2], {"a": 3}]
    with pytest.raises(ValueError, match="expected a tuple of length 2"):
        td.flatten_up_to((1, 2, 3))


def test_reduce_all():
    assert tree_reduce(operator.add, [1, (2, 3)]) == 6
    assert tree_reduce(operator.add, [], 10) == 10
    assert tree_reduce(operator.add, {"a": [1]}, 5) == 6
    with pytest.raises(TypeError):
        tree_reduce(operator.add, [])
    assert tree_all([True, {"a": (True,)}])
    assert not tree_all([True, {"a": (0,)}])
    assert tree_all([])
    assert tree_all([None, True])
    assert tu.all_leaves([1, "a", np.ones(2)])
    assert not tu.all_leaves([1, (2,)])


def test_partial():
    p = Partial(operator.add, 1)
    assert p(2) == 3
    leaves, td = tree_flatten(p)
    assert leaves == [1]
    p2 = td.unflatten([10])
    assert isinstance(p2, Partial) and p2(2) == 12
    assert tree_map(lambda x: x * 3, p)(0) == 3
    q = Partial(lambda a, b=0: a - b, b=5)
    assert tree_leaves(q) == [5]
    assert tree_map(lambda x: x + 1, q)(10) == 4
    # Nested Partial: args merge so they all are leaves.
    r = Partial(Partial(lambda a, b, c: a + b * c, 1), 2)
    assert tree_leaves(r) == [1, 2] and r(3) == 7
    # The function is static: different functions, different treedefs.
    assert tree_structure(Partial(operator.add, 1)) == tree_structure(Partial(operator.add, 2))
    assert tree_structure(Partial(operator.add, 1)) != tree_structure(Partial(operator.sub, 1))
    assert isinstance(p, functools.partial)


def test_register_duplicate_and_bad():
    with pytest.raises(ValueError, match="Duplicate"):
        register_pytree_node(Box, lambda b: ((), None), lambda a, c: None)
    with pytest.raises(ValueError, match="Duplicate"):
        register_pytree_node(tuple, lambda b: ((), None), lambda a, c: None)


def test_registration_after_first_use_invalidates_cache():
    class Late:
        def __init__(self, v):
            self.v = v

    x = Late(1)
    assert tree_leaves(x) == [x]  # caches Late as a leaf type
    register_pytree_node(Late, lambda o: ((o.v,), None), lambda _, c: Late(*c))
    assert tree_leaves(Late(5)) == [5]


def test_register_dataclass_and_static():
    @dataclasses.dataclass
    class Params:
        w: object
        b: object
        name: str = dataclasses.field(default="p", metadata=dict(static=True))

    tu.register_dataclass(Params)
    p = Params(1, 2, "layer")
    leaves, td = tree_flatten(p)
    assert leaves == [1, 2]
    assert td.unflatten([3, 4]) == Params(3, 4, "layer")
    assert tree_structure(Params(1, 2, "a")) != tree_structure(Params(1, 2, "b"))
    paths = [keystr(k) for k, _ in tu.tree_leaves_with_path(p)]
    assert paths == [".w", ".b"]

    @dataclasses.dataclass(frozen=True)
    class Cfg:
        n: int

    tu.register_static(Cfg)
    assert tree_leaves([Cfg(3), 1]) == [1]
    assert tree_structure([Cfg(3)]) != tree_structure([Cfg(4)])
    assert tree_map(lambda x: x, [Cfg(3), 1]) == [Cfg(3), 1]


def test_key_paths():
    pairs, td = tu.tree_flatten_with_path({"a": (1, Point(2, 3)), "b": [4], "c": Box(5)})
    assert [(keystr(p), v) for p, v in pairs] == [
        ("['a'][0]", 1),
        ("['a'][1].x", 2),
        ("['a'][1].y", 3),
        ("['b'][0]", 4),
        ("['c'][<flat index 0>]", 5),
    ]
    assert td == tree_structure({"a": (1, Point(2, 3)), "b": [4], "c": Box(5)})
    out = tu.tree_map_with_path(lambda p, x, y: (keystr(p), x + y), {"a": 1}, {"a": 2})
    assert out == {"a": ("['a']", 3)}
    assert keystr((tu.DictKey("a"), tu.SequenceKey(0)), simple=True, separator="/") == "a/0"


def test_transpose_and_tuple():
    assert tu.tree_transpose(tree_structure([0, 0]), tree_structure((0, 0)), [(1, 2), (3, 4)]) == (
        [1, 3],
        [2, 4],
    )
    assert tu.tree_transpose(
        tree_structure({"a": 0, "b": 0}), None, {"a": {"x": 1, "y": 2}, "b": {"x": 3, "y": 4}}
    ) == {"x": {"a": 1, "b": 3}, "y": {"a": 2, "b": 4}}
    td = tu.treedef_tuple([tree_structure(1), tree_structure([1, 2])])
    assert repr(td) == "PyTreeDef((*, [*, *]))"
    assert td.unflatten([1, 2, 3]) == (1, [2, 3])
    assert tree_structure((0, 0)).compose(tree_structure([0, 0])) == tree_structure(([0, 0], [0, 0]))


def test_broadcast_prefix():
    assert broadcast_prefix(0, (1, [2, 3])) == [0, 0, 0]
    assert broadcast_prefix((0, None), ([1, 2], {"a": 3})) == [0, 0, None]
    assert broadcast_prefix((0, 1), (np.ones(2), np.ones(3))) == [0, 1]
    assert broadcast_prefix(None, (1, 2)) == [None, None]
    assert broadcast_prefix({"a": 1, "b": None}, {"a": (1, 2), "b": [3]}) == [1, 1, None]
    assert broadcast_prefix((0, 1), (None, 5)) == [1]  # no leaves under the first entry
    assert broadcast_prefix(0, ()) == []
    # is_leaf marks extra prefix leaves.
    assert broadcast_prefix([(0, 1)], [[1, 2, 3]], is_leaf=lambda x: isinstance(x, tuple)) == [(0, 1)] * 3


@pytest.mark.parametrize(
    "prefix,full,fragment",
    [  # (JAX 0.10.2's words, as jax._src.tree_util.broadcast_prefix raises them)
        ((0, 0), (1, 2, 3), "different lengths of tuple at key path\n    broadcast_prefix prefix_tree\n"),
        ((0, 0), [1, 2], "different types at key path\n    broadcast_prefix prefix_tree\n"),
        ({"a": 0}, {"b": 1}, "metadata\n    ('a',)\nbut at the same key path the full pytree"),
        ((0, (1, 1)), (1, (2,)), "at key path\n    broadcast_prefix prefix_tree[1]\n"),
        ([0], 5, "of different type\n    <class 'int'>."),
    ],
)
def test_broadcast_prefix_errors(prefix, full, fragment):
    with pytest.raises(ValueError) as ei:
        broadcast_prefix(prefix, full)
    assert str(ei.value).startswith("pytree structure error: ") and fragment in str(ei.value)


def test_pickle_treedef():
    for tree in [
        (1, {"a": [2]}),
        Point(1, 2),
        Box(1, "z"),
        None,
        collections.OrderedDict(a=1),
        collections.defaultdict(list, a=1),
    ]:
        td = tree_structure(tree)
        td2 = pickle.loads(pickle.dumps(td))
        assert td2 == td and hash(td2) == hash(td)


def test_tree_namespace():
    assert jtree.map(lambda x, y: x + y, (1, [2]), (10, [20])) == (11, [22])
    assert jtree.leaves({"b": 2, "a": [1, None]}) == [1, 2]
    leaves, td = jtree.flatten([1, (2, 3)])
    assert leaves == [1, 2, 3] and jtree.unflatten(td, [4, 5, 6]) == [4, (5, 6)]
    assert jtree.structure([1, (2, 3)]) == td
    assert jtree.reduce(operator.add, [1, (2, 3)]) == 6
    assert jtree.reduce(operator.add, [], 7) == 7
    assert jtree.all([True, (True,)]) and not jtree.all([False])
    assert jtree.broadcast((1, 2), ((0, 0), [0])) == ((1, 1), [2])
    assert jtree.transpose(jtree.structure([0, 0]), jtree.structure((0, 0)), [(1, 2), (3, 4)]) == (
        [1, 3],
        [2, 4],
    )
    assert [keystr(p) for p, _ in jtree.leaves_with_path([1, {"k": 2}])] == ["[0]", "[1]['k']"]
    assert jtree.map_with_path(lambda p, x: len(p), [1, (2,)]) == [1, (2,)]


def test_doctests():
    for mod in (tu, jtree):
        res = doctest.testmod(mod)
        assert res.failed == 0 and res.attempted > 0, mod


def test_flatten_speed():
    """A tuple of two arrays flattens and unflattens in a few microseconds."""
    t = (np.ones(2), np.ones(3))
    leaves, td = tree_flatten(t)
    n = 20000
    flat = min(timeit.repeat(lambda: tree_flatten(t), number=n, repeat=3)) / n
    unflat = min(timeit.repeat(lambda: td.unflatten(leaves), number=n, repeat=3)) / n
    # Generous bounds (shared CI machines); typical is ~0.5 us and ~0.2 us.
    assert flat < 10e-6, flat
    assert unflat < 10e-6, unflat


def test_dict_keys_that_do_not_compare_raise_valueerror_from_the_typeerror():
    """As in JAX, the ValueError is raised *from* the failed comparison, so the traceback shows it."""
    with pytest.raises(ValueError, match="sorting pytree dictionary keys") as info:
        tree_flatten({1: 1.0, "a": 2.0})
    assert isinstance(info.value.__cause__, TypeError)
