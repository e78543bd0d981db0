"""What ``task.yaml`` declares of a scenario's backend: its collections, their fields with
the server-side validation rules, seed rows, and match rules between collections.
``webharness.episode.backend`` serves them."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class FieldSpec(BaseModel):
    """One column and the server-side rules a value must pass."""

    model_config = ConfigDict(extra="forbid")

    type: Literal["string", "integer", "number", "boolean"] = "string"
    required: bool = False
    max_length: int | None = None
    pattern: str | None = None  # a full-match regular expression
    choices: list[Any] | None = None
    min: float | None = None
    max: float | None = None
    unique: bool = False
    message: str | None = None  # what the server says when a rule fails


class MatchRule(BaseModel):
    """A write is accepted only when its values match a row of another collection on one
    of the field groups (e.g. a sign-in: email + password, or phone + code)."""

    model_config = ConfigDict(extra="forbid")

    collection: str
    groups: list[list[str]] = Field(min_length=1)
    message: str = "No matching record"


class CollectionSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    fields: dict[str, FieldSpec] = Field(min_length=1)
    rows: list[dict[str, Any]] = Field(default_factory=list)
    read_only: bool = False
    requires_match: MatchRule | None = None


class BackendSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    collections: dict[str, CollectionSpec] = Field(min_length=1)
