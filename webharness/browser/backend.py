"""A small generic REST backend over SQLite: one in-memory database per episode.

Declared in ``task.yaml`` (collections, fields with validation rules, seeded rows) and
served through route interception at ``/api/<collection>``. Validation errors answer 422
with a message per field, the way a real server would.
"""

from __future__ import annotations

import json
import re
import sqlite3
from typing import Any

from pydantic import BaseModel

from webharness.spec.backend_spec import BackendSpec, CollectionSpec, FieldSpec, MatchRule

_SQL_TYPES = {"string": "TEXT", "integer": "INTEGER", "number": "REAL", "boolean": "INTEGER"}


class ApiResponse(BaseModel):
    status: int
    body: Any


class Backend:
    """The episode's database and its REST handler."""

    def __init__(self, spec: BackendSpec) -> None:
        self.spec = spec
        # Route handlers and observers may run on different threads; access is serial.
        self._db = sqlite3.connect(":memory:", check_same_thread=False)
        self._db.row_factory = sqlite3.Row
        for name, collection in spec.collections.items():
            columns = ", ".join(f'"{f}" {_SQL_TYPES[s.type]}' for f, s in collection.fields.items())
            self._db.execute(
                f'CREATE TABLE "{name}" (id INTEGER PRIMARY KEY AUTOINCREMENT, {columns})'
            )
            for row in collection.rows:
                self._insert(name, self._coerce(collection, row)[0])

    # --- reading ------------------------------------------------------------------------
    def rows(self, collection: str) -> list[dict[str, Any]]:
        fields = self.spec.collections[collection].fields
        out = []
        for row in self._db.execute(f'SELECT * FROM "{collection}" ORDER BY id'):
            record = dict(row)
            for name, spec in fields.items():
                if spec.type == "boolean" and record.get(name) is not None:
                    record[name] = bool(record[name])
            out.append(record)
        return out

    def dump(self) -> dict[str, list[dict[str, Any]]]:
        """Every collection's rows: the ``app`` part of the semantic state."""
        return {name: self.rows(name) for name in self.spec.collections}

    # --- the REST handler ---------------------------------------------------------------
    def handle(
        self, method: str, path: str, query: dict[str, str], body: bytes | None
    ) -> ApiResponse:
        """Answer ``/api/<collection>[/<id>]`` requests."""
        parts = [p for p in path.split("/") if p][1:]  # drop "api"
        if not parts or parts[0] not in self.spec.collections or len(parts) > 2:
            return ApiResponse(status=404, body={"error": f"no such resource: {path}"})
        name = parts[0]
        row_id = int(parts[1]) if len(parts) == 2 and parts[1].isdigit() else None
        if len(parts) == 2 and row_id is None:
            return ApiResponse(status=404, body={"error": f"bad id in {path}"})
        if method == "GET":
            return self._get(name, row_id, query)
        if self.spec.collections[name].read_only:
            return ApiResponse(status=405, body={"error": f"{name} is read-only"})
        if method == "DELETE" and row_id is not None:
            self._db.execute(f'DELETE FROM "{name}" WHERE id = ?', (row_id,))
            return ApiResponse(status=204, body=None)
        if method in ("POST", "PUT", "PATCH"):
            return self._write(name, method, row_id, body)
        return ApiResponse(status=405, body={"error": f"{method} not allowed on {path}"})

    def _get(self, name: str, row_id: int | None, query: dict[str, str]) -> ApiResponse:
        rows = self.rows(name)
        if row_id is not None:
            found = [r for r in rows if r["id"] == row_id]
            return (
                ApiResponse(status=200, body=found[0])
                if found
                else ApiResponse(status=404, body={"error": "not found"})
            )
        text = query.get("q", "").strip().lower()
        filters = {
            k: v for k, v in query.items() if k in self.spec.collections[name].fields and v != ""
        }
        rows = [
            r
            for r in rows
            if all(str(r.get(k, "")).lower() == v.lower() for k, v in filters.items())
            and (not text or any(text in str(v).lower() for v in r.values() if isinstance(v, str)))
        ]
        return ApiResponse(status=200, body=rows)

    def _write(self, name: str, method: str, row_id: int | None, body: bytes | None) -> ApiResponse:
        try:
            data = json.loads(body or b"{}")
        except (json.JSONDecodeError, UnicodeDecodeError):
            return ApiResponse(status=400, body={"error": "the request body is not JSON"})
        if not isinstance(data, dict):
            return ApiResponse(status=400, body={"error": "the request body must be a JSON object"})
        collection = self.spec.collections[name]
        if method == "PATCH" and row_id is not None:
            current = next((r for r in self.rows(name) if r["id"] == row_id), None)
            if current is None:
                return ApiResponse(status=404, body={"error": "not found"})
            data = {**current, **data}
        values, errors = self._coerce(collection, data)
        errors.update(self._unique_errors(name, collection, values, row_id))
        if errors:
            return ApiResponse(status=422, body={"errors": errors})
        if collection.requires_match is not None and not self._matches(
            collection.requires_match, data
        ):
            return ApiResponse(status=401, body={"error": collection.requires_match.message})
        if row_id is None:
            row_id = self._insert(name, values)
        else:
            sets = ", ".join(f'"{k}" = ?' for k in values)
            self._db.execute(f'UPDATE "{name}" SET {sets} WHERE id = ?', (*values.values(), row_id))
        record = next(r for r in self.rows(name) if r["id"] == row_id)
        return ApiResponse(status=201 if method == "POST" else 200, body=record)

    def _matches(self, rule: MatchRule, data: dict[str, Any]) -> bool:
        rows = self.rows(rule.collection)
        for group in rule.groups:
            if all(str(data.get(f) or "").strip() for f in group) and any(
                all(str(row.get(f, "")).strip() == str(data[f]).strip() for f in group)
                for row in rows  # passwords: case counts
            ):
                return True
        return False

    def _insert(self, name: str, values: dict[str, Any]) -> int:
        columns = ", ".join(f'"{k}"' for k in values)
        marks = ", ".join("?" for _ in values)
        cursor = self._db.execute(
            f'INSERT INTO "{name}" ({columns}) VALUES ({marks})', tuple(values.values())
        )
        return int(cursor.lastrowid or 0)

    def _unique_errors(
        self, name: str, collection: CollectionSpec, values: dict[str, Any], row_id: int | None
    ) -> dict[str, str]:
        errors = {}
        for field, spec in collection.fields.items():
            if spec.unique and values.get(field) is not None:
                clash = any(
                    r.get(field) == values[field] and r["id"] != row_id for r in self.rows(name)
                )
                if clash:
                    errors[field] = spec.message or f"{field} {values[field]!r} is already taken"
        return errors

    @staticmethod
    def _coerce(
        collection: CollectionSpec, data: dict[str, Any]
    ) -> tuple[dict[str, Any], dict[str, str]]:
        values: dict[str, Any] = {}
        errors: dict[str, str] = {}
        for field, spec in collection.fields.items():
            try:
                values[field] = _check(field, spec, data.get(field))
            except ValueError as exc:
                errors[field] = spec.message or str(exc)
        return values, errors


def _check(field: str, spec: FieldSpec, raw: Any) -> Any:
    if raw is None or (isinstance(raw, str) and raw.strip() == "" and spec.type != "boolean"):
        if spec.required:
            raise ValueError(f"{field} is required")
        return None
    value = _convert(field, spec.type, raw)
    if isinstance(value, str):
        if spec.max_length is not None and len(value) > spec.max_length:
            raise ValueError(f"{field} must be at most {spec.max_length} characters")
        if spec.pattern is not None and not re.fullmatch(spec.pattern, value):
            raise ValueError(f"{field} has an invalid format")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if (spec.min is not None and value < spec.min) or (
            spec.max is not None and value > spec.max
        ):
            raise ValueError(f"{field} must be between {spec.min} and {spec.max}")
    if spec.choices is not None and value not in spec.choices:
        raise ValueError(f"{field} must be one of {', '.join(map(str, spec.choices))}")
    return value


def _convert(field: str, kind: str, raw: Any) -> Any:
    try:
        if kind == "string":
            return str(raw).strip()
        if kind == "integer":
            return int(str(raw).strip())
        if kind == "number":
            return float(str(raw).strip())
        if isinstance(raw, str):
            return raw.strip().lower() in ("true", "1", "yes", "on")
        return bool(raw)
    except ValueError:
        raise ValueError(f"{field} must be a{'n' if kind == 'integer' else ''} {kind}") from None
