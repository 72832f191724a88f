"""Every control a script or a screen reader reaches has a name."""

from PySide6.QtWidgets import QDoubleSpinBox, QPushButton, QVBoxLayout, QWidget

from relulab.ui.automation import interactive_widgets, inventory, markdown, unnamed


def test_every_interactive_widget_has_an_object_and_accessible_name(main_window):
    for name in main_window.panels:  # panels are created when first asked for
        main_window.panel(name)
    missing = unnamed(main_window)
    assert not missing, "controls without names:\n" + "\n".join(missing)


def test_the_check_catches_a_control_that_forgets(qtbot):
    root = QWidget()
    qtbot.addWidget(root)
    layout = QVBoxLayout(root)
    named = QPushButton("Fit", root)
    named.setObjectName("x-fit")
    named.setAccessibleName("Fit")
    forgot = QPushButton("Reset", root)
    spin = QDoubleSpinBox(root)  # its inner line edit is Qt's, not ours
    spin.setObjectName("x-count")
    for w in (named, forgot, spin):
        layout.addWidget(w)
    assert set(interactive_widgets(root)) == {named, forgot, spin}
    problems = unnamed(root)
    assert len(problems) == 2
    assert any("“Reset”" in p for p in problems)
    assert any("x-count" in p for p in problems)


def test_inventory_lists_menu_actions_and_lecture_controls(main_window):
    text = markdown(main_window)
    for name in ("action-open", "action-save", "action-lecture-next", "action-export-png-4x",
                 "lecture-next", "lecture-caption", "panel-tabs"):
        assert f"`{name}`" in text, name
    assert "PgDown" in text
    names = [c.object_name for c in inventory(main_window)]
    assert set(main_window.panels.created()) == set(main_window.panels)  # the tables list all
    repeated = sorted({n for n in names if names.count(n) > 1})
    assert not repeated, f"object names used twice: {repeated}"


def test_the_documented_example_runs(tmp_path):
    """The example in docs/automation.md runs as it is written."""
    import os
    import re
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    doc = (root / "docs" / "automation.md").read_text()
    section = doc.split("## Scripts without pytest", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(root), HOME=str(tmp_path),
               XDG_CONFIG_HOME=str(tmp_path / "config"), RELULAB_DATA_DIR=str(tmp_path / "data"))
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert (tmp_path / "work.relulab.json").exists() and (tmp_path / "hinges.png").exists()
    pieces, caption = out.stdout.split("\n", 1)
    assert pieces == "4096" and len(caption.strip()) > 40  # a count and a caption


def test_controls_inside_scroll_areas_and_tabs_are_checked(qtbot):
    from PySide6.QtWidgets import QScrollArea, QTabWidget

    root = QWidget()
    qtbot.addWidget(root)
    scroll = QScrollArea(root)
    scroll.setObjectName("x-controls")
    inner = QWidget()
    QVBoxLayout(inner).addWidget(QPushButton("Hidden in a scroll area"))
    scroll.setWidget(inner)
    tabs = QTabWidget(root)
    page = QWidget()
    QVBoxLayout(page).addWidget(QPushButton("On a tab page"))
    tabs.addTab(page, "page")
    problems = unnamed(root)
    assert any("Hidden in a scroll area" in p for p in problems)
    assert any("On a tab page" in p for p in problems)


def test_every_named_widget_has_an_accessible_name(main_window):
    """Containers, menus, the status bar, help texts and splitters too, not only controls."""
    from relulab.ui.automation import without_accessible_name

    for name in main_window.panels:
        main_window.panel(name)
    missing = without_accessible_name(main_window)
    assert not missing, "named widgets without an accessible name:\n" + "\n".join(missing)


def test_the_documented_examples_are_the_files_ci_runs():
    """docs/automation.md shows each file of examples/automation as it is."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    doc = (root / "docs" / "automation.md").read_text()
    shown = dict(re.findall(r"```python (examples/automation/\S+)\n(.*?)```", doc, re.S))
    files = {str(p.relative_to(root)): p.read_text()
             for p in sorted((root / "examples" / "automation").glob("test_*.py"))}
    assert len(files) == 7 and shown == files
