"""The scenario schema: pydantic input models, split by block.

Validators check fields and cross-field rules; they compute no costs and read no files
(the demand files a scenario names are read when it is resolved). Every numeric field
carries its unit and title in its metadata (:func:`costmodel.schema.base.quantity`).
"""

from .claims import Claim
from .demand import (
    BurstyDemand,
    CampaignDemand,
    DemandProfile,
    HourlyFileDemand,
    JobLogDemand,
    SteadyDemand,
    WeeklyDemand,
)
from .energy import EnergyInputs, TimeOfUseTariff
from .finance import (
    PRICE_PATHS,
    CapacityPlan,
    Commitment,
    Finance,
    Lease,
    Loan,
    NpvConvention,
    PricePath,
    RentalPricePath,
    Residual,
    Tax,
    Trends,
)
from .options import (
    CapexLine,
    CloudRental,
    Colocation,
    Facility,
    HostedAPI,
    Options,
    OwnCluster,
    Power,
    Provider,
    Reserved,
    SoftwareLicences,
    Spot,
    Staffing,
)
from .overrides import Overrides
from .scenario import OPTION_KINDS, FXRates, Scenario
from .uncertainty import Distribution, Range, Uncertainty
from .workload import (
    ComponentFailureRates,
    Goodput,
    GPUHoursWorkload,
    Parallelism,
    Serving,
    ServingEstimate,
    TokensWorkload,
    TrainingPower,
    TrainingStage,
    TrainingWorkload,
    Workload,
)

__all__ = [
    "OPTION_KINDS",
    "PRICE_PATHS",
    "BurstyDemand",
    "CampaignDemand",
    "CapacityPlan",
    "CapexLine",
    "Claim",
    "CloudRental",
    "ComponentFailureRates",
    "Provider",
    "TrainingPower",
    "Colocation",
    "Commitment",
    "DemandProfile",
    "Distribution",
    "EnergyInputs",
    "FXRates",
    "Facility",
    "Finance",
    "GPUHoursWorkload",
    "Goodput",
    "HostedAPI",
    "HourlyFileDemand",
    "JobLogDemand",
    "Lease",
    "Loan",
    "NpvConvention",
    "Options",
    "Overrides",
    "OwnCluster",
    "Parallelism",
    "Power",
    "PricePath",
    "Range",
    "RentalPricePath",
    "Reserved",
    "Residual",
    "Scenario",
    "Serving",
    "ServingEstimate",
    "SoftwareLicences",
    "Spot",
    "Staffing",
    "SteadyDemand",
    "Tax",
    "TimeOfUseTariff",
    "TokensWorkload",
    "TrainingStage",
    "TrainingWorkload",
    "Trends",
    "Uncertainty",
    "WeeklyDemand",
    "Workload",
]
