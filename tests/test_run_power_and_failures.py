"""A training run's measured power with N+k redundancy, and failures stated by component (issue 30).

Expected values are computed here by hand: IT load = GPUs × W / 1000, facility = IT × PUE,
provisioned = facility × (N + k) / N (Uptime Institute's N+R); the cluster fails at the sum of
its components' rates (a series system), MTBF = 8,760 / Λ h. The component counts come from the
Llama 3 paper (Dubey et al. 2024, arXiv 2407.21783, §3.3.4 and Table 5, as the bundled
llama31-405b-as-published states them): in 54 days on 16,384 H100 (2,048 hosts of 8), 256 GPU
interruptions (faulty GPU 148, HBM3 72, SRAM 19, GPU system processor 17), 35 network switch and
cable, 2 CPU (host) interruptions.
"""

import json

import pytest
from conftest import patched
from pydantic import ValidationError

import costmodel
from costmodel.cli import main
from costmodel.domain.compare import compare
from costmodel.domain.energy import energy_result
from costmodel.domain.training import training_run
from costmodel.resolved import resolve
from costmodel.schema import Goodput

R4 = "llama31-405b-training"  # 16,384 H100 (700 W TDP), the own option's PUE 1.56
PUBLISHED = "llama31-405b-as-published"
T = 54 / 365  # the paper's 54 days [years]
GOODPUT = {"checkpoint_write_minutes": 0.5, "restart_minutes": 3.0, "interval": "daly"}


def _training_energy(changes):
    r = resolve(patched(R4, changes))
    return energy_result(r, run=training_run(r)).training


class TestMeasuredPower:
    def test_tdp_by_default(self):
        e = _training_energy({})
        assert e.power_basis == "tdp" and e.watts_per_gpu == 700
        assert e.it_load_kw == pytest.approx(16_384 * 0.7)
        assert e.facility_power_kw == pytest.approx(16_384 * 0.7 * 1.56)
        assert e.provisioned_facility_power_kw is None

    def test_measured_power_replaces_the_tdp(self):
        before = _training_energy({})
        e = _training_energy({"workload.power": {"measured_power_per_gpu_w": 550, "source": "meter logs"}})
        assert e.power_basis == "measured" and e.watts_per_gpu == 550
        assert e.energy_mwh == pytest.approx(e.gpu_hours * 550 * 1.56 / 1e6, rel=1e-12)
        assert e.energy_mwh == pytest.approx(before.energy_mwh * 550 / 700, rel=1e-12)
        assert e.it_load_kw == pytest.approx(16_384 * 550 / 1000)  # 9,011.2 kW
        assert e.facility_power_kw == pytest.approx(9_011.2 * 1.56)
        assert "550 W measured per GPU" in e.notes[0]

    def test_n_plus_1(self):
        e = _training_energy(
            {"workload.power": {"measured_power_per_gpu_w": 550, "redundancy_units": 4, "source": "4 UPS modules + 1"}}
        )
        assert e.provisioned_facility_power_kw == pytest.approx(9_011.2 * 1.56 * 5 / 4)

    def test_2n(self):
        e = _training_energy({"workload.power": {"redundancy_units": 2, "spare_units": 2, "source": "2N"}})
        assert e.power_basis == "tdp"
        assert e.provisioned_facility_power_kw == pytest.approx(16_384 * 0.7 * 1.56 * 2)

    def test_json(self, capsys, tmp_path):
        path = tmp_path / "r4.yaml"
        costmodel.save_scenario(
            patched(
                R4, {"workload.power": {"measured_power_per_gpu_w": 550, "redundancy_units": 4, "source": "meters"}}
            ),
            path,
        )
        assert main(["compare", str(path), "--json", "--no-uncertainty"]) == 0
        card = json.loads(capsys.readouterr().out)["energy"]["training_run"]["model_card_method"]
        assert card["power_basis"] == "measured"
        assert card["power_per_gpu"] == {"value": 550.0, "unit": "W", "status": None}
        assert card["it_load"]["value"] == pytest.approx(9_011.2) and card["it_load"]["unit"] == "kW"
        assert card["facility_power"]["value"] == pytest.approx(9_011.2 * 1.56)
        assert card["provisioned_facility_power"]["value"] == pytest.approx(9_011.2 * 1.56 * 1.25)

    def test_without_redundancy_the_json_says_not_applicable(self, capsys):
        assert main(["compare", R4, "--json", "--no-uncertainty"]) == 0
        card = json.loads(capsys.readouterr().out)["energy"]["training_run"]["model_card_method"]
        assert card["provisioned_facility_power"] == {"value": None, "unit": "kW", "status": "not_applicable"}

    @pytest.mark.parametrize(
        "block, words",
        [
            ({"source": "x"}, "give measured_power_per_gpu_w or redundancy_units"),
            ({"measured_power_per_gpu_kw": 0.55, "source": "x"}, "measured_power_per_gpu_w: 550"),
            ({"measured_power_per_gpu_w": 0, "source": "x"}, "greater than 0"),
            ({"redundancy_units": 0, "source": "x"}, "greater than or equal to 1"),
            ({"measured_power_per_gpu_w": 550}, "source"),
        ],
    )
    def test_refusals(self, block, words):
        with pytest.raises(ValidationError, match=words):
            patched(R4, {"workload.power": block})


class TestFailuresByComponent:
    RATES = {"gpu": 256 / T / 16_384, "host": 2 / T / 2_048, "network": 35 / T / 35}

    def _run(self, goodput):
        return training_run(resolve(patched(PUBLISHED, {"workload.goodput": {**GOODPUT, **goodput}})))

    def test_the_cluster_fails_at_the_sum(self):
        run = self._run({"failures_per_year": self.RATES, "network_components": 35, "step_time_seconds": 5.9})
        # 256 + 2 + 35 = 293 interruptions in 54 days: one every 54 x 24 / 293 = 4.423 h
        assert run.job_mtbf_hours == pytest.approx(54 * 24 / 293, rel=1e-12)
        counted = self._run({"interruptions": 293, "days": 54, "gpus": 16_384})
        assert run.job_mtbf_hours == pytest.approx(counted.job_mtbf_hours, rel=1e-12)
        assert run.goodput == pytest.approx(counted.goodput, rel=1e-12)

    def test_each_component(self):
        run = self._run({"failures_per_year": self.RATES, "network_components": 35})
        assert run.failures_by_component["gpu"] == pytest.approx((16_384, 256 / T / 16_384, 256 / T))
        assert run.failures_by_component["host"] == pytest.approx((2_048, 2 / T / 2_048, 2 / T))
        assert run.failures_by_component["network"] == pytest.approx((35, 1 / T, 35 / T))
        # the GPUs alone: the same job MTBF as the paper's 256 GPU interruptions (as-published's cause "gpu")
        published = training_run(resolve(patched(PUBLISHED)))
        assert run.failures_by_cause["gpu"][1] == pytest.approx(published.failures_by_cause["gpu"][1], rel=1e-12)
        assert run.failures_by_cause["gpu"][1] == pytest.approx(54 * 24 / 256, rel=1e-12)

    def test_hosts_round_up(self):
        # 16,384 GPUs in hosts of 6: 2,731 hosts (the last one partly filled)
        run = self._run({"failures_per_year": {"host": 0.1}, "gpus_per_host": 6})
        assert run.failures_by_component["host"] == (2_731, 0.1, pytest.approx(273.1))
        assert run.failures_by_component["gpu"] == (16_384, 0.0, 0.0)  # a rate left at 0 is shown as 0
        assert run.job_mtbf_hours == pytest.approx(8_760 / 273.1, rel=1e-12)

    def test_json(self, capsys, tmp_path):
        path = tmp_path / "by-component.yaml"
        costmodel.save_scenario(
            patched(
                PUBLISHED, {"workload.goodput": {**GOODPUT, "failures_per_year": self.RATES, "network_components": 35}}
            ),
            path,
        )
        assert main(["compare", str(path), "--json", "--no-uncertainty"]) == 0
        training = json.loads(capsys.readouterr().out)["training_run"]
        host = training["failures_by_component"]["host"]
        assert host["count"] == {"value": 2_048, "unit": "-", "status": None}
        assert host["cluster_failures_per_year"]["value"] == pytest.approx(2 / T, abs=1e-6)
        assert training["job_mtbf"]["value"] == pytest.approx(54 * 24 / 293, abs=1e-4)

    def test_counted_runs_have_no_components(self):
        c = compare(resolve(patched(PUBLISHED)))
        assert c.training.failures_by_component is None

    @pytest.mark.parametrize(
        "goodput, where, words",
        [
            (
                {"failures_per_year": {"gpu": 0.1}, "failures_per_gpu_per_year": 0.1},
                "failures_per_gpu_per_year",
                "state the failures one way",
            ),
            ({"failures_per_year": {"network": 0.1}}, "network_components", "how many"),
            ({"failures_per_year": {"gpu": 0.1}, "network_components": 10}, "network", "no failures_per_year.network"),
            ({"failures_per_gpu_per_year": 0.1, "network_components": 10}, "network_components", "failures_per_year"),
            ({"failures_per_year": {"gpu": -1}}, "gpu", "greater than or equal to 0"),
            ({"failures_per_year": {"switch": 1}}, "switch", "Extra inputs"),
        ],
    )
    def test_refusals(self, goodput, where, words):
        with pytest.raises(ValidationError, match=words) as info:
            Goodput.model_validate({**GOODPUT, **goodput})
        assert where in str(info.value)


def test_an_empty_failures_block_is_refused():
    from costmodel.schema import ComponentFailureRates

    with pytest.raises(Exception, match="at least one"):
        ComponentFailureRates.model_validate({})
    assert ComponentFailureRates.model_validate({"gpu": 0.0}).gpu == 0.0
