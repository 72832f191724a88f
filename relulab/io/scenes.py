"""Scene files (``.relulab.json``) and lecture playlists: a versioned JSON schema.

A scene is the state of some or all panels, so that saving and reopening it draws
the same pictures::

    {"format": "relulab-scene", "version": 1,
     "panels": {"hinges": {...}, "folding": {...}},   # panel name -> its state_dict()
     "current": "hinges",                              # the panel on screen
     "title": "…", "caption": "…",                     # optional, shown in a lecture
     "notes": "…"}                                     # optional, the presenter's only

A playlist is an ordered list of scenes (inline, or file names beside it)::

    {"format": "relulab-playlist", "version": 1, "title": "…",
     "scenes": ["01-ruler.relulab.json", {...a scene...}, …]}

A lecture saved from the window is such a playlist, either one file with its scenes
inline or a folder holding ``playlist.json`` and one numbered scene file a scene.

Reading never trusts the file: every problem raises :class:`SceneError` naming the
field (``panels.hinges``, ``version``, ``scenes[3]``) and what is wrong with it, in
one line, before anything is applied. Reading is bounded before parsing (regular
files only, MAX_BYTES while reading, nesting and element counts measured on the
text: see relulab.io.limits). Files written by a newer format version are refused
rather than half-read. Qt-free.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

from relulab.io.atomic import write_text_atomic
from relulab.io.limits import (
    MAX_NUMBER_DIGITS,
    DuplicateKey,
    FileRefused,
    StrPath,
    check_json_text,
    megabytes,
    one_line,
    read_file,
    shown_name,
    unique_keys,
)

SCENE_FORMAT = "relulab-scene"
PLAYLIST_FORMAT = "relulab-playlist"
VERSION = 1
SCENE_SUFFIX = ".relulab.json"
#: Larger files are refused before they are read: a scene is settings and small data.
MAX_BYTES = 16 * 1024 * 1024
#: Deeper nesting than this is not a scene (and would exhaust the parser's stack).
MAX_DEPTH = 64
#: Lists and objects, and values of any kind, in one file: checked before parsing, so
#: that 16 MB of ``[[],[],…]`` cannot take gigabytes. 100,000 Playground points (the
#: model's own maximum) are 100,000 lists and 300,000 values.
MAX_CONTAINERS = 1_000_000
MAX_VALUES = 4_000_000


class SceneError(ValueError):
    """A scene or playlist that cannot be used: ``field`` says where, ``problem`` what."""

    def __init__(self, field: str, problem: str):
        # names and messages may come from the file: keep the message one line
        field, problem = one_line(field, 200), one_line(problem)
        super().__init__(f"{field}: {problem}")
        self.field = field
        self.problem = problem


@dataclass
class Scene:
    """The state of some panels (``panels``: name -> state_dict) and which one is shown."""

    panels: dict[str, dict[str, Any]] = field(default_factory=dict)
    current: str | None = None
    title: str = ""
    caption: str = ""
    #: what the presenter reads in the presenter view; the audience never sees it
    notes: str = ""

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"format": SCENE_FORMAT, "version": VERSION}
        if self.title:
            d["title"] = self.title
        if self.caption:
            d["caption"] = self.caption
        if self.notes:
            d["notes"] = self.notes
        if self.current is not None:
            d["current"] = self.current
        d["panels"] = {name: json_ready(state, f"panels.{name}")
                       for name, state in self.panels.items()}
        return d


@dataclass
class Playlist:
    """An ordered list of scenes, stepped through in a lecture."""

    scenes: list[Scene]
    title: str = ""


# -- helpers -----------------------------------------------------------------
def _kind(value: Any) -> str:
    """A value's JSON kind in words, for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def json_ready(value: Any, where: str = "value") -> Any:
    """``value`` as plain JSON data: tuples become lists, numpy numbers and arrays
    become Python numbers and lists. Raises SceneError naming the path of anything
    JSON cannot hold (arbitrary objects). Non-finite numbers (a diverged loss, the loss
    of an empty test set) are kept: they are written as ``NaN``/``Infinity``, as
    Python's json module does, so that no work becomes unsaveable."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return value
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if not isinstance(k, str):
                raise SceneError(where, f"key {k!r} is not text")
            out[k] = json_ready(v, f"{where}.{k}")
        return out
    if isinstance(value, (list, tuple)):
        if all(type(v) is float or type(v) is int for v in value):  # the common case: numbers
            return list(value)
        return [json_ready(v, f"{where}[{i}]") for i, v in enumerate(value)]
    tolist = getattr(value, "tolist", None)  # numpy arrays and scalars, without importing numpy
    if callable(tolist):
        return json_ready(tolist(), where)
    raise SceneError(where, f"{type(value).__name__} cannot be stored in a scene")


class _HugeInteger:
    """Stands in, while parsing, for a whole number too long for a double."""

    def __init__(self, digits: int):
        self.digits = digits


def _parse_int(text: str) -> int | _HugeInteger:
    digits = len(text.lstrip("-"))
    return _HugeInteger(digits) if digits > MAX_NUMBER_DIGITS else int(text)


def _find_huge(value: Any, where: str = "") -> tuple[str, _HugeInteger] | None:
    """The path and stand-in of the first too-long whole number in ``value``."""
    stack = [(value, where)]
    while stack:
        v, path = stack.pop()
        if isinstance(v, _HugeInteger):
            return path, v
        if isinstance(v, dict):
            stack.extend((c, f"{path}.{shown_name(k)}" if path else shown_name(k))
                         for k, c in reversed(v.items()))
        elif isinstance(v, list):
            stack.extend((c, f"{path}[{i}]") for i, c in reversed(list(enumerate(v))))
    return None


def _decode(data: bytes | str, max_bytes: int) -> Any:
    """Bytes -> JSON value, with a message for each way a file can be broken."""
    size = len(data.encode("utf-8") if isinstance(data, str) else data)
    if size > max_bytes:
        raise SceneError("file", f"{_mb(size)} is larger than the {_mb(max_bytes)} a scene may have")
    if isinstance(data, bytes):
        if not data:
            raise SceneError("file", "the file is empty")
        if data.startswith((b"\xff\xfe", b"\xfe\xff")):
            raise SceneError("file", "UTF-16 text; a scene file is UTF-8 (save it as UTF-8)")
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise SceneError("file", f"not UTF-8 text (byte 0x{data[exc.start]:02x} at offset "
                                     f"{exc.start}); is this a scene file?") from None
    else:
        text = data
    if not text:
        raise SceneError("file", "the file is empty")
    if not text.strip():
        raise SceneError("file", "the file is empty (it holds only blank space)")
    try:
        shape = check_json_text(text, MAX_DEPTH, MAX_CONTAINERS, MAX_VALUES)
    except FileRefused as exc:
        raise SceneError("file", str(exc)) from None
    huge = []

    def parse_int(token: str) -> int | _HugeInteger:
        value = _parse_int(token)
        if isinstance(value, _HugeInteger):
            huge.append(value)
        return value

    try:
        # NaN and Infinity are read back as written; whole numbers are looked at one by
        # one only when some number is too long to be one (the hook is slower)
        value = json.loads(text, parse_int=parse_int if shape.long_numbers else None,
                           object_pairs_hook=unique_keys)
    except json.JSONDecodeError as exc:
        cut = " (the file looks cut short)" if shape.cut_short else ""
        raise SceneError("file", f"not valid JSON at line {exc.lineno}, column {exc.colno}: "
                                 f"{exc.msg}{cut}") from None
    except DuplicateKey as exc:
        raise SceneError("file", str(exc)) from None
    if huge:
        where, number = _find_huge(value) or ("file", huge[0])
        raise SceneError(where or "file", f"a whole number with {number.digits} digits is out of "
                                          f"range (at most {MAX_NUMBER_DIGITS} digits)")
    return value


_mb = megabytes


def _depth(value: Any, limit: int) -> int:
    """Nesting depth of a JSON value, stopping once ``limit`` is passed (only the
    containers are visited: a long list of numbers costs one type check each)."""
    level, deepest = [value], 0
    while level:
        deepest += 1
        if deepest > limit:
            return deepest
        nxt: list[dict | list] = []
        for v in level:
            children = v.values() if isinstance(v, dict) else v if isinstance(v, list) else ()
            nxt.extend(c for c in children if isinstance(c, (dict, list)))
        level = nxt
    return deepest


def _check_header(d: Any, expected_format: str, where: str = "") -> None:
    prefix = f"{where}." if where else ""
    if not isinstance(d, dict):
        raise SceneError(where or "file", f"expected an object with \"format\" and \"version\", "
                                          f"got {_kind(d)}")
    fmt = d.get("format")
    if fmt is None:
        raise SceneError(f"{prefix}format", f"missing; a ReLU Lab file says \"{expected_format}\"")
    if fmt != expected_format:
        raise SceneError(f"{prefix}format", f"is {fmt!r}, expected {expected_format!r}")
    version = d.get("version")
    if version is None:
        raise SceneError(f"{prefix}version", "missing")
    if isinstance(version, bool) or not isinstance(version, int):
        raise SceneError(f"{prefix}version", f"expected a whole number, got {_kind(version)}")
    if version > VERSION:
        raise SceneError(f"{prefix}version",
                         f"this file was written by a newer ReLU Lab (format version {version}); "
                         f"this one reads up to version {VERSION}. Update ReLU Lab to open it.")
    if version < 1:
        raise SceneError(f"{prefix}version", f"{version} is not a format version (they start at 1)")


def _optional_text(d: dict, key: str, where: str) -> str:
    value = d.get(key, "")
    if not isinstance(value, str):
        raise SceneError(f"{where}{key}", f"expected text, got {_kind(value)}")
    return value


# -- scenes ------------------------------------------------------------------
def scene_from_dict(d: Any, known_panels: Iterable[str] | None = None,
                    where: str = "") -> Scene:
    """Validate a decoded scene object and return it as a :class:`Scene`.

    ``known_panels``: the panel names this application has (unknown names are an
    error naming the field). ``where`` prefixes field names (``scenes[2]``).
    """
    _check_header(d, SCENE_FORMAT, where)
    prefix = f"{where}." if where else ""
    if _depth(d, MAX_DEPTH) > MAX_DEPTH:
        raise SceneError(where or "file", f"nested more than {MAX_DEPTH} levels deep")
    known = list(known_panels) if known_panels is not None else None
    if "panels" not in d:
        raise SceneError(f"{prefix}panels", "missing (an object: panel name -> panel state)")
    panels = d["panels"]
    if not isinstance(panels, dict):
        raise SceneError(f"{prefix}panels",
                         f"expected an object (panel name -> panel state), got {_kind(panels)}")
    for name, state in panels.items():
        if known is not None and name not in known:
            raise SceneError(f"{prefix}panels.{shown_name(name)}",
                             f"unknown panel (known: {', '.join(known)})")
        if not isinstance(state, dict):
            raise SceneError(f"{prefix}panels.{shown_name(name)}",
                             f"expected an object (the panel's state), got {_kind(state)}")
    current = d.get("current")
    if current is not None:
        if not isinstance(current, str):
            raise SceneError(f"{prefix}current", f"expected a panel name, got {_kind(current)}")
        if known is not None and current not in known:
            raise SceneError(f"{prefix}current",
                             f"unknown panel {shown_name(current)!r} (known: {', '.join(known)})")
    return Scene(panels=dict(panels), current=current,
                 title=_optional_text(d, "title", prefix),
                 caption=_optional_text(d, "caption", prefix),
                 notes=_optional_text(d, "notes", prefix))


def parse_scene(data: bytes | str, known_panels: Iterable[str] | None = None,
                max_bytes: int = MAX_BYTES) -> Scene:
    """A scene from the bytes or text of a ``.relulab.json`` file (validated)."""
    return scene_from_dict(_decode(data, max_bytes), known_panels)


def dump_scene(scene: Scene) -> str:
    """The scene as JSON text (stable key order, one field per line for diffs)."""
    return json.dumps(scene.to_dict(), indent=1, ensure_ascii=False) + "\n"


def _read_bytes(path: Path | Traversable, max_bytes: int) -> bytes:
    """The file's bytes, read within bounds (a regular file, at most ``max_bytes``);
    package data (an ``importlib.resources`` traversable) is read as it is."""
    if not isinstance(path, Path):
        data = path.read_bytes()
        if len(data) > max_bytes:
            raise SceneError("file", f"{_mb(len(data))} is larger than the {_mb(max_bytes)} "
                                     "a scene may have")
        return data
    try:
        return read_file(path, max_bytes)
    except FileNotFoundError:
        raise SceneError("file", f"{path} does not exist") from None
    except FileRefused as exc:
        raise SceneError("file", f"{path} {exc}") from None


def read_scene(path: StrPath, known_panels: Iterable[str] | None = None,
               max_bytes: int = MAX_BYTES) -> Scene:
    """Read and validate a scene file."""
    return parse_scene(_read_bytes(Path(path), max_bytes), known_panels, max_bytes)


def write_scene(path: StrPath, scene: Scene) -> None:
    """Write ``scene`` atomically (a temporary file beside it, then a rename)."""
    text = dump_scene(scene)  # raises SceneError before the file is touched
    write_text_atomic(Path(path), text)


# -- playlists ---------------------------------------------------------------
def playlist_from_dict(d: Any, base: Path | Traversable | None = None,
                       known_panels: Iterable[str] | None = None,
                       max_bytes: int = MAX_BYTES) -> Playlist:
    """Validate a decoded playlist; scene entries that are file names are read from
    ``base`` (a folder path or an ``importlib.resources`` traversable)."""
    _check_header(d, PLAYLIST_FORMAT)
    known = list(known_panels) if known_panels is not None else None
    entries = d.get("scenes")
    if not isinstance(entries, list):
        raise SceneError("scenes", f"expected a list of scenes, got {_kind(entries)}")
    if not entries:
        raise SceneError("scenes", "the playlist has no scenes")
    scenes = []
    for i, entry in enumerate(entries):
        where = f"scenes[{i}]"
        if isinstance(entry, str):
            if base is None:
                raise SceneError(where, "a file name, but the playlist has no folder to read it from")
            if "/" in entry or "\\" in entry or entry.startswith("."):
                raise SceneError(where, f"{entry!r}: scene files must lie beside the playlist")
            try:
                raw = _read_bytes(base / entry, max_bytes)
                scenes.append(scene_from_dict(_decode(raw, max_bytes), known))
            except SceneError as exc:
                raise SceneError(f"{where} ({entry}) {exc.field}", exc.problem) from None
        elif isinstance(entry, dict):
            scenes.append(scene_from_dict(entry, known, where))
        else:
            raise SceneError(where, f"expected a scene or a file name, got {_kind(entry)}")
    return Playlist(scenes=scenes, title=_optional_text(d, "title", ""))


def read_playlist(path: StrPath | Traversable, known_panels: Iterable[str] | None = None,
                  max_bytes: int = MAX_BYTES) -> Playlist:
    """Read a playlist file (a Path or an ``importlib.resources`` traversable)."""
    path = Path(path) if isinstance(path, (str, os.PathLike)) else path
    d = _decode(_read_bytes(path, max_bytes), max_bytes)
    return playlist_from_dict(d, path.parent if hasattr(path, "parent") else None,
                              known_panels, max_bytes)


def dump_playlist(playlist: Playlist) -> str:
    """The playlist as one JSON file, its scenes inline."""
    d: dict[str, Any] = {"format": PLAYLIST_FORMAT, "version": VERSION}
    if playlist.title:
        d["title"] = playlist.title
    d["scenes"] = [scene.to_dict() for scene in playlist.scenes]
    return json.dumps(d, indent=1, ensure_ascii=False) + "\n"


#: The playlist's name inside a lecture saved as a folder.
PLAYLIST_NAME = "playlist.json"


def write_playlist(path: StrPath, playlist: Playlist) -> Path:
    """Write ``playlist`` atomically: one file with the scenes inline, or, when ``path``
    is a folder (an existing one, or a name without a suffix), ``playlist.json`` and
    ``NN-scene.relulab.json`` files in it. Returns the playlist file written."""
    if not playlist.scenes:
        raise SceneError("scenes", "a lecture needs at least one scene")
    path = Path(path)
    if not (path.is_dir() or (not path.suffix and not path.exists())):
        write_text_atomic(path, dump_playlist(playlist))  # SceneError before the file is touched
        return path
    texts = {f"{i:02d}-scene{SCENE_SUFFIX}": dump_scene(s)
             for i, s in enumerate(playlist.scenes, start=1)}
    head: dict[str, Any] = {"format": PLAYLIST_FORMAT, "version": VERSION}
    if playlist.title:
        head["title"] = playlist.title
    head["scenes"] = list(texts)
    path.mkdir(parents=True, exist_ok=True)
    for name, text in texts.items():
        write_text_atomic(path / name, text)
    # scene files of a longer lecture saved here before are left alone: the playlist
    # names the ones that belong to it, and it is written last
    target = path / PLAYLIST_NAME
    write_text_atomic(target, json.dumps(head, indent=1, ensure_ascii=False) + "\n")
    return target


def read_lecture(path: StrPath, known_panels: Iterable[str] | None = None,
                 max_bytes: int = MAX_BYTES) -> Playlist:
    """A lecture from a playlist file or a folder holding ``playlist.json``."""
    path = Path(path)
    return read_playlist(path / PLAYLIST_NAME if path.is_dir() else path, known_panels, max_bytes)


def read_document(path: StrPath, known_panels: Iterable[str] | None = None,
                  max_bytes: int = MAX_BYTES) -> Scene | Playlist:
    """A scene or a playlist, whichever the file's ``format`` says."""
    path = Path(path)
    d = _decode(_read_bytes(path, max_bytes), max_bytes)
    if isinstance(d, dict) and d.get("format") == PLAYLIST_FORMAT:
        return playlist_from_dict(d, path.parent, known_panels, max_bytes)
    return scene_from_dict(d, known_panels)


def builtin_lecture_path() -> Traversable:
    """The built-in lecture's playlist, as an ``importlib.resources`` traversable."""
    from importlib.resources import files

    return files("relulab").joinpath("resources", "lectures", "playlist.json")
