"""The command line: compare, and errors for bad input."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

import costmodel
from costmodel.cli import main
from costmodel.paths import SCENARIO_DIR
from costmodel.report import report_folder


def test_compare_json(capsys):
    assert main(["compare", "llama70b-vs-api", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["decision"]["winner"] == "api" and data["decision"]["measure"] == "monthly_cost"
    assert data["decision"]["winner_label"] == "Hosted API: Claude Opus 4.5 (Anthropic)"
    assert data["options"]["rent"]["monthly_cost"] == {
        "value": pytest.approx(12070.0),
        "unit": "USD/month",
        "status": None,
    }
    assert data["options"]["api"]["cost_per_gpu_hour_used"] == {
        "value": None,
        "unit": "USD/GPU-h",
        "status": "not_applicable",
    }
    pairs = {tuple(b["options"]): b["volume"] for b in data["break_evens"]}
    assert pairs[("own", "rent")] == {"value": None, "unit": "tokens/day", "status": "never"}
    never = next(b for b in data["break_evens"] if b["volume"]["status"] == "never")
    assert never["cheaper_below"] == "rent" and never["cheaper_above"] is None
    # API up to the rent/API break-even, rental from there to the end of the range (10 x 10 M/day)
    ranges = data["cheapest_by_volume"]
    assert [r["option"] for r in ranges] == ["api", "rent"]
    assert ranges[0]["volume_from"]["value"] == 0 and ranges[-1]["volume_to"]["value"] == 100e6
    assert ranges[0]["volume_to"]["value"] == pytest.approx(pairs[("rent", "api")]["value"])
    assert pairs[("rent", "api")]["value"] == pytest.approx(34.013e6, rel=1e-3)


def test_compare_text(capsys):
    assert main(["compare", "h200-24gpu-cluster"]) == 0
    out = capsys.readouterr().out
    # the verdict first, named with its offer and its measure; the monthly view's break-even below it
    assert out.splitlines()[1].startswith("verdict: Cloud rental: H200-SXM-141GB at Nebius, 1-year reserved")
    assert "monthly view at 12,000 GPU-hours/month" in out and "37,940 GPU-hours/month" in out


def test_compare_at_zero_volume_says_not_defined(capsys):
    assert main(["compare", "h200-24gpu-cluster", "--json", "--volume", "0", "--volume-max", "20000"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["options"]["own"]["cost_per_gpu_hour_used"]["status"] == "not_defined"
    assert data["options"]["own"]["cost_per_million_tokens"]["status"] == "not_applicable"
    assert data["estimates"] and "dgx-h200" in data["estimates"][0]


@pytest.mark.parametrize(
    "args", [["--volume", "-5"], ["--volume-max", "-1"], ["--volume-max", "0"], ["--volume", "nan"]]
)
def test_bad_volume_arguments_exit_2(capsys, args):
    assert main(["compare", "llama70b-vs-api", *args]) == 2
    err = capsys.readouterr().err
    assert "volume" in err and "Traceback" not in err


@pytest.mark.parametrize("command", ["report", "batch"])
@pytest.mark.parametrize(
    "timeout, reason",
    [
        ("0", "at least 1 s"),
        ("-3", "at least 1 s"),
        ("1.5", "not a whole number of seconds"),
        ("604801", "at most 604,800 s"),
        ("9223372037", "at most 604,800 s"),
    ],
)
def test_a_timeout_below_one_second_exits_2(tmp_path, capsys, command, timeout, reason):
    assert main([command, "llama70b-vs-api", "--out", str(tmp_path / "out"), "--timeout", timeout]) == 2
    assert reason in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_bad_scenario_exits_2_and_names_the_field(tmp_path, capsys):
    data = yaml.safe_load((SCENARIO_DIR / "llama70b-vs-api.yaml").read_text())
    data["options"]["api"]["offer"] = "no-such-offer"
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(data))
    assert main(["compare", str(path)]) == 2
    err = capsys.readouterr().err
    assert str(path) in err and "options.api.offer" in err and "unknown API offer" in err


def test_import_does_not_load_the_report_stack():
    # import, then load and compare every bundled scenario: no report stack, no SciPy or SALib
    # (those come only with the uncertainty summaries of a scenario with an uncertainty block); pandas
    # only where a demand file is read (its CSV reader parses a job log column by column), so the
    # scenarios whose demand reads no file are compared first
    code = (
        "import sys, costmodel\n"
        "import yaml\n"
        "from costmodel.paths import scenario_path\n"
        "def reads_a_file(name):\n"
        "    demand = yaml.safe_load(scenario_path(name).read_text()).get('demand') or {}\n"
        "    return demand.get('kind') in ('job_log', 'request_log', 'hourly_file')\n"
        "names = sorted(costmodel.bundled_scenarios(), key=reads_a_file)\n"
        "for name in names:\n"
        "    if reads_a_file(name):\n"
        "        print('files from', name, 'pandas' in sys.modules)\n"
        "    s = costmodel.load_scenario(name)\n"
        "    costmodel.comparison_output(costmodel.compare(s), s, uncertainty=s.uncertainty is None).model_dump()\n"
        "print(len(costmodel.bundled_scenarios()), sorted({m.split('.')[0] for m in sys.modules} & "
        "{'altair', 'papermill', 'nbconvert', 'vl_convert', 'IPython', 'scipy', 'SALib'}))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    *files, last = out.strip().splitlines()
    count, loaded = last.split(" ", 1)
    assert int(count) >= 6 and loaded == "[]"
    # every scenario without a demand file was compared without pandas
    assert files and files[0].endswith(" False"), files


def test_layers_contract_holds():
    # import-linter's contracts in pyproject.toml: one-way layers, no cycles, no report stack below
    # presentation, function-level imports counted
    lint = Path(sys.executable).parent / "lint-imports"
    done = subprocess.run([str(lint)], capture_output=True, text=True, cwd=Path(__file__).parent.parent)
    assert done.returncode == 0, done.stdout[-2000:]
    assert "6 kept, 0 broken" in done.stdout


def test_a_range_with_too_many_gpu_steps_is_refused(capsys):
    # 1e15 tokens/day needs ~1e8 rented H100: the search would walk millions of steps
    assert main(["compare", "llama70b-vs-api", "--volume", "1e15"]) == 2
    err = capsys.readouterr().err
    # F15: the message names the inputs that make the count explode and how to search less
    assert "workload.tokens_per_day" in err and "--volume-max" in err


def test_default_search_range_follows_the_volume_compared(capsys):
    assert main(["compare", "llama70b-vs-api", "--json", "--volume", "1e9"]) == 0
    data = json.loads(capsys.readouterr().out)
    searched = data["break_evens"][0]["searched_from"], data["break_evens"][0]["searched_to"]
    assert [s["value"] for s in searched] == [0.0, 1e10]


def test_zero_volume_text_says_not_defined(capsys):
    assert main(["compare", "llama70b-vs-api", "--volume", "0"]) == 0
    assert "not defined USD/M tokens" in capsys.readouterr().out


def test_report_with_a_bad_scenario_keeps_the_earlier_report(tmp_path, capsys):
    data = yaml.safe_load((SCENARIO_DIR / "llama70b-vs-api.yaml").read_text())
    data["options"]["rent"]["gpu_count"] = -2
    path = tmp_path / "st.yaml"
    path.write_text(yaml.safe_dump(data))
    stale = tmp_path / "out" / report_folder(path) / "report.html"
    stale.parent.mkdir(parents=True)
    stale.write_bytes(b"old \x00 page")
    stale.with_suffix(".ipynb").write_bytes(b"{}")
    # F20: bad input through report exits 2, as on every command
    assert main(["report", str(path), "--out", str(tmp_path / "out")]) == 2
    # F32: the earlier page and its notebook stay, byte for byte, and nothing of the run is left beside them
    assert stale.read_bytes() == b"old \x00 page" and stale.with_suffix(".ipynb").read_bytes() == b"{}"
    assert sorted(p.name for p in stale.parent.iterdir()) == ["report.html", "report.ipynb"]
    assert "options.rent.gpu_count" in capsys.readouterr().err


def test_report_with_a_bad_catalog_keeps_the_earlier_reports(tmp_path, capsys):
    stale = [tmp_path / "out" / name / "report.html" for name in ("llama70b-vs-api", "h200-24gpu-cluster")]
    for page in stale:
        page.parent.mkdir(parents=True)
        page.write_text(f"old {page.parent.name}")
    code = main(
        [
            "report",
            "llama70b-vs-api",
            "h200-24gpu-cluster",
            "--out",
            str(tmp_path / "out"),
            "--catalog",
            str(tmp_path / "no-such-folder"),
        ]
    )
    assert code == 2 and "no-such-folder" in capsys.readouterr().err
    assert [page.read_text() for page in stale] == ["old llama70b-vs-api", "old h200-24gpu-cluster"]  # F32
    # with --out a file, or a scenario name too long for a file name, still exit 2 and no traceback
    (tmp_path / "a-file").write_text("x")
    for out, scenario in ((tmp_path / "a-file", "llama70b-vs-api"), (tmp_path / "out", "b" * 300 + ".yaml")):
        assert main(["report", scenario, "--out", str(out), "--catalog", str(tmp_path / "no-such-folder")]) == 2
        assert "Traceback" not in capsys.readouterr().err


@pytest.mark.slow
def test_report_of_several_scenarios_runs_them_all_and_exits_2_for_the_bad_one(tmp_path, capsys):
    data = yaml.safe_load((SCENARIO_DIR / "llama70b-vs-api.yaml").read_text())
    data["options"]["rent"]["gpu_count"] = -2
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(data))
    out = tmp_path / "out"
    assert main(["report", str(bad), "deepseek-v3-training", "llama31-405b-training", "--out", str(out)]) == 2
    captured = capsys.readouterr()
    assert "options.rent.gpu_count" in captured.err and "1 of 3 reports failed (1 with bad input)" in captured.err
    # both training reports, each its own in the one kept kernel (a clean namespace per report)
    r3 = (out / "deepseek-v3-training" / "report.html").read_text()
    r4 = (out / "llama31-405b-training" / "report.html").read_text()
    assert "R3: DeepSeek-V3" in r3 and "R4: Llama 3.1 405B" not in r3
    assert "R4: Llama 3.1 405B" in r4 and "R3: DeepSeek-V3" not in r4


def test_an_interrupt_wrapped_in_another_error_still_exits_130(monkeypatch, capsys):
    # pydantic-core turns a Ctrl-C that arrives while it builds a validator into a SchemaError
    from costmodel import cli

    def wrapped(args):
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as exc:
            raise RuntimeError("Error building validator") from exc

    def other(args):
        raise RuntimeError("a bug, not an interrupt")

    monkeypatch.setattr(cli, "_compare", wrapped)
    assert cli.main(["compare", "llama70b-vs-api"]) == 130
    assert "interrupted; nothing half-written was left" in capsys.readouterr().err
    monkeypatch.setattr(cli, "_compare", other)
    with pytest.raises(RuntimeError, match="a bug"):
        cli.main(["compare", "llama70b-vs-api"])


def test_a_module_refused_during_report_is_importable_again_after(tmp_path, monkeypatch):
    # `costmodel report` refuses pyarrow while it runs (papermill would import it for nothing); main
    # is also called in-process, so the refusal ends with the command
    from costmodel.cli import _not_imported

    (tmp_path / "refused_for_a_while.py").write_text("VALUE = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with _not_imported("refused_for_a_while"):
        with pytest.raises(ImportError):
            import refused_for_a_while  # noqa: F401
    import refused_for_a_while

    assert refused_for_a_while.VALUE == 1
    with _not_imported("refused_for_a_while"):  # imported already: left alone
        assert sys.modules["refused_for_a_while"] is refused_for_a_while
    assert sys.modules["refused_for_a_while"] is refused_for_a_while


def test_compare_at_a_given_volume_does_not_call_it_the_scenarios(capsys):
    # `compare --volume 50000000` said "on the monthly cost at the scenario's volume, 50,000,000 tokens/day"
    # of R1, whose own volume is 10,000,000
    assert main(["compare", "llama70b-vs-api", "--volume", "50000000"]) == 0
    out = capsys.readouterr().out
    assert "on the monthly cost at 50,000,000 tokens/day." in out and "scenario's volume" not in out.split("\n", 3)[1]
    assert main(["compare", "llama70b-vs-api"]) == 0
    assert "on the monthly cost at the scenario's volume, 10,000,000 tokens/day." in capsys.readouterr().out


@pytest.mark.parametrize("name", sorted(p.stem for p in SCENARIO_DIR.glob("*.yaml")))
def test_compare_text_traces_each_options_monthly_cost_to_its_components(name, capsys):
    # a reviewer reading the terminal saw 16,699.42 for R1's own cluster with nothing to trace it to (only --json
    # and the report had the parts); each option's line is now followed by its components, which add up to it
    from costmodel.presentation.text import comparison_text

    comparison = costmodel.compare(costmodel.load_scenario(name)).comparison
    lines = comparison_text(comparison).splitlines()
    for option in comparison.options.values():
        if not option.components:
            continue
        at = next(i for i, line in enumerate(lines) if line.startswith(f"  {option.label} ") and "   " in line)
        shown = lines[at + 1].split("= ", 1)[1].split(" + ")
        assert len(shown) == len(option.components)
        total = sum(float(part.rsplit(" ", 1)[1].replace(",", "")) for part in shown)
        # each part to the cent: the parts add up to the option's figure within half a cent each
        assert total == pytest.approx(option.monthly_cost, abs=0.005 * len(shown) + 1e-9), (name, option.label)


def test_a_mistyped_bundled_name_is_named_as_typed(capsys):
    # it was named by the package's own path ("/…/data/scenarios/llama70b-vs-ap.yaml: (file): ..."), a path the
    # user never gave
    assert main(["compare", "llama70b-vs-ap"]) == 2
    said = capsys.readouterr().err
    assert said.startswith(
        "costmodel compare: llama70b-vs-ap: (bundled name): no bundled scenario of that name (did you mean "
        "llama70b-vs-api?)"
    )
    assert "data/scenarios" not in said
