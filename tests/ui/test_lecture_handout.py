"""The handout: a lecture as a PDF, one page a scene, its caption readable as text."""

import unicodedata

import pytest

pypdf = pytest.importorskip("pypdf")


def page_texts(path) -> list[str]:
    """Each page's text with its spacing and ligatures (ﬂ) made plain."""
    return [" ".join(unicodedata.normalize("NFKC", p.extract_text()).split())
            for p in pypdf.PdfReader(str(path)).pages]


def build(window):
    window.show_panel("hinges").set_value(3.0)
    window.lecture.add_view("A ruler", "One hinge bends the line at x = b.", "Ask where.")
    window.show_panel("folding").set_value(-2.0)
    window.lecture.add_view("Folding", "Each fold doubles the pieces.", "Secret notes.")
    window.show_panel("training")
    window.lecture.add_view("Training", "", "")


def test_one_page_a_scene_with_its_caption(fake_window, tmp_path):
    w = fake_window
    build(w)
    out = tmp_path / "handout.pdf"
    assert w.lecture.export_handout(out)
    texts = page_texts(out)
    assert len(texts) == 3
    assert "A ruler" in texts[0] and "One hinge bends the line at x = b." in texts[0]
    assert "Folding" in texts[1] and "Each fold doubles the pieces." in texts[1]
    assert "scene 3 / 3" in texts[2]
    assert not any("Secret notes." in t for t in texts)  # notes only when asked for


def test_notes_are_printed_when_asked(fake_window, tmp_path):
    w = fake_window
    build(w)
    out = tmp_path / "notes.pdf"
    assert w.lecture.export_handout(out, notes=True)
    assert "Notes: Secret notes." in page_texts(out)[1]


def test_nothing_to_export_says_so(fake_window, tmp_path):
    assert not fake_window.lecture.export_handout(tmp_path / "none.pdf")
    assert not (tmp_path / "none.pdf").exists()
