# cython: freethreading_compatible = True
"""Typed decoding kernels: registry wire format + Avro/Protobuf/JSON programs into Arrow column buffers.

The programs come compiled from ``kvlog.schemas`` (flat int32 ops, kids and one constants blob); a
:class:`Decoder` holds the output columns and the programs by schema id, decodes a binary column without
the GIL, and hands the finished buffers over without a copy. A decoder is used by one thread at a time
(each scan thread has its own); programs are immutable and shared.
"""

from cpython.buffer cimport PyBUF_SIMPLE, PyBuffer_Release, PyObject_GetBuffer
from libc.stdint cimport int32_t, int64_t, uint8_t
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memset

import numpy as np


cdef extern from "kvlog_columns.h" nogil:
    ctypedef struct kv_gbuf:
        uint8_t *data
        size_t len
        size_t cap
        int big
        size_t hint
    ctypedef struct kv_col:
        int32_t kind, width, utf8, nchild
        int32_t *child
        int32_t child0
        int32_t bitmap
        int64_t length, nulls
        kv_gbuf valid, data, offs
    void kv_gbuf_free(kv_gbuf *g)
    int kv_cols_init(kv_col *cols, int32_t n)
    void kv_cols_free(kv_col *cols, int32_t n)
    enum:
        KV_OK, KV_NEED, KV_E_NOMEM, KV_E_CODES

cdef extern from "kvlog_typed.h" nogil:
    enum:
        KV_MAX_INDEXES
    ctypedef struct kv_op:
        int32_t code, col, a, b, c, d, e, f
    ctypedef struct kv_prog:
        int32_t format
        const kv_op *ops
        int32_t nops
        const int32_t *kids
        int32_t nkids
        const uint8_t *blob
        const int64_t *blob_offs
        int32_t nblobs
        int32_t fail_code
        int32_t nslots
    ctypedef struct kv_failure:
        int64_t index
        int32_t code, op
        int64_t pos
        int32_t schema_id
    ctypedef struct kv_decoder:
        int32_t format, wire, errors_null
        kv_col sid
        kv_gbuf failures
        int64_t max_items
        int64_t stop_index
        int32_t need_id, need_nidx
        int32_t need_idx[16]
        uint8_t need_guid[16]
        int32_t need_is_guid
        kv_failure last
    int kv_dec_init(kv_decoder *d, int32_t format, int32_t wire, int32_t errors_null, kv_col *cols, int32_t ncols)
    void kv_dec_free(kv_decoder *d)
    int kv_dec_add(kv_decoder *d, int32_t id, const int32_t *idx, int32_t nidx, const kv_prog *prog)
    int kv_dec_add_guid(kv_decoder *d, const uint8_t *guid, int32_t id)
    int kv_dec_run(kv_decoder *d, const uint8_t *valid, int64_t bit_offset, const int32_t *offsets,
                   const uint8_t *data, int64_t start, int64_t n, const int32_t *ids)

NEED = KV_NEED
FAILURE_DTYPE = np.dtype([("index", "<i8"), ("code", "<i4"), ("op", "<i4"), ("pos", "<i8"), ("schema_id", "<i4"),
                          ("pad", "<i4")])


cdef class Block:
    """A column buffer a kernel filled, handed to Arrow without a copy (read-only buffer protocol)."""
    cdef kv_gbuf g
    cdef Py_ssize_t shape[1]
    cdef Py_ssize_t strides[1]

    def __dealloc__(self):
        kv_gbuf_free(&self.g)

    def __len__(self):
        return self.g.len

    def __getbuffer__(self, Py_buffer *view, int flags):
        view.buf = <void *>(self.g.data if self.g.data != NULL else <uint8_t *>&self.shape[0])
        view.obj = self
        view.len = self.g.len
        view.readonly = 1
        view.itemsize = 1
        view.format = "B"
        view.ndim = 1
        self.shape[0] = self.g.len
        self.strides[0] = 1
        view.shape = self.shape
        view.strides = self.strides
        view.suboffsets = NULL
        view.internal = NULL

    def __releasebuffer__(self, Py_buffer *view):
        pass


cdef Block take(kv_gbuf *g):
    """The buffer, moved out; the builder keeps its size as the hint for the next rows' first allocation."""
    cdef Block b = Block.__new__(Block)
    cdef size_t hint = g.cap
    b.g = g[0]
    memset(g, 0, sizeof(kv_gbuf))
    g.hint = hint
    return b


cdef class Program:
    """One compiled program: ops ``(n, 8)`` int32, kids int32, a constants blob with int64 item offsets;
    ``nslots``: the scratch slots a Protobuf program needs."""
    cdef kv_prog p
    cdef object _ops, _kids, _blob, _offs
    cdef readonly object paths

    def __cinit__(self, int format, ops, kids, bytes blob, blob_offsets, int fail_code=0, paths=None,
                  int nslots=0):
        self._ops = np.ascontiguousarray(ops, dtype=np.int32).reshape(-1, 8)
        self._kids = np.ascontiguousarray(kids, dtype=np.int32)
        self._blob = blob
        self._offs = np.ascontiguousarray(blob_offsets, dtype=np.int64)
        if len(self._offs) == 0:
            self._offs = np.zeros(1, dtype=np.int64)
        if self._offs[0] != 0 or self._offs[len(self._offs) - 1] != len(blob) or np.any(np.diff(self._offs) < 0):
            raise ValueError("blob offsets must rise from 0 to the blob's length")
        cdef const int32_t[:, ::1] o = self._ops
        cdef const int32_t[::1] k = self._kids
        cdef const int64_t[::1] b = self._offs
        self.p.format = format
        self.p.ops = <const kv_op *>&o[0, 0] if o.shape[0] else NULL
        self.p.nops = <int32_t>o.shape[0]
        self.p.kids = &k[0] if k.shape[0] else NULL
        self.p.nkids = <int32_t>k.shape[0]
        self.p.blob = <const uint8_t *>(<char *>self._blob)
        self.p.blob_offs = &b[0]
        self.p.nblobs = <int32_t>(b.shape[0] - 1)
        self.p.fail_code = fail_code
        if nslots < 0 or (format == 1 and nslots < self.p.nops):
            raise ValueError("a Protobuf program needs a slot per op at least")
        self.p.nslots = nslots
        self.paths = paths if paths is not None else []
        if not fail_code:
            if format == 1:
                self._check_proto()
            elif format == 2:
                self._check_json()
            else:
                self._check()

    cdef _check_proto(self):
        """A Protobuf program's kid ranges, op indexes, slots and constants are inside it."""
        ops, kids = self._ops, self._kids
        n, nk, nb, ns = len(ops), len(kids), len(self._offs) - 1, self.p.nslots
        if n == 0:
            raise ValueError("a program has at least one op")

        def kid_range(i, lo, cnt):
            if lo < 0 or cnt < 0 or lo + cnt > nk:
                raise ValueError(f"op {i} names kids {lo}..{lo + cnt} of {nk}")

        for i in range(n):
            code, _col, a, b, c, d, e, f = (int(v) for v in ops[i])
            if code == 1:  # MESSAGE
                size = b if b > 0 else -2 * b
                kid_range(i, a, size)
                kid_range(i, c, d)
                for k in range(d):
                    fi = int(kids[c + k])
                    if not 0 <= fi < n or int(ops[fi, 0]) != 2:
                        raise ValueError(f"op {i} lists op {fi}, which is not a field")
                table = kids[a:a + size] if b > 0 else kids[a + 1:a + size:2]
                if len(table) and (table.max() >= n or (b < 0 and table.min() < 0)):
                    raise ValueError(f"op {i}'s field lookup names ops outside the program")
                if f < 0 or (f and (e < 0 or e + f > ns)):
                    raise ValueError(f"op {i} names oneof slots outside the program")
            elif code == 2:  # FIELD
                if b in (10, 11):
                    if not 0 <= d < n or int(ops[d, 0]) == 2:
                        raise ValueError(f"op {i} names a message op {d} that is not one")
                elif b == 14:
                    kid_range(i, d, 1)
                    kid_range(i, d + 1, 2 * int(kids[d]))
                    names = kids[d + 2:d + 2 + 2 * int(kids[d]):2]
                    if len(names) and (names.min() < 0 or names.max() >= nb):
                        raise ValueError(f"op {i}'s enum names constants outside the program")
                elif not 1 <= b <= 18:
                    raise ValueError(f"op {i}: unknown field type {b}")
                if e >= ns or f >= nb:
                    raise ValueError(f"op {i} names a slot or constant outside the program")
            elif code not in (3, 4, 5, 6):
                raise ValueError(f"op {i}: unknown Protobuf op {code}")

    cdef _check_json(self):
        """A JSON program's kid ranges, op indexes and constants are inside it."""
        ops, kids = self._ops, self._kids
        n, nk, nb = len(ops), len(self._kids), len(self._offs) - 1
        if n == 0:
            raise ValueError("a program has at least one op")
        for i in range(n):
            code, _col, a, b, c, d, _e, _f = (int(v) for v in ops[i])
            if code == 1:  # OBJECT
                if b <= 0 or b & (b - 1) or a < 0 or a + b > nk or c < 0 or d < 0 or c + 2 * d > nk:
                    raise ValueError(f"op {i}: a key table or field list outside the program")
                table = kids[a:a + b]
                if table.max() >= d:
                    raise ValueError(f"op {i}: a key table naming a field it does not have")
                fields = kids[c:c + d]
                names = kids[c + d:c + 2 * d]
                if d and (fields.min() < 0 or fields.max() >= n or names.min() < 0 or names.max() >= nb):
                    raise ValueError(f"op {i}: fields or names outside the program")
            elif code in (2, 3, 14):  # ARRAY, MAP, ENVELOPE
                if not 0 <= a < n:
                    raise ValueError(f"op {i} names op {a} of {n}")
            elif code == 13:  # DECIMAL
                if not 0 <= a < nb:
                    raise ValueError(f"op {i} names constant {a} of {nb}")
            elif not 4 <= code <= 12:
                raise ValueError(f"op {i}: unknown JSON op {code}")

    cdef _check(self):
        """Every op index, kid range and blob item a program names is inside it (a wrong plan fails here,
        not as a read out of bounds in the kernel)."""
        ops = self._ops
        n = len(ops)
        if n == 0:
            raise ValueError("a program has at least one op")
        cols = ops[:, 1]
        kids, nk, nb = self._kids, len(self._kids), len(self._offs) - 1
        for i in range(n):
            code, _col, a, b, c, _d, _e, _f = (int(v) for v in ops[i])
            spans = _SPANS.get((self.p.format, code))
            if spans is None:
                continue
            for kind, x, y in spans:
                lo, cnt = (a, b) if x == "a" else (b, c)
                if kind == "kids":
                    if lo < 0 or cnt < 0 or lo + cnt > nk:
                        raise ValueError(f"op {i} names kids {lo}..{lo + cnt} of {nk}")
                    if y == "ops" and cnt and (kids[lo:lo + cnt].min() < 0 or kids[lo:lo + cnt].max() >= n):
                        raise ValueError(f"op {i} names ops outside the program")
                    if y == "blobs" and cnt and kids[lo:lo + cnt].max() >= nb:
                        raise ValueError(f"op {i} names constants outside the program")
                elif kind == "op":
                    v = a if x == "a" else b
                    if v < 0 or v >= n:
                        raise ValueError(f"op {i} names op {v} of {n}")
                elif kind == "blob":
                    v = a if x == "a" else b
                    if v < 0 or v >= nb:
                        raise ValueError(f"op {i} names constant {v} of {nb}")
        del cols


# (format, code) -> what its operands name: ("kids", "a", "ops"|"blobs") a kid range [a, a+b); ("op", "a"|"b", _)
# an op index; ("blob", "a"|"b", _) a constant. Avro: kvlog_typed.h.
_SPANS = {
    (0, 16): [("kids", "a", "blobs")],                       # ENUM
    (0, 17): [("blob", "a", None)],                          # DEC_BYTES
    (0, 18): [("blob", "b", None)],                          # DEC_FIXED
    (0, 20): [("kids", "a", "ops")],                         # RECORD
    (0, 21): [("blob", "a", None), ("op", "b", None)],       # DEFAULT
    (0, 22): [("kids", "a", "ops")],                         # UNION
    (0, 23): [("op", "b", None)],                            # MEMBER
    (0, 24): [("op", "a", None)],                            # ARRAY
    (0, 25): [("op", "a", None)],                            # MAP
}


_F4, _F8 = [(2, 4)], [(2, 8)]
# (format, code) -> the (kind, width) pairs of the columns an op may write (width None: any, "a": its operand a)
_COLUMN_KINDS = {
    (0, 1): [(k, None) for k in range(6)],                     # NULL
    (0, 2): [(1, None)],                                       # BOOL
    (0, 3): _F4, (0, 4): _F8, (0, 5): _F4, (0, 6): _F8,        # INT, INT_LONG, INT_FLOAT, INT_DOUBLE
    (0, 7): _F8, (0, 8): _F4, (0, 9): _F8,                     # LONG, LONG_FLOAT, LONG_DOUBLE
    (0, 10): _F4, (0, 11): _F8, (0, 12): _F8,                  # FLOAT, FLOAT_DOUBLE, DOUBLE
    (0, 13): [(3, None)], (0, 14): [(3, None)],                # BYTES, STRING
    (0, 15): [(2, "a"), (3, None)],                            # FIXED
    (0, 16): [(3, None)],                                      # ENUM
    (0, 17): [(2, 16), (2, 32)], (0, 18): [(2, 16), (2, 32)],  # DEC_BYTES, DEC_FIXED
    (0, 19): [(2, 16)],                                        # DURATION
    (0, 20): [(5, None)],                                      # RECORD
    (0, 23): [(5, None)],                                      # MEMBER
    (0, 24): [(4, None)], (0, 25): [(4, None)],                # ARRAY, MAP
    (0, 27): [(3, None)],                                      # REST
}


# descriptor.proto's field type -> the (kind, width) of the column its values go to
_PROTO_KINDS = {1: (2, 8), 2: (2, 4), 3: (2, 8), 4: (2, 8), 5: (2, 4), 6: (2, 8), 7: (2, 4), 8: (1, None),
                9: (3, None), 12: (3, None), 13: (2, 4), 14: (3, None), 15: (2, 4), 16: (2, 8), 17: (2, 4),
                18: (2, 8)}


# JSON op -> the (kind, width) pairs of the columns it may write
_JSON_KINDS = {1: [(5, None)], 2: [(4, None)], 3: [(4, None)], 4: [(3, None)],
               5: [(2, 1), (2, 2), (2, 4), (2, 8)], 6: [(2, 4), (2, 8)], 7: [(1, None)], 8: [(0, None)],
               9: [(2, 8)], 10: [(2, 4)], 11: [(3, None)], 12: [(3, None)], 13: [(2, 16)]}


cdef class Decoder:
    """Output columns and programs by schema id; see the module's notes.

    ``columns``: ``(kind, width, utf8, children)`` per column, column 0 the value; ``format`` 0 Avro, 1
    Protobuf, 2 JSON; ``wire`` 0 bare (one program), 1 the registry's wire format; ``errors_null``: a payload
    that fails becomes a null and a failure, instead of stopping the run."""
    cdef kv_decoder d
    cdef kv_col *cols
    cdef int32_t ncols
    cdef list _programs
    cdef readonly object columns

    def __cinit__(self, int format, int wire, bint errors_null, columns):
        cdef int32_t i, k
        self.columns = [tuple(c) for c in columns]
        self.ncols = len(self.columns)
        if self.ncols < 1:
            raise ValueError("a decoder has one column at least")
        self.cols = <kv_col *>calloc(self.ncols, sizeof(kv_col))
        if self.cols == NULL:
            raise MemoryError()
        self._programs = []
        for i, (kind, width, utf8, children) in enumerate(self.columns):
            if not 0 <= kind <= 5 or width < 0:
                raise ValueError(f"column {i}: bad kind {kind}")
            self.cols[i].kind = kind
            self.cols[i].width = width
            self.cols[i].utf8 = 1 if utf8 else 0
            self.cols[i].nchild = len(children)
            if (kind == 4 and len(children) != 1) or (kind not in (4, 5) and children):
                raise ValueError(f"column {i}: kind {kind} cannot have {len(children)} children")
            if children:
                self.cols[i].child = <int32_t *>malloc(len(children) * sizeof(int32_t))
                if self.cols[i].child == NULL:
                    raise MemoryError()
                for k, ch in enumerate(children):
                    if not i < ch < self.ncols:
                        raise ValueError(f"column {i}: child {ch} must come after it")
                    self.cols[i].child[k] = ch
        if kv_dec_init(&self.d, format, wire, 1 if errors_null else 0, self.cols, self.ncols) != KV_OK:
            raise MemoryError()

    def __dealloc__(self):
        cdef int32_t i
        if self.cols != NULL:
            kv_dec_free(&self.d)
            kv_cols_free(self.cols, self.ncols)
            for i in range(self.ncols):
                free(self.cols[i].child)
            free(self.cols)
            self.cols = NULL

    @property
    def max_items(self):
        return self.d.max_items

    @max_items.setter
    def max_items(self, int64_t value):
        self.d.max_items = value

    def add(self, int32_t schema_id, indexes, Program program):
        """Decode payloads of ``schema_id`` (and Protobuf message ``indexes``) with ``program``."""
        cdef int32_t idx[16]
        cdef int32_t n = len(indexes), i
        if n > KV_MAX_INDEXES:
            raise ValueError(f"at most {KV_MAX_INDEXES} message indexes")
        for i in range(n):
            idx[i] = indexes[i]
        if not program.p.fail_code:
            self._check_columns(program)
        self._programs.append(program)
        if kv_dec_add(&self.d, schema_id, idx, n, &program.p) != KV_OK:
            raise MemoryError()

    cdef _check_columns(self, Program program):
        """The program writes each column as its kind allows (a mismatch would build arrays whose buffers
        contradict their lengths)."""
        if program.p.format == 1:
            self._check_proto_columns(program)
            return
        if program.p.format == 2:
            self._check_json_columns(program)
            return
        ops = program._ops
        for i in range(len(ops)):
            code, col = int(ops[i, 0]), int(ops[i, 1])
            if col < 0:
                continue
            if col >= self.ncols:
                raise ValueError(f"op {i} writes column {col} of {self.ncols}")
            kind, width, _, children = self.columns[col]
            want = _COLUMN_KINDS.get((program.p.format, code))
            if want is None or not any(kind == k and (w is None or w == width or (w == "a" and width == ops[i, 2]))
                                       for k, w in want):
                raise ValueError(f"op {i} (code {code}) cannot write column {col} of kind {kind}, width {width}")
            if code == 23 and not int(ops[i, 2]) < len(children):  # MEMBER
                raise ValueError(f"op {i} names member {int(ops[i, 2])} of {len(children)}")
            if code == 25:  # MAP: a list of struct<key: VAR, value>
                entries = self.columns[children[0]]
                if entries[0] != 5 or len(entries[3]) != 2 or self.columns[entries[3][0]][0] != 3:
                    raise ValueError(f"op {i} (a map) needs a list of struct<key, value> with a string key")

    cdef _check_proto_columns(self, Program program):
        ops = program._ops
        cols = self.columns

        def kind_ok(col, ftype):
            kind, width = cols[col][0], cols[col][1]
            want = _PROTO_KINDS.get(ftype)
            return want is not None and kind == want[0] and (want[1] is None or want[1] == width)

        for i in range(len(ops)):
            code, col, _a, b, c, d, _e, _f = (int(v) for v in ops[i])
            if col < 0:
                continue
            if col >= self.ncols:
                raise ValueError(f"op {i} writes column {col} of {self.ncols}")
            kind = cols[col][0]
            if code == 1:
                ok = kind == 5 and len(cols[col][3]) >= 0
            elif code == 2:
                target = col
                if c & 1:  # repeated: a list of the values
                    if kind != 4:
                        raise ValueError(f"op {i} (a repeated field) needs a list column")
                    target = cols[col][3][0]
                if b in (10, 11):
                    ok = int(ops[d, 1]) == target
                else:
                    ok = kind_ok(target, b)
            elif code in (3, 4):
                ok = kind == 2 and cols[col][1] == 8
            elif code == 5:
                ok = kind_ok(col, b)
            else:
                ok = kind == 3
            if not ok:
                raise ValueError(f"op {i} (Protobuf code {code}) cannot write column {col} of kind {kind}")

    cdef _check_json_columns(self, Program program):
        ops = program._ops
        cols = self.columns
        for i in range(len(ops)):
            code, col, _a, _b, _c, d, e, _f = (int(v) for v in ops[i])
            if code == 1 and e >= 0 and (e >= self.ncols or cols[e][0] != 3):
                raise ValueError(f"op {i} keeps additional properties in column {e}, which is not a string one")
            if col < 0:
                continue
            if col >= self.ncols:
                raise ValueError(f"op {i} writes column {col} of {self.ncols}")
            kind, width = cols[col][0], cols[col][1]
            want = _JSON_KINDS.get(code)
            if want is None or not any(kind == k and (w is None or w == width) for k, w in want):
                raise ValueError(f"op {i} (JSON code {code}) cannot write column {col} of kind {kind}")
            if code == 3:
                entries = cols[cols[col][3][0]]
                if entries[0] != 5 or len(entries[3]) != 2 or cols[entries[3][0]][0] != 3:
                    raise ValueError(f"op {i} (a map) needs a list of struct<key, value> with a string key")
            if code == 1 and len(cols[col][3]) != d + (1 if e >= 0 else 0):
                raise ValueError(f"op {i}: an object of {d} fields writing a struct of {len(cols[col][3])}")

    def add_guid(self, bytes guid, int32_t schema_id):
        if len(guid) != 16:
            raise ValueError("a schema GUID has 16 bytes")
        if kv_dec_add_guid(&self.d, <const uint8_t *>(<char *>guid), schema_id) != KV_OK:
            raise MemoryError()

    def run(self, validity, offsets, data, int64_t array_offset, int64_t length, int64_t start=0, ids=None):
        """Decode rows ``start..length`` of a binary column given as its Arrow buffers (``validity`` may be
        None; ``array_offset`` is the array's offset). Returns ``(status, stop_index)``: status 0 when every
        row was decoded, ``NEED`` when a program is needed (:meth:`need`), or a failure's code."""
        cdef Py_buffer vb, ob, db
        cdef const int32_t[::1] idv
        cdef const uint8_t *vp = NULL
        cdef const int32_t *op
        cdef const uint8_t *bp
        cdef const int32_t *ip = NULL
        cdef int rc
        cdef bint have_v = False, have_o = False, have_d = False
        if length < 0 or array_offset < 0 or start < 0 or start > length:
            raise ValueError("bad row range")
        if ids is not None:
            idv = np.ascontiguousarray(ids, dtype=np.int32)
            if idv.shape[0] < length:
                raise ValueError("schema ids shorter than the column")
            ip = &idv[0] if idv.shape[0] else NULL
        try:
            PyObject_GetBuffer(offsets, &ob, PyBUF_SIMPLE)
            have_o = True
            PyObject_GetBuffer(data, &db, PyBUF_SIMPLE)
            have_d = True
            if validity is not None:
                PyObject_GetBuffer(validity, &vb, PyBUF_SIMPLE)
                have_v = True
                if vb.len * 8 < array_offset + length:
                    raise ValueError("validity buffer too short")
                vp = <const uint8_t *>vb.buf
            if ob.len < (array_offset + length + 1) * 4:
                raise ValueError("offsets buffer too short")
            op = (<const int32_t *>ob.buf) + array_offset
            if length and (op[0] < 0 or op[length] > db.len or op[length] < op[0]):
                raise ValueError("offsets outside the data buffer")
            bp = <const uint8_t *>db.buf if db.len else <const uint8_t *>""
            with nogil:
                rc = kv_dec_run(&self.d, vp, array_offset, op, bp, start, length, ip)
        finally:
            if have_v:
                PyBuffer_Release(&vb)
            if have_d:
                PyBuffer_Release(&db)
            if have_o:
                PyBuffer_Release(&ob)
        if rc == KV_E_NOMEM:
            raise MemoryError("kvlog: out of memory decoding typed values")
        return rc, self.d.stop_index

    def need(self):
        """What the last run stopped for: ``(schema_id, indexes, None)`` or ``(None, (), guid)``."""
        if self.d.need_is_guid:
            return None, (), bytes(self.d.need_guid[:16])
        return self.d.need_id, tuple(self.d.need_idx[i] for i in range(self.d.need_nidx)), None

    def last_failure(self):
        """The failure the last run stopped at: ``(index, code, op, pos, schema_id)``."""
        f = self.d.last
        return f.index, f.code, f.op, f.pos, f.schema_id

    def failures(self):
        """The failures recorded since :meth:`finish` (``errors_null``), as a structured numpy array."""
        cdef Block b = take(&self.d.failures)
        return np.frombuffer(b, dtype=FAILURE_DTYPE) if len(b) else np.zeros(0, dtype=FAILURE_DTYPE)

    def finish(self):
        """The columns decoded since the last finish: per column ``(length, nulls, validity, data, offsets)``
        (validity None when nothing is null), and the schema id column likewise; the builders start over."""
        cdef int32_t i
        out = []
        for i in range(self.ncols):
            out.append(self._take(&self.cols[i]))
        sid = self._take(&self.d.sid)
        if kv_cols_init(self.cols, self.ncols) != KV_OK or kv_cols_init(&self.d.sid, 1) != KV_OK:
            raise MemoryError()
        return out, sid

    cdef tuple _take(self, kv_col *c):
        cdef int64_t n = c.length, nulls = c.nulls
        valid = take(&c.valid) if nulls else None  # (kept for the next rows when nothing was null)
        data = take(&c.data) if c.kind in (1, 2, 3) else None
        offs = take(&c.offs) if c.kind in (3, 4) else None
        return n, nulls, valid, data, offs
