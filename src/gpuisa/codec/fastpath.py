"""The disassembler's fast path: a plan per (instruction form, syntax variant), made on first use from
the codec's resolved tables, that prints each operand and modifier with the general decoder's own
printers and remembers each printed piece by the exact bits of the instruction that printer read.

Why: printing a distinct instruction through `_Decoder.render` costs ~18 us in CPython, most of it
decisions that are the same for every word of a form (which row, which fields, which printers, which
post-processing). A plan takes them once per form and variant; each operand is then one dict lookup,
shared by every form whose row holds the same operand object (tables.py interns them): a
100k-word gfx1100 input has 26.9k distinct instructions but only ~2.4k distinct operand field values.

Sound by construction: a piece is printed by running the decoder's printer (`_operand_text`,
`_pair_operand_text`, `_modifier`, `_dpp`, `_variant`, `_unused_modifier_bits`) on traced inputs
(`_Word`: the word, the DPP/SDWA dword, the literal) that record every bit the run reads, and on views
of its form and row that record every question the run asks of them (`_Name`, `_FormView`,
`_RowView`); a run that read only the bits in mask M prints the same for every word equal to it on M
whose form answers those questions alike. So the decoder's rules reach this path as they change: it
holds none of its own, only the order render() and _render_pair() put the pieces in.

What a plan does not cover goes to the general decoder, which stays the reference: images, exports,
typed buffers, VBUFFER, VINTERP, bitop3, 64-bit literals, and any word whose printer fails (the
general decoder then says why). tests/test_codec_fastpath.py compares both paths on the LLVM corpus
and on random words.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpuisa.codec import image
from gpuisa.codec.syntax import LITERAL, LITERAL64, LITERAL64_ENCODINGS, LITERAL64_K, LITERAL64_TARGETS
from gpuisa.codec.tables import (
    SOURCE_FIELDS,
    VOP3_ENCODINGS,
    Form,
    Layout,
    is_vopd3,
    sixteen_bit_operands,
    vopd_y_vdst,
)

if TYPE_CHECKING:
    from gpuisa.codec.decoder import _Decoder

EVERY_BIT = (1 << 256) - 1     # a read the trace cannot narrow: the piece is remembered per whole word
# A memo key: the word's bits read, then the extra DPP/SDWA dword's, the literal's, whether a literal
# follows (a printer may ask `literal is None`, which no trace sees), and the class of the form's answers.
EXT_SHIFT = 256
LIT_SHIFT = 512
HAS_LITERAL = 1 << 576
CLASS_SHIFT = 577
MEMO_LIMIT = 1 << 18           # pieces remembered per printer (bounds memory where a printer reads every bit)
_MISS = object()
_FAIL = object()               # the printer raised: the general decoder prints (or rejects) this word


class _ImagePending:
    """`_Decoder._img` while a piece of an image form is printed for every word of its form: not None, as
    in render(), and any use of what it holds (vdata dwords, vaddr text) raises, so a piece that reads
    them goes to the general decoder. The operands that do read them are printed per word (_ImagePlan)."""

    __slots__ = ()

    def _refuse(self, *args):
        raise TypeError("the image's registers are printed per word")

    __getitem__ = __iter__ = __len__ = __bool__ = __eq__ = __hash__ = __contains__ = _refuse


_IMAGE_PENDING = _ImagePending()


class _Log:
    """What one printer run read: bits of the word, bits of the extra dword, and the questions it asked
    of its form and row (`_Name`, `_FormView`, `_RowView`) in the order asked."""

    __slots__ = ("ext", "lit", "questions", "word")

    def __init__(self) -> None:
        self.word = 0
        self.ext = 0
        self.lit = 0
        self.questions: dict[tuple, None] = {}

    def read(self, which: int, mask: int) -> None:
        if which == 0:
            self.word |= mask
        elif which == 1:
            self.ext |= mask
        else:
            self.lit |= mask

    def ask(self, question: tuple) -> None:
        self.questions[question] = None


class _Word:
    """An instruction word (or extra dword, or literal) that records the bits read from it:
    `(w >> lo) & mask` records `mask << lo` (tables.get_bits); any other use records every bit, which is
    always sound, only less shared. Not an int: C code that would read an int's digits without asking
    (a list index, %x, hex()) calls __index__ here, which records every bit, or raises TypeError, and
    the word goes to the general decoder."""

    __slots__ = ("_log", "_shift", "_v", "_which")

    def __init__(self, value: int, log: _Log, which: int, shift: int = 0) -> None:
        self._v = value
        self._log = log
        self._which = which
        self._shift = shift

    def __rshift__(self, n):
        if type(n) is int and n >= 0:
            return _Word(self._v >> n, self._log, self._which, self._shift + n)
        self._log.read(self._which, EVERY_BIT)
        return self._v >> n

    def __and__(self, m):
        if type(m) is int and m >= 0:
            self._log.read(self._which, (m << self._shift) & EVERY_BIT)
            return self._v & m
        self._log.read(self._which, EVERY_BIT)
        return self._v & (m._v if type(m) is _Word else m)

    __rand__ = __and__


def _whole_word(name: str):
    op = getattr(int, name)

    def use(self, *args):
        self._log.read(self._which, EVERY_BIT)
        plain = []
        for a in args:
            if type(a) is _Word:
                a._log.read(a._which, EVERY_BIT)
                a = a._v
            plain.append(a)
        return op(self._v, *plain)
    return use


for _name in ("__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__hash__", "__bool__", "__index__",
              "__int__", "__float__", "__format__", "__str__", "__repr__", "__add__", "__radd__", "__sub__",
              "__rsub__", "__mul__", "__rmul__", "__or__", "__ror__", "__xor__", "__rxor__", "__lshift__",
              "__rlshift__", "__rrshift__", "__mod__", "__rmod__", "__floordiv__", "__rfloordiv__", "__truediv__",
              "__rtruediv__", "__neg__", "__pos__", "__abs__", "__invert__", "__pow__", "__rpow__", "__divmod__",
              "__rdivmod__", "__round__", "__trunc__", "__floor__", "__ceil__", "bit_length", "bit_count",
              "to_bytes", "conjugate", "as_integer_ratio", "__getnewargs__", "__reduce__", "__reduce_ex__",
              "__sizeof__", "__getstate__"):
    if hasattr(int, _name):
        setattr(_Word, _name, _whole_word(_name))


_PLAIN = (bool, int, str, type(None))


def _answer(question: tuple, form: Form, row, canon) -> object:
    """The answer `form` and `row` give to a question a printer run asked (see _Log); `canon` turns
    any other value (a row's operands, a Row) into a small number, equal for equal values."""
    kind = question[0]
    if kind == "base":
        got = question[2][0] + form.base if question[1] == "__radd__" else \
            getattr(str, question[1])(form.base, *question[2])
        if type(got) is list:    # split() and the like
            got = tuple(got)
    elif kind == "form":
        got = getattr(form, question[1])
    elif kind == "rows":
        got = tuple(form.rows) if question[1] == "keys" else getattr(form.rows, question[1])(*question[2])
    else:
        got = getattr(row, question[1])     # ("row", attribute): rows and their operands are immutable
    return got if type(got) in _PLAIN else canon(got)


class _Name:
    """The mnemonic of the form being printed as a printer sees it here (`_Decoder._base`, a form view's
    `.base`): every question asked of it is logged with its arguments, and the memo keys on the answers,
    not on the mnemonic. Not a str: code that reads a str's characters directly (a regular expression,
    str.join) raises TypeError here, and the word goes to the general decoder instead of being printed
    from characters read unlogged."""

    __slots__ = ("_log", "_s")

    def __init__(self, value: str, log: _Log) -> None:
        self._s = value
        self._log = log

    def __getattr__(self, name: str):
        method = getattr(str, name)
        value, log = self._s, self._log

        def asked(*args):
            log.ask(("base", name, args))
            return method(value, *args)
        return asked

    def __radd__(self, other):
        self._log.ask(("base", "__radd__", (other,)))
        return other + self._s


def _asked_name(name: str):
    op = getattr(str, name)

    def use(self, *args):
        self._log.ask(("base", name, args))
        return op(self._s, *args)
    return use


for _name in ("__contains__", "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__hash__", "__getitem__",
              "__len__", "__iter__", "__add__", "__mul__", "__rmul__", "__mod__", "__format__", "__str__",
              "__repr__"):
    setattr(_Name, _name, _asked_name(_name))


class _Rows:
    """A form's rows by variant as `_Decoder._variant` sees them: membership and the variant names."""

    __slots__ = ("_log", "_rows")

    def __init__(self, rows: dict, log: _Log) -> None:
        self._rows = rows
        self._log = log

    def __contains__(self, key) -> bool:
        self._log.ask(("rows", "__contains__", (key,)))
        return key in self._rows

    def __iter__(self):
        self._log.ask(("rows", "keys", ()))
        return iter(tuple(self._rows))

    def get(self, key, default=None):
        self._log.ask(("rows", "get", (key,)))
        return self._rows.get(key, default)


class _FormView:
    """A form as a printer sees it: its mnemonic is a `_Name`, its rows a `_Rows`, any other attribute
    is a logged question whose answer is the attribute's value."""

    __slots__ = ("_form", "_log")

    def __init__(self, form: Form, log: _Log) -> None:
        self._form = form
        self._log = log

    def __getattr__(self, name: str):
        if name == "base":
            return _Name(self._form.base, self._log)
        if name == "rows":
            return _Rows(self._form.rows, self._log)
        self._log.ask(("form", name))
        return getattr(self._form, name)


class _RowView:
    """A syntax row as a printer sees it: each attribute read is a logged question."""

    __slots__ = ("_log", "_row")

    def __init__(self, row, log: _Log) -> None:
        self._row = row
        self._log = log

    def __getattr__(self, name: str):
        self._log.ask(("row", name))
        return getattr(self._row, name)


class _Memo:
    """Printed pieces of one printer with its fixed arguments, by the bits their runs read and the
    answers their form and row give to the questions the runs asked.

    Entries are never dropped when a mask grows: an entry stored under an older, narrower mask M is
    found only for words whose bits in the new mask but outside M are zero, bits its run did not
    read. Class numbers are never reused: a longer list of questions gives new numbers, so an entry
    keyed by an older class is simply not found again."""

    __slots__ = ("classes", "emask", "lmask", "mask", "of_form", "questions", "table", "users")

    def __init__(self) -> None:
        self.mask = 0          # word bits read by any run so far
        self.emask = 0         # extra-dword bits read so far
        self.lmask = 0         # literal bits read so far
        self.questions: tuple = ()   # every question any run asked, in a fixed order
        self.classes: dict[tuple, int] = {}   # answers -> class number
        self.of_form: dict[tuple[int, int], int] = {}   # (id(form), id(row)) -> class number
        self.table: dict = {}
        self.users: set = set()   # plans that baked this memo's masks and class (unbaked when they grow)

    def key(self, word: int, ext: int, lit: int | None, cls: int) -> int:
        """The table key of a word: the bits read, whether a literal follows, the form's class."""
        k = (word & self.mask) | ((ext & self.emask) << EXT_SHIFT) | (cls << CLASS_SHIFT)
        return k if lit is None else k | ((lit & self.lmask) << LIT_SHIFT) | HAS_LITERAL


class _Plan:
    """How render() prints one form in one variant, its pieces in render()'s order."""

    __slots__ = ("baked", "k_row", "mnemonic", "mods", "row", "texts", "tight")

    def __init__(self, row, mnemonic: str, k_row: bool, texts: list, mods: list, tight) -> None:
        self.row = row
        self.mnemonic = mnemonic
        self.k_row = k_row     # fmaak / madmk: the constant K follows every word
        self.texts = texts     # (memo, printer(word, ext, literal, form, row)) per operand, None-skipping
        self.mods = mods       # (memo, printer) per modifier, empty-skipping, the DPP16 controls last
        self.tight = tight     # (memo, check) for encodings whose unused modifier bits must be clear, or None
        self.baked: tuple | None = None   # (get, mask, ext mask, literal mask, class bits) per piece, as _bake


class _ImagePlan:
    """How render() prints an image form: (memo, printer) per operand, memo None for those that print the
    image's registers (per word), then the image modifiers; `bvh`: only a16 is printed."""

    __slots__ = ("bvh", "mnemonic", "mods", "row", "texts")

    def __init__(self, row, mnemonic: str, texts: list, mods: list, bvh: bool) -> None:
        self.row = row
        self.mnemonic = mnemonic
        self.texts = texts
        self.mods = mods
        self.bvh = bvh


class _FormPlan:
    """What one form's words share whatever their variant."""

    __slots__ = ("baked", "size", "sources", "variant", "variants")

    def __init__(self, size: int, sources: tuple, variant: tuple) -> None:
        self.size = size
        self.sources = sources      # (shift, mask, is SRC0, 64-bit literals) of each source field
        self.variant = variant      # (memo, printer) of _Decoder._variant
        self.variants: dict[str, _Plan | None] = {}
        self.baked: tuple | None = None   # (get, mask, class bits) of the variant memo


class _HalfPlan:
    """One VOPD half form: its mnemonic, its printed operands, whether its K constant follows."""

    __slots__ = ("baked", "k_row", "mnemonic", "texts")

    def __init__(self, mnemonic: str, k_row: bool, texts: list) -> None:
        self.mnemonic = mnemonic
        self.k_row = k_row
        self.texts = texts     # (memo, printer(wide, ext, literal, form, row)) per printed operand
        self.baked: tuple | None = None


class _PairPlan:
    """A VOPD layout: where its opcodes and first sources sit, and each half form's plan."""

    __slots__ = ("halves", "opx", "opy", "size", "sources", "vopd3")

    def __init__(self, lay: Layout) -> None:
        def one(name: str) -> tuple[int, int]:
            (hi, lo), = lay.fields[name]
            return lo, (1 << (hi - lo + 1)) - 1

        self.size = lay.width // 8
        self.opx, self.opy = one("OPX"), one("OPY")
        self.sources = tuple(one(n) for n in ("SRCX0", "SRCY0"))
        self.vopd3 = is_vopd3(lay)
        self.halves: dict[int, _HalfPlan | None] = {}   # id(half form) -> plan


class FastRenderer:
    """Renders what the general decoder would, or None where it does not cover the word."""

    def __init__(self, dec: _Decoder) -> None:
        self.dec = dec
        self.t = dec.t
        self._forms: dict[int, _FormPlan | None] = {}   # id(form) -> plan; forms live as long as the tables
        self._pairs: dict[int, _PairPlan | None] = {}   # id(VOPD layout) -> plan
        self._memos: dict[tuple, _Memo] = {}
        self._pieces: dict[tuple, tuple | None] = {}   # _plan_pieces by layout, variant, row and what the form adds
        self._by_id: dict[int, tuple] = {}     # _canon
        self._by_value: dict = {}
        self.misses = 0       # printer runs

    # ------------------------------------------------------------------ running a plan

    def render(self, lay: Layout, form: Form, data: bytes, pos: int) -> tuple[str, int] | None:
        if lay.pairs:
            return self._render_pair(lay, data, pos)
        fp = self._forms.get(id(form), _MISS)
        if fp is _MISS:
            fp = self._forms[id(form)] = self._form_plan(lay, form)
        if fp is None:
            return None
        size = fp.size
        if len(data) < pos + size:
            return None
        word = int.from_bytes(data[pos:pos + size], "little")
        vb = fp.baked or self._bake_variant(fp, form)
        got = vb[0]((word & vb[1]) | vb[2], _MISS)
        if got is _MISS:
            got = self._piece(fp.variant[0], fp.variant[1], word, 0, None, form, None)
        if got is _FAIL:
            return None
        variant, extra = got
        literal = False
        for shift, mask, src0, lit64 in fp.sources:
            code = (word >> shift) & mask
            if code == LITERAL and not (extra and src0):
                literal = True
            elif lit64 and code == LITERAL64:
                return None    # 64 bits of constant follow: the general decoder reads them
        plan = fp.variants.get(variant, _MISS)
        if plan is _MISS:
            plan = fp.variants[variant] = self._plan(lay, form, variant)
        if plan is None:
            return None
        if plan.__class__ is _ImagePlan:
            return None if extra or literal else self._render_image(lay, form, data, pos, word, plan)
        ext = 0
        if extra:
            if len(data) < pos + size + 4:
                return None
            ext = int.from_bytes(data[pos + size:pos + size + 4], "little")
            size += 4
        lit = None
        if literal or plan.k_row:
            if len(data) < pos + size + 4:
                return None
            lit = int.from_bytes(data[pos + size:pos + size + 4], "little")
            size += 4
        baked = plan.baked or self._bake(plan, form)
        if lit is None:
            lit_bits, has = 0, 0
        else:
            lit_bits, has = lit, HAS_LITERAL
        texts = []
        for get, m, e, li, c in baked[0]:
            t = get((word & m) | ((ext & e) << EXT_SHIFT) | (((lit_bits & li) << LIT_SHIFT) | has) | c, _MISS)
            if t is None:
                continue
            if t.__class__ is not str:     # not printed yet, or the printer failed
                return self._slow(plan, form, word, ext, lit, size)
            texts.append(t)
        mods = []
        for get, m, e, li, c in baked[1]:
            t = get((word & m) | ((ext & e) << EXT_SHIFT) | (((lit_bits & li) << LIT_SHIFT) | has) | c, _MISS)
            if t is None:
                continue
            if t.__class__ is not str:
                return self._slow(plan, form, word, ext, lit, size)
            if t:
                mods.append(t)
        if baked[2] is not None:
            get, m, e, li, c = baked[2]
            if get((word & m) | ((ext & e) << EXT_SHIFT) | (((lit_bits & li) << LIT_SHIFT) | has) | c,
                   _MISS) is not None:
                return self._slow(plan, form, word, ext, lit, size)
        out = plan.mnemonic
        if texts:
            out += " " + ", ".join(texts)
        if mods:
            out += " " + " ".join(mods)
        return out, size

    def _render_image(self, lay: Layout, form: Form, data: bytes, pos: int, word: int,
                      plan: _ImagePlan) -> tuple[str, int] | None:
        """An image word as render() prints it: its registers (vdata, vaddr, NSA dwords) per word with the
        general decoder's own _image and operand printers, everything else remembered."""
        dec = self.dec
        dec._lit64, dec._base = False, form.base
        try:
            img, size = dec._image(lay, form, data, pos, word)
            texts = []
            for memo, printer in plan.texts:
                if memo is None:
                    dec._img = img    # a remembered piece printed just now left _IMAGE_PENDING there
                    t = printer(word)
                else:
                    t = self._piece(memo, printer, word, 0, None, form, None)
                    if t is _FAIL:
                        return None
                if t is not None:
                    texts.append(t)
        except Exception:    # the general decoder says what is wrong with this word
            return None
        mods = []
        for memo, printer in plan.mods:
            m = self._piece(memo, printer, word, 0, None, form, plan.row)
            if m is _FAIL:
                return None
            if m and (not plan.bvh or m == "a16"):    # image.BVH_SET_FIELDS: LLVM prints only a16
                mods.append(m)
        out = plan.mnemonic
        if texts:
            out += " " + ", ".join(texts)
        if mods:
            out += " " + " ".join(mods)
        return out, size

    def _slow(self, plan: _Plan, form: Form, word: int, ext: int, lit: int | None,
              size: int) -> tuple[str, int] | None:
        """render() for a word some piece of which is not remembered yet: each piece printed or found."""
        texts = []
        for memo, printer in plan.texts:
            t = self._piece(memo, printer, word, ext, lit, form, None)
            if t is _FAIL:
                return None
            if t is not None:
                texts.append(t)
        mods = []
        for memo, printer in plan.mods:
            m = self._piece(memo, printer, word, ext, lit, form, plan.row)
            if m is _FAIL:
                return None
            if m:
                mods.append(m)
        if plan.tight is not None and \
                self._piece(plan.tight[0], plan.tight[1], word, ext, lit, form, plan.row) is _FAIL:
            return None
        out = plan.mnemonic
        if texts:
            out += " " + ", ".join(texts)
        if mods:
            out += " " + " ".join(mods)
        return out, size

    def _render_pair(self, lay: Layout, data: bytes, pos: int) -> tuple[str, int] | None:
        """A VOPD word as _Decoder._render_pair prints it: `X :: Y`."""
        pp = self._pairs.get(id(lay), _MISS)
        if pp is _MISS:
            pp = self._pairs[id(lay)] = _PairPlan(lay) if all(
                len(lay.fields.get(n, ())) == 1 for n in ("OPX", "OPY", "SRCX0", "SRCY0")) else None
        if pp is None:
            return None
        size = pp.size
        if len(data) < pos + size:
            return None
        word = int.from_bytes(data[pos:pos + size], "little")
        fx = lay.pairs["X"].get((word >> pp.opx[0]) & pp.opx[1])
        fy = lay.pairs["Y"].get((word >> pp.opy[0]) & pp.opy[1])
        if fx is None or fy is None:
            return None
        halves = []
        for form in (fx, fy):
            hp = pp.halves.get(id(form), _MISS)
            if hp is _MISS:
                hp = pp.halves[id(form)] = self._half_plan(form)
            if hp is None:
                return None
            halves.append((form, hp))
        lit = None
        if any((word >> shift) & mask == LITERAL for shift, mask in pp.sources) or halves[0][1].k_row or \
                halves[1][1].k_row:
            if len(data) < pos + size + 4:
                return None
            lit = int.from_bytes(data[pos + size:pos + size + 4], "little")
            size += 4
        lit_bits, has = (0, 0) if lit is None else (lit, HAS_LITERAL)
        wide = word if pp.vopd3 else word | (vopd_y_vdst(word, lay.fields) << 64)
        out = []
        for form, hp in halves:
            baked = hp.baked or self._bake_half(hp, form)
            shown = []
            for get, m, li, c in baked:
                t = get((wide & m) | (((lit_bits & li) << LIT_SHIFT) | has) | c, _MISS)
                if t is None:
                    continue
                if t.__class__ is not str:
                    shown = None
                    break
                shown.append(t)
            if shown is None:
                text = self._slow_half(hp, form, wide, lit)
                if text is None:
                    return None
                out.append(text)
            else:
                out.append(hp.mnemonic + " " + ", ".join(shown) if shown else hp.mnemonic)
        return " :: ".join(out), size

    def _slow_half(self, hp: _HalfPlan, form: Form, wide: int, lit: int | None) -> str | None:
        shown = []
        for memo, printer in hp.texts:
            t = self._piece(memo, printer, wide, 0, lit, form, None)
            if t is _FAIL:
                return None
            if t is not None:
                shown.append(t)
        return hp.mnemonic + " " + ", ".join(shown) if shown else hp.mnemonic

    # ------------------------------------------------------------------ remembering pieces

    def _class_of(self, memo: _Memo, form: Form, row) -> int:
        if not memo.questions:
            return 0
        cls = memo.of_form.get((id(form), id(row)))
        return self._classify(memo, form, row) if cls is None else cls

    def _bake(self, plan: _Plan, form: Form) -> tuple:
        """Each piece's table lookup, masks and class bits as this form finds them now."""
        def one(memo: _Memo, row) -> tuple:
            memo.users.add(plan)
            return (memo.table.get, memo.mask, memo.emask, memo.lmask,
                    self._class_of(memo, form, row) << CLASS_SHIFT)

        plan.baked = (tuple(one(memo, None) for memo, _p in plan.texts),
                      tuple(one(memo, plan.row) for memo, _p in plan.mods),
                      None if plan.tight is None else one(plan.tight[0], plan.row))
        return plan.baked

    def _bake_variant(self, fp: _FormPlan, form: Form) -> tuple:
        memo = fp.variant[0]
        memo.users.add(fp)
        fp.baked = (memo.table.get, memo.mask, self._class_of(memo, form, None) << CLASS_SHIFT)
        return fp.baked

    def _bake_half(self, hp: _HalfPlan, form: Form) -> tuple:
        baked = []
        for memo, _p in hp.texts:
            memo.users.add(hp)
            baked.append((memo.table.get, memo.mask, memo.lmask, self._class_of(memo, form, None) << CLASS_SHIFT))
        hp.baked = tuple(baked)
        return hp.baked

    def _piece(self, memo: _Memo, printer, word: int, ext: int, lit: int | None, form: Form, row):
        got = memo.table.get(memo.key(word, ext, lit, self._class_of(memo, form, row)), _MISS)
        if got is _MISS:
            got = self._fill(memo, printer, word, ext, lit, form, row)
        return got

    def _canon(self, value: object) -> object:
        """A small number for an answer that is not a plain value, found by identity first (the tables'
        rows and operand tuples live as long as the decoder) and by equality the first time."""
        seen = self._by_id.get(id(value))
        if seen is None:
            try:
                number = self._by_value.setdefault(value, len(self._by_value))
            except TypeError:     # unhashable: only the same object answers alike
                number = ("object", id(value))
            seen = self._by_id[id(value)] = (value, number)   # holds the object: its id stays its own
        return seen[1]

    def _classify(self, memo: _Memo, form: Form, row) -> int:
        answers = tuple(_answer(q, form, row, self._canon) for q in memo.questions)
        cls = memo.classes.setdefault(answers, len(memo.classes))
        memo.of_form[(id(form), id(row))] = cls
        return cls

    def _fill(self, memo: _Memo, printer, word: int, ext: int, lit: int | None, form: Form, row):
        """Print one piece on traced inputs and remember it under the bits and answers it read."""
        self.misses += 1
        log = _Log()
        dec = self.dec
        dec._img = None
        dec._lit64 = False
        dec._base = _Name(form.base, log)
        try:
            got = printer(_Word(word, log, 0), _Word(ext, log, 1), None if lit is None else _Word(lit, log, 2),
                          _FormView(form, log), None if row is None else _RowView(row, log))
        except Exception:   # the general decoder says what is wrong with this word
            got = _FAIL
        finally:
            dec._base = form.base
        new = [q for q in log.questions if q not in memo.questions]
        if log.word & ~memo.mask or log.ext & ~memo.emask or log.lit & ~memo.lmask or new:
            memo.mask |= log.word
            memo.emask |= log.ext
            memo.lmask |= log.lit
            if new:
                memo.questions = (*memo.questions, *new)
                memo.of_form.clear()
            for user in memo.users:
                user.baked = None
            memo.users.clear()
        if len(memo.table) < MEMO_LIMIT:
            memo.table[memo.key(word, ext, lit, self._class_of(memo, form, row))] = got
        return got

    # ------------------------------------------------------------------ making plans

    def _memo(self, key: tuple) -> _Memo:
        memo = self._memos.get(key)
        if memo is None:
            memo = self._memos[key] = _Memo()
        return memo

    def _form_plan(self, lay: Layout, form: Form) -> _FormPlan | None:
        from gpuisa.codec.decoder import EXPORT_ENCODINGS

        t = self.t
        if form.encoding in EXPORT_ENCODINGS or form.encoding in ("VBUFFER", "VINTERP") or \
                form.base.startswith("tbuffer_") or not form.rows:
            return None
        lit64 = t.target in LITERAL64_TARGETS and form.encoding in LITERAL64_ENCODINGS   # code 254: syntax.LITERAL64
        sources = []
        for name in SOURCE_FIELDS:
            bits = lay.fields.get(name)
            if bits is None:
                continue
            if len(bits) != 1:
                return None
            hi, lo = bits[0]
            sources.append((lo, (1 << (hi - lo + 1)) - 1, name == "SRC0", lit64))
        dec = self.dec
        return _FormPlan(lay.width // 8, tuple(sources),
                         (self._memo(("variant", lay.name)), lambda w, e, li, f, r: dec._variant(lay, f, w)))

    def _plan(self, lay: Layout, form: Form, variant: str) -> _Plan | None:
        from gpuisa.codec.decoder import K_OPERANDS, _is_float, printed_mnemonic

        row = form.rows.get(variant)
        if row is None:
            return None
        k_row = any(o.name in K_OPERANDS for o in row.operands)
        if k_row and self.t.target in LITERAL64_TARGETS and form.base in LITERAL64_K:
            return None    # its K is 64 bits
        mnemonic = printed_mnemonic(form, variant, self.dec.gen)
        is_float = _is_float(mnemonic)
        halves = sixteen_bit_operands(self.t, form, variant)
        if form.encoding in image.IMAGE_ENCODINGS:
            return None if k_row else self._image_plan(lay, form, variant, row, mnemonic, is_float, halves)
        key = (lay.name, variant, id(row), is_float, halves, form.encoding)
        pieces = self._pieces.get(key, _MISS)
        if pieces is _MISS:   # forms of one row, layout and variant print with the same pieces
            pieces = self._pieces[key] = self._plan_pieces(lay, form.encoding, variant, row, is_float, halves)
        if pieces is None:
            return None
        return _Plan(row, mnemonic, k_row, *pieces)

    def _plan_pieces(self, lay: Layout, encoding: str, variant: str, row, is_float: bool,
                     halves: frozenset[str]) -> tuple | None:
        """(texts, mods, tight) of a plan (see _Plan), or None where render() does more than print them."""
        from gpuisa.codec.decoder import DPP16_MODIFIERS, TIGHT_ENCODINGS

        dec = self.dec
        if any(o.name == "bitop3" for o in row.operands):
            return None
        vop3 = encoding in VOP3_ENCODINGS or encoding == "VINTERP" or variant.startswith("_e64")
        if halves and dec.true16 and vop3 and "OPSEL" in lay.fields and not any(o.name == "op_sel" for o in row.operands):
            return None    # real-true16 prints the OPSEL of a row that lists no op_sel
        dpp16 = variant in ("_dpp", "_e64_dpp")
        texts, mods = [], []
        src_index = 0
        for op in row.operands:
            if op.role == "modifier":
                if dpp16 and op.name in DPP16_MODIFIERS:
                    continue
                memo = self._memo(("mod", id(op), lay.name, variant))
                mods.append((memo, lambda w, e, li, f, r, op=op: dec._modifier(op, lay, f, w, variant, e, r)))
                continue
            half = op.name in halves
            memo = self._memo(("text", id(op), lay.name, variant, is_float, half, vop3, src_index))
            texts.append((memo, lambda w, e, li, f, r, op=op, half=half, i=src_index: dec._operand_text(
                op, lay, w, li, is_float, variant, e, half, vop3, False, i)))
            if op.role == "src":
                src_index += 1
        if dpp16:
            for name in DPP16_MODIFIERS[:5 if dec.gen >= 10 else 4]:
                memo = self._memo(("dpp", name, lay.name, variant))
                mods.append((memo, lambda w, e, li, f, r, name=name: dec._dpp(name, variant, e, w, lay)))
        tight = None
        if lay.encoding in TIGHT_ENCODINGS and variant in ("", "_e64"):
            tight = (self._memo(("tight", lay.name)), lambda w, e, li, f, r: dec._unused_modifier_bits(lay, w, r))
        return texts, mods, tight

    def _image_plan(self, lay: Layout, form: Form, variant: str, row, mnemonic: str, is_float: bool,
                    halves: frozenset[str]) -> _ImagePlan | None:
        """render()'s image path: the row's operands (those holding the image's registers printed per
        word), then the image modifiers the layout has fields for (not the row's)."""
        from gpuisa.codec.tables import field_for

        dec = self.dec
        if any(o.name == "bitop3" for o in row.operands):
            return None
        vop3 = form.encoding in VOP3_ENCODINGS or variant.startswith("_e64")
        texts = []
        src_index = 0
        for op in row.operands:
            if op.role == "modifier":
                continue
            half = op.name in halves
            registers = op.name in ("vaddr", "addr") or field_for(op, lay) == "VDATA"

            def printer(w, e=0, li=None, f=None, r=None, op=op, half=half, i=src_index, pending=not registers):
                if pending:
                    dec._img = _IMAGE_PENDING
                return dec._operand_text(op, lay, w, None, is_float, variant, 0, half, vop3, False, i)
            memo = None if registers else self._memo(("image text", id(op), lay.name, variant, is_float, half, vop3,
                                                      src_index))
            texts.append((memo, printer))
            if op.role == "src":
                src_index += 1
        mods = [(self._memo(("image mod", id(op), lay.name)),
                 lambda w, e, li, f, r, op=op: dec._modifier(op, lay, f, w, "", 0, r)) for op in dec.image_modifier_ops(lay)]
        return _ImagePlan(row, mnemonic, texts, mods, image.args_of(form.base).bvh)

    def _half_plan(self, form: Form) -> _HalfPlan | None:
        from gpuisa.codec.decoder import K_OPERANDS, _is_float, pair_shows

        row = form.rows.get("")
        if row is None:
            return None
        if any(o.name == "bitop3" for o in row.operands):
            return None    # v_dual_bitop2_b32 prints its truth table after the operands: the general decoder
        dec = self.dec
        hl = self.t.layouts[form.layout]
        is_float = _is_float(form.base)
        texts = []
        src_index = 0
        for op in row.operands:
            if pair_shows(op):
                memo = self._memo(("pair", id(op), hl.name, is_float, src_index))
                texts.append((memo, lambda w, e, li, f, r, op=op, i=src_index: dec._pair_operand_text(
                    op, hl, w, li, is_float, i)))
            src_index += op.role == "src"
        return _HalfPlan(form.base, any(o.name in K_OPERANDS for o in row.operands), texts)
