"""Statement forms only PTX's pseudo-C uses (blocks, C for/while/switch, ++, typed declarations,
`.mode` modifiers); mixed into the interpreter so both notations share one evaluator."""

from __future__ import annotations

from typing import Any

from lark import Tree

from gpuisa.semantics.ptx import type_of
from gpuisa.semantics.types import TV


class PtxForms:
    """Mixin for Interp: relies on its eval/store/binary/exec_block/compare_vals."""

    ptx_classes: dict[str, str]
    ptx_modifiers: set[str]
    def st_block(self: Any, node: Tree) -> None:
        self.exec_block(node.children[0])

    def st_decl(self: Any, node: Tree) -> None:
        ctype, name_tok, *init = node.children
        kind, width = type_of("." + str(ctype).lstrip("."))
        name = str(name_tok)
        self.declared[name] = (kind if kind != "b" else "u", width)
        value = self.eval(init[0]) if init and init[0] is not None else TV("lit", 0, 0)
        self.store(Tree("var", [name_tok]), value, node)

    def _incdec(self: Any, target: Tree, op: str, node: Tree) -> None:
        cur = self.eval(target)
        new = self.binary("+" if op == "++" else "-", cur, TV("lit", 0, 1), node)
        self.store(target, self.to_type_of(new, cur), node)

    def st_post_incdec(self: Any, node: Tree) -> None:
        self._incdec(node.children[0], str(node.children[1]), node)

    def st_pre_incdec(self: Any, node: Tree) -> None:
        self._incdec(node.children[1], str(node.children[0]), node)

    def st_c_while(self: Any, node: Tree) -> None:
        self.st_while_stmt(node)

    def st_c_for(self: Any, node: Tree) -> None:
        init, cond, step, body = node.children
        if init is not None:
            getattr(self, "st_" + init.data)(init)
        loop = Tree("stmts", [body] + ([step] if step is not None else []))
        self.st_while_stmt(Tree("c_while", [cond if cond is not None else Tree("number", ["1"]), loop]))

    def st_c_switch(self: Any, node: Tree) -> None:
        subject, *cases = node.children
        value = self.eval(subject)
        for case in cases:
            label, body = case.children
            hit = self.dom.concrete_bool(self.compare_vals("==", value, self.eval(label), case).data)
            if hit is None:
                raise self.fail("a switch on a per-lane value is not modelled", node)
            if hit:
                self.exec_block(body)
                return

    def ex_modifier(self: Any, node: Tree) -> TV:
        return TV("sym", 0, str(node.children[0]))

    def sym_value(self: Any, v: TV) -> str:
        """A PTX modifier as the form has it: `.mode` -> '.lo'; a value stays itself."""
        name = str(v.data)
        classes = getattr(self, "ptx_classes", {})
        key = name.lstrip(".")
        if key in classes:
            return classes[key]
        return name

    def sym_truth(self: Any, v: TV) -> bool:
        name = str(v.data)
        if name.lstrip(".") in getattr(self, "ptx_classes", {}):
            return bool(self.sym_value(v))
        return name in getattr(self, "ptx_modifiers", set())

