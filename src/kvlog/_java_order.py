"""The iteration order of a ``java.util.HashMap<String, V>`` (JDK 8 to 25), for texts Kafka's tools print by
walking such a map.

``DumpLogSegments`` collects its end-of-run reports (index mismatches, time-index errors, non-consecutive
offsets) in ``HashMap``s keyed by file path and prints them with ``Map.forEach``: the files come out in the
map's order, not in the order they were dumped. :class:`JavaHashMap` replays the same operations on the same
keys and walks its entries in the same order. Everything that decides that order is emulated:

* ``String.hashCode`` over UTF-16 code units (``s[0]*31^(n-1) + ... + s[n-1]``, 32-bit wrap-around),
  spread as ``h ^ (h >>> 16)``; the bucket is ``hash & (capacity - 1)``;
* the table: 16 buckets on first use, doubled when the size passes ``0.75 * capacity``; a resize splits each
  bucket into the ones at ``j`` and ``j + old capacity``, each keeping its entries' relative order;
* ``put`` appends a new key at the end of its bucket's chain and resizes right after the insertion that
  passed the threshold; ``computeIfAbsent`` puts a new key at the *front* of the chain and resizes lazily, at
  the start of the next ``computeIfAbsent`` (any, even for a key already there) once the size has passed the
  threshold. The two give different orders for the same keys (``DumpLogSegments`` uses ``computeIfAbsent``);
* a chain that reaches 9 entries: the table is doubled instead while it is under 64 buckets, and the bucket
  becomes a red-black tree otherwise. A tree bucket is still iterated along its linked list, but that list
  changes: the tree's root is moved to its front after every insertion (``moveRootToFront``), a key added
  later goes right after its parent in the tree, and a resize splits it into lists that are untreeified
  (6 entries or fewer, order kept) or treeified again (the new root moved to the front). The tree orders its
  nodes by spread hash (signed) and then by ``String.compareTo`` (UTF-16 code units), as ``HashMap.TreeNode``
  does; its rotations and colourings are those of ``balanceInsertion``.

Removal is not emulated (the tools never remove). ``tests/test_java_order.py`` holds this to a live JVM.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

__all__ = ["JavaHashMap", "java_string_hash", "java_units"]

V = TypeVar("V")

_INITIAL_CAPACITY = 16
_TREEIFY_THRESHOLD = 8
_UNTREEIFY_THRESHOLD = 6
_MIN_TREEIFY_CAPACITY = 64


def java_units(s: str) -> bytes:
    """``s`` as Java holds it: its UTF-16 code units, big-endian (a lone surrogate as itself)."""
    return s.encode("utf-16-be", "surrogatepass")


def _signed(h: int) -> int:
    h &= 0xFFFFFFFF
    return h - (1 << 32) if h & 0x80000000 else h


def java_string_hash(s: str) -> int:
    """``String.hashCode()``: a signed 32-bit int."""
    units = java_units(s)
    h = 0
    for i in range(0, len(units), 2):
        h = (31 * h + (units[i] << 8 | units[i + 1])) & 0xFFFFFFFF
    return _signed(h)


@functools.lru_cache(maxsize=4096)
def _key(s: str) -> tuple[int, bytes]:
    """``HashMap.hash(key)`` (``h ^ (h >>> 16)``, signed) and the key's UTF-16 code units (Java's equality)."""
    h = java_string_hash(s) & 0xFFFFFFFF
    return _signed(h ^ (h >> 16)), java_units(s)


class _Node(Generic[V]):
    """``HashMap.Node``, and ``HashMap.TreeNode`` when ``tree`` is set."""

    __slots__ = ("hash", "key", "units", "value", "next", "tree", "parent", "left", "right", "prev", "red")

    def __init__(self, h: int, key: str, units: bytes, value: V, nxt: _Node[V] | None) -> None:
        self.hash = h
        self.key = key
        self.units = units  # for String.compareTo in a tree bucket
        self.value = value
        self.next = nxt
        self.tree = False
        self.parent: _Node[V] | None = None
        self.left: _Node[V] | None = None
        self.right: _Node[V] | None = None
        self.prev: _Node[V] | None = None
        self.red = False


def _direction(h: int, units: bytes, p: _Node[V]) -> int:
    """Where a key goes relative to tree node ``p``: by spread hash, then ``compareTo`` (never equal keys)."""
    if p.hash > h:
        return -1
    if p.hash < h:
        return 1
    return -1 if units < p.units else 1  # compareTo; big-endian UTF-16 bytes sort as their code units do


def _rotate_left(root: _Node[V], p: _Node[V]) -> _Node[V]:
    r = p.right
    if r is not None:
        rl = p.right = r.left
        if rl is not None:
            rl.parent = p
        pp = r.parent = p.parent
        if pp is None:
            root = r
            r.red = False
        elif pp.left is p:
            pp.left = r
        else:
            pp.right = r
        r.left = p
        p.parent = r
    return root


def _rotate_right(root: _Node[V], p: _Node[V]) -> _Node[V]:
    left = p.left
    if left is not None:
        lr = p.left = left.right
        if lr is not None:
            lr.parent = p
        pp = left.parent = p.parent
        if pp is None:
            root = left
            left.red = False
        elif pp.right is p:
            pp.right = left
        else:
            pp.left = left
        left.right = p
        p.parent = left
    return root


def _balance_insertion(root: _Node[V], x: _Node[V]) -> _Node[V]:
    """``TreeNode.balanceInsertion``: the (possibly new) root after inserting ``x``."""
    x.red = True
    while True:
        xp = x.parent
        if xp is None:
            x.red = False
            return x
        xpp = xp.parent
        if not xp.red or xpp is None:
            return root
        xppl = xpp.left
        if xp is xppl:
            xppr = xpp.right
            if xppr is not None and xppr.red:
                xppr.red = False
                xp.red = False
                xpp.red = True
                x = xpp
            else:
                if x is xp.right:
                    x = xp
                    root = _rotate_left(root, x)
                    xp = x.parent
                    xpp = None if xp is None else xp.parent
                if xp is not None:
                    xp.red = False
                    if xpp is not None:
                        xpp.red = True
                        root = _rotate_right(root, xpp)
        else:
            if xppl is not None and xppl.red:
                xppl.red = False
                xp.red = False
                xpp.red = True
                x = xpp
            else:
                if x is xp.left:
                    x = xp
                    root = _rotate_right(root, x)
                    xp = x.parent
                    xpp = None if xp is None else xp.parent
                if xp is not None:
                    xp.red = False
                    if xpp is not None:
                        xpp.red = True
                        root = _rotate_left(root, xpp)


def _move_root_to_front(tab: list[_Node[V] | None], root: _Node[V]) -> None:
    index = (len(tab) - 1) & root.hash
    first = tab[index]
    if root is not first:
        tab[index] = root
        rp, rn = root.prev, root.next
        if rn is not None:
            rn.prev = rp
        if rp is not None:
            rp.next = rn
        if first is not None:
            first.prev = root
        root.next = first
        root.prev = None


def _treeify(head: _Node[V], tab: list[_Node[V] | None]) -> None:
    """``TreeNode.treeify``: a tree of the list from ``head`` (its nodes already tree nodes, ``prev`` set)."""
    root: _Node[V] | None = None
    x: _Node[V] | None = head
    while x is not None:
        nxt = x.next
        x.left = x.right = None
        if root is None:
            x.parent = None
            x.red = False
            root = x
        else:
            p = root
            while True:
                d = _direction(x.hash, x.units, p)
                xp = p
                child = p.left if d <= 0 else p.right
                if child is None:
                    x.parent = xp
                    if d <= 0:
                        xp.left = x
                    else:
                        xp.right = x
                    root = _balance_insertion(root, x)
                    break
                p = child
        x = nxt
    assert root is not None
    _move_root_to_front(tab, root)


def _untreeify(head: _Node[V]) -> _Node[V]:
    """``TreeNode.untreeify``: plain nodes, in the list's order."""
    out: _Node[V] | None = None
    tail: _Node[V] | None = None
    q: _Node[V] | None = head
    while q is not None:
        p: _Node[V] = _Node(q.hash, q.key, q.units, q.value, None)
        if tail is None:
            out = p
        else:
            tail.next = p
        tail = p
        q = q.next
    assert out is not None
    return out


class JavaHashMap(Generic[V]):
    """A ``new HashMap<String, V>()`` (default capacity and load factor) that iterates as Java's does.

    ``put`` and ``compute_if_absent`` are ``HashMap.put`` and ``HashMap.computeIfAbsent``: replay the same
    calls in the same order (``compute_if_absent`` of a key already there included: it may resize) and
    ``keys()``/``items()`` come out in ``forEach`` order."""

    def __init__(self) -> None:
        self._table: list[_Node[V] | None] = []
        self._threshold = 0
        self._size = 0

    def __len__(self) -> int:
        return self._size

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self._find(*_key(key)) is not None

    def __iter__(self) -> Iterator[str]:
        return self.keys()

    def keys(self) -> Iterator[str]:
        for k, _ in self.items():
            yield k

    def values(self) -> Iterator[V]:
        for _, v in self.items():
            yield v

    def items(self) -> Iterator[tuple[str, V]]:
        """The entries in ``HashMap.forEach``/``entrySet()`` order: bucket by bucket, along each chain."""
        for e in self._table:
            while e is not None:
                yield e.key, e.value
                e = e.next

    def get(self, key: str) -> V | None:
        e = self._find(*_key(key))
        return None if e is None else e.value

    def __getitem__(self, key: str) -> V:
        e = self._find(*_key(key))
        if e is None:
            raise KeyError(key)
        return e.value

    # ------------------------------------------------------------------------------------ Java's operations
    def put(self, key: str, value: V) -> None:
        """``HashMap.put`` (``putVal``)."""
        h, units = _key(key)
        if not self._table:
            self._resize()
        tab = self._table
        i = (len(tab) - 1) & h
        p = tab[i]
        if p is None:
            tab[i] = _Node(h, key, units, value, None)
        else:
            found = self._find(h, units)
            if found is not None:
                found.value = value
                return
            if p.tree:
                self._put_tree_val(p, h, key, units, value)
            else:
                count = 1
                while p.next is not None:
                    p = p.next
                    count += 1
                p.next = _Node(h, key, units, value, None)
                if count >= _TREEIFY_THRESHOLD:  # the chain had 8 nodes: binCount >= TREEIFY_THRESHOLD - 1
                    self._treeify_bin(h)
        self._size += 1
        if self._size > self._threshold:
            self._resize()

    def compute_if_absent(self, key: str, factory: Callable[[str], V]) -> V:
        """``HashMap.computeIfAbsent`` (``factory`` never returns null here)."""
        h, units = _key(key)
        if self._size > self._threshold or not self._table:
            self._resize()
        tab = self._table
        i = (len(tab) - 1) & h
        first = tab[i]
        count = 0
        if first is not None:
            e: _Node[V] | None = first
            while e is not None:
                if e.hash == h and e.units == units:
                    return e.value
                count += 1
                e = e.next
        v = factory(key)
        if first is not None and first.tree:
            self._put_tree_val(first, h, key, units, v)
        else:
            tab[i] = _Node(h, key, units, v, first)
            if count >= _TREEIFY_THRESHOLD - 1:
                self._treeify_bin(h)
        self._size += 1
        return v

    # ------------------------------------------------------------------------------------ internals
    def _find(self, h: int, units: bytes) -> _Node[V] | None:
        if not self._table:
            return None
        e = self._table[(len(self._table) - 1) & h]
        while e is not None:
            if e.hash == h and e.units == units:
                return e
            e = e.next
        return None

    def _resize(self) -> None:
        old = self._table
        old_cap = len(old)
        if old_cap == 0:
            new_cap, self._threshold = _INITIAL_CAPACITY, int(_INITIAL_CAPACITY * 0.75)
        else:
            if old_cap >= 1 << 30:  # pragma: no cover - a billion keys
                self._threshold = 0x7FFFFFFF
                return
            new_cap, self._threshold = old_cap << 1, self._threshold << 1
        tab: list[_Node[V] | None] = [None] * new_cap
        self._table = tab
        for j, e in enumerate(old):
            if e is None:
                continue
            if e.next is None:
                tab[e.hash & (new_cap - 1)] = e
            elif e.tree:
                self._split(e, j, old_cap)
            else:
                lo_head = lo_tail = hi_head = hi_tail = None
                q: _Node[V] | None = e
                while q is not None:
                    nxt = q.next
                    q.next = None
                    if q.hash & old_cap == 0:
                        if lo_tail is None:
                            lo_head = q
                        else:
                            lo_tail.next = q
                        lo_tail = q
                    else:
                        if hi_tail is None:
                            hi_head = q
                        else:
                            hi_tail.next = q
                        hi_tail = q
                    q = nxt
                tab[j] = lo_head
                tab[j + old_cap] = hi_head

    def _split(self, b: _Node[V], index: int, bit: int) -> None:
        """``TreeNode.split``: a tree bucket into ``index`` and ``index + bit`` of the new table."""
        tab = self._table
        lo_head = lo_tail = hi_head = hi_tail = None
        lc = hc = 0
        e: _Node[V] | None = b
        while e is not None:
            nxt = e.next
            e.next = None
            if e.hash & bit == 0:
                e.prev = lo_tail
                if lo_tail is None:
                    lo_head = e
                else:
                    lo_tail.next = e
                lo_tail = e
                lc += 1
            else:
                e.prev = hi_tail
                if hi_tail is None:
                    hi_head = e
                else:
                    hi_tail.next = e
                hi_tail = e
                hc += 1
            e = nxt
        if lo_head is not None:
            if lc <= _UNTREEIFY_THRESHOLD:
                tab[index] = _untreeify(lo_head)
            else:
                tab[index] = lo_head
                if hi_head is not None:  # else the whole tree moved as it was
                    _treeify(lo_head, tab)
        if hi_head is not None:
            if hc <= _UNTREEIFY_THRESHOLD:
                tab[index + bit] = _untreeify(hi_head)
            else:
                tab[index + bit] = hi_head
                if lo_head is not None:
                    _treeify(hi_head, tab)

    def _treeify_bin(self, h: int) -> None:
        """``HashMap.treeifyBin``: a resize while the table is small, else the bucket becomes a tree."""
        tab = self._table
        if len(tab) < _MIN_TREEIFY_CAPACITY:
            self._resize()
            return
        index = (len(tab) - 1) & h
        e = tab[index]
        head: _Node[V] | None = None
        tail: _Node[V] | None = None
        while e is not None:  # replacementTreeNode: new nodes, the chain's order
            p: _Node[V] = _Node(e.hash, e.key, e.units, e.value, None)
            p.tree = True
            if tail is None:
                head = p
            else:
                p.prev = tail
                tail.next = p
            tail = p
            e = e.next
        tab[index] = head
        if head is not None:
            _treeify(head, tab)

    def _put_tree_val(self, root: _Node[V], h: int, key: str, units: bytes, value: V) -> None:
        """``TreeNode.putTreeVal`` of a key not in the tree whose root (the bucket's first node) is ``root``."""
        p = root
        while True:
            d = _direction(h, units, p)
            xp = p
            child = p.left if d <= 0 else p.right
            if child is None:
                xpn = xp.next
                x: _Node[V] = _Node(h, key, units, value, xpn)
                x.tree = True
                if d <= 0:
                    xp.left = x
                else:
                    xp.right = x
                xp.next = x
                x.parent = x.prev = xp
                if xpn is not None:
                    xpn.prev = x
                _move_root_to_front(self._table, _balance_insertion(root, x))
                return
            p = child
