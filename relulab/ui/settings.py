"""Every persistent setting, in one typed table.

QSettings in INI format. Values read back from an INI file are strings ('false'
is truthy), so every read goes through ``value(key, default, type=...)`` here and
nowhere else. Tests point ``QSettings.setPath`` at a temporary folder.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QByteArray, QSettings

from relulab import APP_NAME, ORGANIZATION
from relulab.ui.view_choices import DEFAULT_THEME, THEMES, ZOOM_MAX, ZOOM_MIN


@dataclass(frozen=True)
class Setting:
    key: str
    default: Any
    type: type
    choices: tuple = ()               # allowed values (others read back as the default)
    limits: tuple | None = None       # (low, high) for numbers


SETTINGS: dict[str, Setting] = {
    s.key: s
    for s in (
        Setting("window/geometry", QByteArray(), QByteArray),
        Setting("window/state", QByteArray(), QByteArray),
        Setting("window/last_panel", "hinges", str),
        Setting("view/theme", DEFAULT_THEME, str, choices=THEMES),
        Setting("view/zoom", 1.0, float, limits=(ZOOM_MIN, ZOOM_MAX)),
        Setting("help/welcome_shown", False, bool),
        Setting("files/recent", [], list),
        Setting("files/last_folder", "", str),
    )
}
MAX_RECENT = 10


def _store() -> QSettings:
    return QSettings(QSettings.Format.IniFormat, QSettings.Scope.UserScope, ORGANIZATION, APP_NAME)


def get(key: str):
    """The setting ``key`` with its declared type (its default when unset or unreadable)."""
    s = SETTINGS[key]
    store = _store()
    if s.type is list:
        raw = store.value(key, [])
        if raw is None:
            return []
        if isinstance(raw, str):
            return [raw] if raw else []
        return [str(v) for v in raw]
    try:
        value = store.value(key, s.default, type=s.type)
    except (TypeError, ValueError):
        return s.default
    if value is None or (s.choices and value not in s.choices):
        return s.default
    if s.limits is not None and not (s.limits[0] <= value <= s.limits[1]):
        return s.default
    return value


def set(key: str, value) -> None:
    s = SETTINGS[key]
    if s.type is list:
        value = [str(v) for v in value]
    elif not isinstance(value, s.type):
        value = s.type(value)
    store = _store()
    store.setValue(key, value)
    store.sync()


def add_recent(path: str) -> list[str]:
    recent = [p for p in get("files/recent") if p != path]
    recent.insert(0, path)
    del recent[MAX_RECENT:]
    set("files/recent", recent)
    return recent


def remove_recent(path: str) -> list[str]:
    """Forget a recent file (it was moved or deleted)."""
    recent = [p for p in get("files/recent") if p != path]
    set("files/recent", recent)
    return recent
