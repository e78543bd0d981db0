"""Reading a ``task.yaml``: safe YAML that refuses duplicate keys and files that expand
past a size bound; every way a file can be unreadable is a ``TaskSpecError``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from yaml.constructor import ConstructorError
from yaml.nodes import MappingNode, Node, ScalarNode

from webharness.errors import TaskSpecError

# Real task files hold a few thousand values; aliases (*name) nested in aliases can expand
# a small file to billions ("billion laughs"), which validation would then walk.
MAX_SPEC_VALUES = 200_000

_MERGE_TAG = "tag:yaml.org,2002:merge"


class DuplicateKeyError(ConstructorError):
    """A mapping that names the same key twice (plain YAML would keep the last silently)."""

    def __init__(self, key: Any, first: Node, again: Node) -> None:
        self.key = key
        self.first_line, self.line = first.start_mark.line + 1, again.start_mark.line + 1
        super().__init__(None, None, f"duplicate key {key!r}", again.start_mark)


# libyaml's parser where PyYAML was built with it (its wheels are): 5x faster than the
# pure-Python one, with the same nodes, marks and safe constructor. A base chosen at import
# is not a type mypy can check.
_SafeLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class UniqueKeyLoader(_SafeLoader):  # type: ignore[valid-type,misc]
    """A safe loader that refuses a mapping with the same key twice.

    Keys brought in by a merge (``<<: *base``) may be overridden; written ones may not.
    """

    def construct_mapping(self, node: MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: dict[Any, Node] = {}
        for key_node, _ in node.value:
            if not isinstance(key_node, ScalarNode) or key_node.tag == _MERGE_TAG:
                continue
            key = self.construct_object(key_node)
            try:
                first = seen.setdefault(key, key_node)
            except TypeError:  # an unhashable key: the base constructor says so
                continue
            if first is not key_node:
                raise DuplicateKeyError(key, first, key_node)
        return super().construct_mapping(node, deep=deep)


def read_yaml(path: Path) -> Any:
    """The file's YAML data.

    Raises:
        TaskSpecError: the file cannot be read, is not UTF-8 or YAML, names a key twice,
            holds a value that contains itself, or expands past ``MAX_SPEC_VALUES``.
    """
    file = str(path)
    try:
        raw = yaml.load(path.read_text(encoding="utf-8"), Loader=UniqueKeyLoader)  # noqa: S506
    except DuplicateKeyError as exc:
        raise TaskSpecError(
            file,
            str(exc.key),
            exc.key,
            f"the key appears twice in one mapping (lines {exc.first_line} and {exc.line}); "
            "keep one of them",
        ) from None
    except yaml.YAMLError as exc:
        raise TaskSpecError(file, "<file>", None, f"not valid YAML: {exc}") from None
    except UnicodeDecodeError as exc:
        raise TaskSpecError(
            file, "<file>", None, f"not UTF-8 text (byte {exc.start}); save the file as UTF-8"
        ) from None
    except OSError as exc:
        raise TaskSpecError(file, "<file>", None, f"cannot read: {exc.strerror}") from None
    except RecursionError:
        raise TaskSpecError(file, "<file>", None, "nested too deeply to read") from None
    except ValueError as exc:  # e.g. an integer with more digits than Python converts
        raise TaskSpecError(file, "<file>", None, f"a value cannot be read: {exc}") from None
    size = _expanded_size(raw, {})
    if size < 0:
        raise TaskSpecError(file, "<file>", None, "a value contains itself (a recursive alias)")
    if size > MAX_SPEC_VALUES:
        raise TaskSpecError(
            file,
            "<file>",
            None,
            f"expands to more than {MAX_SPEC_VALUES:,} values (aliases within aliases); "
            "write it out plainly",
        )
    return raw


def _expanded_size(value: Any, sizes: dict[int, int]) -> int:
    """How many values ``value`` holds once aliases are expanded (each shared object
    counted once per use, computed once); -1 when a value contains itself."""
    if not isinstance(value, (dict, list)):
        return 1
    if id(value) in sizes:
        return sizes[id(value)]
    sizes[id(value)] = -1  # in progress: meeting it again below is a cycle
    total = 1
    for child in value.values() if isinstance(value, dict) else value:
        size = _expanded_size(child, sizes)
        if size < 0:
            return -1
        total += size
    sizes[id(value)] = total
    return total
