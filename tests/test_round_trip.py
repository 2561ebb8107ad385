"""Round-trip editing: save_scenario and the what-if panel's "save as" keep the file's comments,
key order and layout, and change only the values that changed (issue 31)."""

import difflib
import re
from pathlib import Path

import pytest
import yaml

import costmodel
from costmodel.io.yaml_files import edit_yaml, parse_yaml
from costmodel.paths import SCENARIO_DIR
from costmodel.scenarios import origin_path, scenario_data, scenario_text, with_inputs

R1 = "llama70b-vs-api"
R1_FILE = SCENARIO_DIR / f"{R1}.yaml"


def comment_lines(text: str) -> list[str]:
    """Every whole-line comment, and every end-of-line comment, of a YAML text, in order."""
    found = []
    for line in text.splitlines():
        if line.lstrip().startswith("#"):
            found.append(line.strip())
        elif " #" in line and not line.lstrip().startswith(("'", '"')):
            found.append(line[line.index(" #") :].strip())
    return found


def key_order(node, prefix="") -> list[str]:
    """The dotted path of every mapping key, in the order the file gives them."""
    keys = []
    if isinstance(node, dict):
        for key, value in node.items():
            keys.append(prefix + key)
            keys += key_order(value, f"{prefix}{key}.")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            keys += key_order(value, f"{prefix}{i}.")
    return keys


def changed_lines(before: str, after: str) -> list[tuple[str, str]]:
    diff = [line for line in difflib.ndiff(before.splitlines(), after.splitlines()) if line[:1] in "+-"]
    return [(a[2:], b[2:]) for a, b in zip(diff[::2], diff[1::2], strict=True)]


@pytest.mark.parametrize("name", costmodel.bundled_scenarios())
def test_a_bundled_scenario_saved_unchanged_is_its_file_byte_for_byte(tmp_path, name):
    path = costmodel.save_scenario(costmodel.load_scenario(name), tmp_path / "saved.yaml")
    assert path.read_text(encoding="utf-8") == (SCENARIO_DIR / f"{name}.yaml").read_text(encoding="utf-8")


def test_one_value_changed_keeps_every_comment_and_the_key_order(tmp_path):
    original = R1_FILE.read_text(encoding="utf-8")
    assert len(comment_lines(original)) >= 20  # a commented file: the test has something to lose
    changed = costmodel.with_inputs(costmodel.load_scenario(R1), {"options.own.power.pue": 1.42})
    saved = costmodel.save_scenario(changed, tmp_path / "r1.yaml").read_text(encoding="utf-8")
    assert comment_lines(saved) == comment_lines(original)
    assert key_order(yaml.safe_load(saved)) == key_order(yaml.safe_load(original))
    # one line changed: the PUE's, with its end-of-line comment (the source) still after it
    assert changed_lines(original, saved) == [
        (
            "      pue: 1.56               # Uptime Institute Global Data Center Survey 2024, industry average",
            "      pue: 1.42               # Uptime Institute Global Data Center Survey 2024, industry average",
        )
    ]
    again = costmodel.load_scenario(tmp_path / "r1.yaml")
    assert again.options.own.power.pue == 1.42
    assert again.model_dump() == changed.model_dump()


def test_a_whole_number_is_written_as_one_and_text_that_yaml_1_1_would_misread_is_quoted(tmp_path):
    changed = costmodel.with_inputs(
        costmodel.load_scenario(R1), {"workload.tokens_per_day": 12_000_000, "title": "yes", "fx.source": "2025-01-01"}
    )
    saved = costmodel.save_scenario(changed, tmp_path / "r1.yaml").read_text(encoding="utf-8")
    assert re.search(r"^  tokens_per_day: 12000000 +# \[tokens/day\]", saved, re.M)
    data = yaml.safe_load(saved)  # PyYAML reads YAML 1.1: yes is true, a date a date
    assert data["title"] == "yes" and data["fx"]["source"] == "2025-01-01"
    assert costmodel.load_scenario(tmp_path / "r1.yaml").model_dump() == changed.model_dump()


def test_a_block_switched_off_goes_with_its_lines_and_the_comments_around_it_stay(tmp_path):
    original = (SCENARIO_DIR / "h200-24gpu-cluster.yaml").read_text(encoding="utf-8")
    changed = costmodel.with_inputs(costmodel.load_scenario("h200-24gpu-cluster"), {"finance": None})
    saved = costmodel.save_scenario(changed, tmp_path / "r2.yaml").read_text(encoding="utf-8")
    block = original[original.index("\nfinance:") : original.index("\nuncertainty:")]
    assert comment_lines(saved) == [c for c in comment_lines(original) if c not in comment_lines(block)]
    assert saved == original.replace(block, "")
    assert costmodel.load_scenario(tmp_path / "r2.yaml").finance is None


def test_a_deleted_key_leaves_the_comment_lines_that_introduce_the_next_one():
    text = "a: 1  # one\n# about b\nb: 2\n# about c\nc:\n  x: 1   # ex\n  # about y\n  y: 2\nd: 3\n"
    before = {"a": 1, "b": 2, "c": {"x": 1, "y": 2}, "d": 3}
    assert (
        edit_yaml(text, before, {**before, "b": None}, {"a": 1, "c": {"x": 1, "y": 2}, "d": 3})
        == "a: 1  # one\n# about b\n# about c\nc:\n  x: 1   # ex\n  # about y\n  y: 2\nd: 3\n"
    )
    # the first key of a mapping: its following comment lines move before the next key
    assert (
        edit_yaml(text, before, {**before, "c": {"x": None, "y": 2}}, {"a": 1, "b": 2, "c": {"y": 2}, "d": 3})
        == "a: 1  # one\n# about b\nb: 2\n# about c\nc:\n  # about y\n  y: 2\nd: 3\n"
    )
    # a whole block: the lines after its last value stay
    block = "a: 1\nc:\n  x: 1\n  y: 2   # why\n# about d\nd: 3\n"
    assert (
        edit_yaml(block, {"a": 1, "c": {"x": 1, "y": 2}, "d": 3}, {"a": 1, "c": None, "d": 3}, {"a": 1, "d": 3})
        == "a: 1\n# about d\nd: 3\n"
    )


def test_a_new_field_is_added_after_the_others(tmp_path):
    changed = costmodel.with_inputs(costmodel.load_scenario(R1), {"options.own.spare_share": 0.05})
    saved = costmodel.save_scenario(changed, tmp_path / "r1.yaml").read_text(encoding="utf-8")
    assert comment_lines(saved) == comment_lines(R1_FILE.read_text(encoding="utf-8"))
    assert costmodel.load_scenario(tmp_path / "r1.yaml").model_dump() == changed.model_dump()


def test_a_scenario_with_no_file_is_written_plainly_and_a_template_can_be_named(tmp_path):
    data = parse_yaml(R1_FILE.read_text(encoding="utf-8"), R1_FILE)
    built = costmodel.validate_data(data)  # from data: no file to edit
    assert origin_path(built) is None
    assert scenario_text(built) == costmodel.io.yaml_files.dump_yaml(scenario_data(built))
    assert not scenario_text(built).startswith("#")
    named = costmodel.save_scenario(built, tmp_path / "r1.yaml", template=R1)
    assert named.read_text(encoding="utf-8") == R1_FILE.read_text(encoding="utf-8")


def test_the_origin_follows_with_inputs_and_is_the_loaded_file():
    loaded = costmodel.load_scenario(R1)
    assert Path(origin_path(loaded)) == R1_FILE
    assert Path(origin_path(costmodel.with_inputs(loaded, {"options.own.power.pue": 1.3}))) == R1_FILE


def test_the_what_if_panels_save_as_keeps_the_files_comments_and_order(tmp_path):
    pytest.importorskip("ipywidgets")
    panel = costmodel.what_if(R1, ["options.own.power.pue", "options.api.output_price_per_million"])
    panel.sliders["options.own.power.pue"].value = 1.3
    panel.sliders["options.api.output_price_per_million"].value = 12.5  # a catalog figure: under overrides
    saved = panel.save(tmp_path / "r1-what-if.yaml").read_text(encoding="utf-8")
    original = R1_FILE.read_text(encoding="utf-8")
    head, body = saved.split("\n", 2)[:2], saved.split("\n", 2)[2]
    assert head[0].startswith("# What-if of") and head[1].startswith("# changed: ")
    assert comment_lines(body) == comment_lines(original)
    assert key_order(yaml.safe_load(body))[: len(key_order(yaml.safe_load(original)))] == key_order(
        yaml.safe_load(original)
    )
    assert key_order(yaml.safe_load(body))[-4:] == [
        "overrides",
        "overrides.values",
        "overrides.values.options.api.output_price_per_million",
        "overrides.source",
    ]
    again = costmodel.load_scenario(tmp_path / "r1-what-if.yaml")
    assert again.options.own.power.pue == 1.3
    assert again.overrides.values == {"options.api.output_price_per_million": 12.5}


def test_a_value_changed_under_an_alias_changes_that_place_only_and_keeps_the_comments(tmp_path):
    """An anchored block (``&eng``) used again by an alias (``*eng``): changing the rent option's copy
    wrote the whole file plainly (every comment and the key order lost), since editing the one shared
    node changed both options; now only the aliased place is written out, with its new value."""
    text = (SCENARIO_DIR / "llama70b-vs-api.yaml").read_text(encoding="utf-8")
    block = (
        "    staffing:\n      fte: 1\n      loaded_cost_per_fte_per_year: 72000\n      currency: EUR\n"
        '      source: "R1 brief: one engineer at about EUR 6,000/month"\n'
    )
    assert text.count(block) == 2
    own_at = text.index(block)
    text = text[:own_at] + block.replace("staffing:", "staffing: &eng", 1) + text[own_at + len(block) :]
    text = text.replace(block, "    staffing: *eng   # the same engineer\n", 1)
    source = tmp_path / "aliased.yaml"
    source.write_text(text, encoding="utf-8")
    scenario = costmodel.load_scenario(source)
    saved = costmodel.save_scenario(with_inputs(scenario, {"options.rent.staffing.fte": 2}), tmp_path / "out.yaml")
    again = costmodel.load_scenario(saved)
    assert again.options.own.staffing.fte == 1 and again.options.rent.staffing.fte == 2
    written = saved.read_text(encoding="utf-8")
    comments = [line[line.index("#") :] for line in text.splitlines() if "#" in line and '"' not in line]
    assert comments and all(comment in written for comment in comments)
    assert "  rent:\n    offer: r1-brief-h100\n" in written and "      fte: 2\n" in written


def test_a_file_with_crlf_line_ends_is_saved_with_crlf_line_ends(tmp_path):
    """A scenario written by a Windows editor (CR LF) came back with LF line ends: a diff of the
    saved file against the original changed every line."""
    text = R1_FILE.read_text(encoding="utf-8")
    source = tmp_path / "windows.yaml"
    source.write_bytes(text.replace("\n", "\r\n").encode("utf-8"))
    scenario = costmodel.load_scenario(source)
    saved = costmodel.save_scenario(with_inputs(scenario, {"options.rent.gpu_count": 4}), tmp_path / "out.yaml")
    data = saved.read_bytes()
    assert data.count(b"\r\n") == data.count(b"\n") == text.count("\n")
    assert data.decode("utf-8").replace("\r\n", "\n") == text.replace("    gpu_count: 2\n", "    gpu_count: 4\n", 1)
    assert costmodel.load_scenario(saved).options.rent.gpu_count == 4
    panel = costmodel.what_if(str(source), ["options.rent.gpu_count"])
    panel_file = panel.save(tmp_path / "panel.yaml")
    assert panel_file.read_bytes().count(b"\r\n") == panel_file.read_bytes().count(b"\n")
    unix = costmodel.save_scenario(
        with_inputs(costmodel.load_scenario(R1), {"options.rent.gpu_count": 4}), tmp_path / "unix.yaml"
    )
    assert b"\r" not in unix.read_bytes()
