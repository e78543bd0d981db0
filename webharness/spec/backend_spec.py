"""What ``task.yaml`` declares of a scenario's backend: its collections, their fields with
the server-side validation rules, seed rows, and match rules between collections.
``webharness.browser.backend`` serves them."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    Field,
    ValidationInfo,
    field_validator,
    model_validator,
)

from webharness.spec.checks import SPEC_CONFIG, check_regex


class FieldSpec(BaseModel):
    """One column and the server-side rules a value must pass."""

    model_config = SPEC_CONFIG

    type: Literal["string", "integer", "number", "boolean"] = "string"
    required: bool = False
    max_length: int | None = None
    pattern: Annotated[str, AfterValidator(check_regex)] | None = None  # full-match regex
    choices: list[Any] | None = None
    min: float | None = None
    max: float | None = None
    unique: bool = False
    message: str | None = None  # what the server says when a rule fails


class MatchRule(BaseModel):
    """A write is accepted only when its values match a row of another collection on one
    of the field groups (e.g. a sign-in: email + password, or phone + code)."""

    model_config = SPEC_CONFIG

    collection: str
    groups: list[list[str]] = Field(min_length=1)
    message: str = "No matching record"


class CollectionSpec(BaseModel):
    model_config = SPEC_CONFIG

    fields: dict[str, FieldSpec] = Field(min_length=1)
    rows: list[dict[str, Any]] = Field(default_factory=list)
    read_only: bool = False
    requires_match: MatchRule | None = None

    @field_validator("rows")
    @classmethod
    def _rows_use_declared_fields(
        cls, rows: list[dict[str, Any]], info: ValidationInfo
    ) -> list[dict[str, Any]]:
        fields = info.data.get("fields")
        if fields is None:  # the fields themselves are invalid: that error comes first
            return rows
        for n, row in enumerate(rows):
            extra = sorted(set(row) - set(fields), key=str)
            if extra:
                raise ValueError(
                    f"row {n} has {', '.join(map(repr, extra))}, which the collection does "
                    f"not declare (fields: {', '.join(fields)}); declare it under fields "
                    "or remove it from the row"
                )
        return rows


class BackendSpec(BaseModel):
    model_config = SPEC_CONFIG

    collections: dict[str, CollectionSpec] = Field(min_length=1)

    @model_validator(mode="after")
    def _match_rules_refer_to_fields(self) -> BackendSpec:
        for name, collection in self.collections.items():
            rule = collection.requires_match
            if rule is None:
                continue
            other = self.collections.get(rule.collection)
            if other is None:
                raise ValueError(
                    f"collection {name!r} requires a match in {rule.collection!r}, which is "
                    f"not declared (collections: {', '.join(self.collections)})"
                )
            unknown = [f for group in rule.groups for f in group if f not in other.fields]
            if unknown:
                raise ValueError(
                    f"collection {name!r} matches on {', '.join(map(repr, unknown))}, which "
                    f"{rule.collection!r} does not declare"
                )
        return self
