"""The book's Sphinx extension: punctuation bound to formulas, units to numbers, 证明, author-year labels."""

from docutils import nodes
from docutils.frontend import get_default_settings
from docutils.parsers.rst import Parser
from docutils.utils import new_document

from ccb_helpers.sphinxext import ChineseTypography, _authors


def _paragraph(*children):
    doc = new_document("test", get_default_settings(Parser))
    paragraph = nodes.paragraph()
    paragraph += list(children)
    doc += paragraph
    return doc, paragraph


def test_punctuation_is_bound_to_the_formula_and_equal_texts_are_not_confused():
    doc, p = _paragraph(
        nodes.Text("（"),
        nodes.math("a", "a"),
        nodes.Text("）和（"),
        nodes.math("b", "b"),
        nodes.Text("）。"),
        nodes.Text("）。"),
    )
    for math in list(doc.findall(nodes.math)):
        ChineseTypography._bind(math)
    wrappers = [c for c in p.children if isinstance(c, nodes.inline)]
    assert [w.astext() for w in wrappers] == ["（a）", "（b）。"]
    # nothing lost, nothing moved; a line may break after each wrapper's closing punctuation
    assert "".join(c.astext() for c in p.children if not isinstance(c, nodes.raw)) == "（a）和（b）。）。"
    assert [c.astext() for c in p.children if isinstance(c, nodes.raw)] == ["<wbr>", "<wbr>"]
    assert all(isinstance(p[p.index(w) + 1], nodes.raw) for w in wrappers)
    assert all("ccb-nobr" in w["classes"] for w in wrappers)


def test_formula_without_punctuation_is_left_alone():
    doc, p = _paragraph(nodes.Text("设 "), nodes.math("N", "N"), nodes.Text(" 个节点"))
    ChineseTypography._bind(next(iter(doc.findall(nodes.math))))
    assert not any(isinstance(c, nodes.inline) for c in p.children)


def test_author_part_of_labels():
    from pybtex.database import Entry, Person

    def entry(*names):
        return Entry("article", fields={"title": "T", "year": "2007"}, persons={"author": [Person(n) for n in names]})

    assert _authors(entry("Chan, Ernie", "Heimlich, Marcel", "Purkayastha, Avi")) == "Chan et al."
    assert _authors(entry("Patarasuk, Pitch", "Yuan, Xin")) == "Patarasuk and Yuan"
    assert _authors(entry("{NVIDIA}")) == "NVIDIA"
    assert _authors(entry('Tr{\\"a}ff, Jesper')) == "Träff"


def test_table_cells_keep_units_and_relations_together():
    doc = new_document("test", get_default_settings(Parser))
    table = nodes.table()
    entry = nodes.entry()
    entry += nodes.paragraph("", "", nodes.Text("84.3 µs，N ≥ 6，S ≥"))
    table += entry
    doc += table
    ChineseTypography(doc).run()
    assert entry.astext() == "84.3\u00a0µs，N\u00a0≥\u00a06，S\u00a0≥"


def _joined(*children, block=nodes.paragraph):
    from ccb_helpers.sphinxext import join_cjk_soft_breaks

    doc = new_document("test", get_default_settings(Parser))
    paragraph = block()
    paragraph += list(children)
    doc += paragraph
    count = join_cjk_soft_breaks(doc)
    return paragraph.astext(), count


def test_soft_break_between_chinese_characters_is_dropped():
    # The stray space a reader saw: "调度。 本书" (a newline in the Markdown source between 。 and 本).
    assert _joined(nodes.Text("最后跑调度。\n本书用代码\n重算。")) == ("最后跑调度。本书用代码重算。", 2)
    # Chinese quotes after Chinese text, and a break inside **bold** (separate Text nodes).
    assert _joined(nodes.Text("称为\n“已知”节点")) == ("称为“已知”节点", 1)
    assert _joined(nodes.Text("先看"), nodes.strong("", "", nodes.Text("倍增\n")), nodes.Text("论证")) == (
        "先看倍增论证",
        1,
    )
    assert _joined(nodes.Text("标题\n换行"), block=nodes.title) == ("标题换行", 1)
    # A space before a link whose text is Chinese, after a closing quote, in a generated title.
    link = nodes.reference("", "", nodes.inline("", "", nodes.Text("参考文献")))
    assert _joined(nodes.Text("完整列表见 "), link, nodes.Text("。")) == ("完整列表见参考文献。", 1)
    assert _joined(nodes.Text("的 “Tree” 其实是一条链")) == ("的“Tree”其实是一条链", 2)  # Chinese quotes are full width
    assert _joined(nodes.Text("解答 练习 8.1"), block=nodes.title) == ("解答练习 8.1", 1)
    # The same "\n" twice in one paragraph, the first kept (after a digit): the second one is the one dropped.
    text, count = _joined(
        nodes.Text("的输入。"),
        nodes.Text("\n"),
        nodes.Text("1-port 下收到消息，"),
        nodes.Text("\n"),
        nodes.Text("影响集"),
    )
    assert (text, count) == ("的输入。\n1-port 下收到消息，影响集", 1)


def test_soft_break_next_to_latin_text_or_code_stays_a_space():
    assert _joined(nodes.Text("the ring\nalgorithm")) == ("the ring\nalgorithm", 0)
    assert _joined(nodes.Text("“6” is a “Tree” here")) == ("“6” is a “Tree” here", 0)
    assert _joined(nodes.Text("使用 ring\n算法，得到\nAllReduce")) == ("使用 ring\n算法，得到\nAllReduce", 0)
    # Inline math and code are opaque: the break next to them is a space between words.
    text, count = _joined(nodes.Text("节点数\n"), nodes.math("N", "N"), nodes.Text("\n个"))
    assert count == 0 and text == "节点数\nN\n个"
    text, count = _joined(nodes.Text("调用\n"), nodes.literal("中文", "中文"), nodes.Text("。"))
    assert count == 0
    # Literal blocks keep every newline.
    assert _joined(nodes.Text("代码\n块"), block=nodes.literal_block) == ("代码\n块", 0)


def test_build_kernels_use_encrypted_transport():
    from jupyter_client.manager import KernelManager

    from ccb_helpers.sphinxext import encrypt_kernel_transport

    trait = KernelManager.transport_encryption
    before = trait.default_value
    try:
        assert KernelManager().transport_encryption == "disabled"  # jupyter_client's default: the warning
        assert encrypt_kernel_transport() is True
        assert KernelManager().transport_encryption == "auto"
    finally:
        trait.default_value = before
