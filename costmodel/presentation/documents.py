"""The JSON documents of ``costmodel fleet``, ``costmodel diff`` and ``costmodel bills``, each a contract of its own.

``compare --json`` follows :mod:`costmodel.presentation.output`; the other three commands print documents
of other shapes, so each has its own typed model here, its own ``schema_version`` (semver, bumped as
the comparison's is: a removed, renamed or retyped field bumps the major, a new field the minor) and
its JSON Schema in data/schemas/ (``costmodel schema --output fleet``). Every document is validated
against its model before it is printed: a field the domain adds without a model here fails loudly,
not silently outside the contract.

Units are those of the domain results they come from: money of a fleet in the reporting currency a
month, of a bill in the bill's currency; money a reviewer adds up to the cent (a showback, a bill)
is a string of an exact decimal, never a binary float.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

SCHEMA_VERSIONS = {"fleet": "1.0.0", "diff": "1.0.0", "bills": "1.0.0"}
"""Each document's schema_version."""

DOCUMENTS = tuple(SCHEMA_VERSIONS)
"""The documents with a contract here (``compare``'s is :class:`costmodel.presentation.output.ComparisonOutput`)."""

ExactDecimal = Annotated[str, Field(pattern=r"^-?[0-9]+(\.[0-9]+)?$", description="an exact decimal, as a string")]
"""Money a reviewer adds up to the cent, written as a string of its exact decimal."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class _Stamped(_Strict):
    schema_version: str = Field(description="semver of this document's contract")
    costmodel_version: str = Field(description="the costmodel that wrote it")


# --- fleet ----------------------------------------------------------------------------------------------


class FleetMemberAnswer(_Strict):
    """One member of the fleet and its own single-scenario answer."""

    name: str
    team: str
    scenario: str = Field(description="the member's scenario file, resolved")
    gpu_hours: float = Field(description="busy GPU-hours a month [GPU-h/month]")
    winner: str = Field(description="the cheapest candidate of the member alone")
    alone: float = Field(description="the member's own answer [currency/month]")
    kind: Literal["scenario", "fine_tune"]
    run_gpu_hours: float | None = Field(description="a fine-tune's GPU-hours a run [GPU-h]; null for a scenario")
    run_months: list[int] = Field(description="calendar months a fine-tune runs in (1-12)")


class FleetTeamShare(_Strict):
    """One team's showback line over the year."""

    team: str
    gpu_hours: float = Field(description="GPU-hours used [GPU-h/month]")
    share: float = Field(description="fraction of the GPU-hours used [-]")
    allocated: ExactDecimal
    idle: ExactDecimal


class FleetMonthTeam(_Strict):
    """One team's share of one calendar month."""

    team: str
    gpu_hours: float = Field(description="GPU-hours used in the month [GPU-h]")
    allocated: ExactDecimal
    idle: ExactDecimal


class FleetMonth(_Strict):
    """One calendar month's showback: the fleet's cost for the month split by the month's use."""

    month: int = Field(ge=1, le=12)
    hours: int = Field(description="hours in the month [h]")
    cost: ExactDecimal
    teams: list[FleetMonthTeam]


class FleetDocument(_Stamped):
    """``costmodel fleet --json``: several workloads on one fleet, and each team's share of its cost."""

    title: str
    currency: str
    unit: str = Field(description="of every money figure but the showback's: {currency}/month")
    winner: str = Field(description="the cheapest candidate for the summed demand")
    figures: dict[str, float] = Field(description="candidate -> monthly cost [currency/month]")
    alone: float = Field(description="sum of the members' own answers [currency/month]")
    saving: float = Field(description="alone minus the winner's figure [currency/month]")
    paid_gpu_hours: float = Field(description="[GPU-h/month]")
    used_gpu_hours: float = Field(description="[GPU-h/month]")
    members: list[FleetMemberAnswer]
    showback: list[FleetTeamShare]
    monthly: list[FleetMonth]


# --- diff -----------------------------------------------------------------------------------------------


class DiffMeasure(_Strict):
    """A measure in A and in B."""

    a: float | None
    b: float | None
    change: float | None = Field(description="b minus a")
    unit: str


class DiffInput(_Strict):
    """One numeric input that differs, and what it moved."""

    input: str = Field(description="the input's path (costmodel.schema.inputs)")
    title: str
    unit: str
    a: float | None
    b: float | None
    source_a: str
    source_b: str
    one_at_a_time: dict[str, float | None] = Field(description="measure -> change with only this input from B")
    shapley: dict[str, float | None] = Field(description="measure -> the input's Shapley share of the change")


class DiffOther(_Strict):
    """A field that differs other than a numeric input (an id, a kind, a block on one side only)."""

    field: str
    a: Any
    b: Any


class DiffDocument(_Stamped):
    """``costmodel diff --json``: scenario B against A, input by input."""

    a: str
    b: str
    currency: str
    method: str = Field(description="'exact' (every order of the inputs) or 'sampled N orders'")
    measures: dict[str, DiffMeasure]
    inputs: list[DiffInput]
    other_differences: list[DiffOther]
    other_effect: dict[str, float | None] = Field(description="measure -> change the other differences made")


# --- bills ----------------------------------------------------------------------------------------------


class BillSpend(_Strict):
    """Spend of one month, provider and service."""

    month: str = Field(pattern=r"^[0-9]{4}-[0-9]{2}$")
    provider: str
    service: str
    billed_cost: ExactDecimal
    effective_cost: ExactDecimal


class BillGPUHours(_Strict):
    """GPU-hours read from one line of the bill."""

    line: int = Field(description="the line of the file")
    provider: str
    instance_type: str
    gpu: str = Field(description="the catalog's GPU")
    gpu_hours: ExactDecimal


class BillLine(_Strict):
    """A compute line that is not counted as GPU demand."""

    line: int
    name: str
    billed_cost: ExactDecimal


class BillsDocument(_Stamped):
    """``costmodel bills --json``: a FOCUS or LiteLLM export summed to the cent."""

    format: Literal["focus", "litellm"]
    currency: str
    spend: list[BillSpend]
    totals_by_month: dict[str, str] = Field(description="month -> BilledCost, an exact decimal")
    totals_by_provider: dict[str, str] = Field(description="provider -> BilledCost, an exact decimal")
    gpu_hours: list[BillGPUHours]
    tokens_per_day: dict[str, dict[str, str]] = Field(description="model -> kind of token -> tokens a day")
    unknown_compute: list[BillLine] = Field(description="compute lines naming no known GPU instance")
    compute_spend_not_demand: list[BillLine] = Field(description="compute lines that are spend but not GPU demand")


MODELS: dict[str, type[_Stamped]] = {"fleet": FleetDocument, "diff": DiffDocument, "bills": BillsDocument}


def document(kind: str, data: dict[str, Any]) -> dict[str, Any]:
    """A command's JSON document, stamped with its schema_version and validated against its model.

    Parameters
    ----------
    kind
        One of :data:`DOCUMENTS`.
    data
        The domain result's plain data (``FleetResult.to_dict()``, ...).

    Raises
    ------
    pydantic.ValidationError
        The data does not follow the document's contract (a defect of costmodel, not of the input).
    """
    from .. import __version__

    stamped = {**data, "schema_version": SCHEMA_VERSIONS[kind], "costmodel_version": __version__}
    return MODELS[kind].model_validate(stamped).model_dump(mode="json")


def document_json_schema(kind: str) -> dict[str, Any]:
    """The JSON Schema of a document (what ``costmodel schema --output KIND`` prints)."""
    version = SCHEMA_VERSIONS[kind]
    schema = MODELS[kind].model_json_schema(mode="serialization")
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$comment"] = f"costmodel {kind} document, schema_version {version}"
    schema["properties"]["schema_version"]["pattern"] = rf"^{version.split('.')[0]}\.[0-9]+\.[0-9]+$"
    return schema
