"""Charts drawn to SVG by the report runner's drawing process (costmodel.presentation.svg)."""

from __future__ import annotations

import json

import nbformat
import pytest

from costmodel.presentation.svg import (
    CHART_MIMETYPE,
    ChartDrawer,
    ChartError,
    fill_charts,
    spec_script,
    static_spec,
)

BARS = {
    "mark": "bar",
    "data": {"values": [{"option": "Own cluster", "cost": 3}, {"option": "Hosted API", "cost": 5}]},
    "encoding": {"x": {"field": "option", "type": "nominal"}, "y": {"field": "cost", "type": "quantitative"}},
}


def chart_output(spec: dict, description: str) -> nbformat.NotebookNode:
    return nbformat.v4.new_output(
        "display_data",
        data={CHART_MIMETYPE: json.dumps(spec), "text/plain": description},
        metadata={CHART_MIMETYPE: {"alt": description}},
    )


@pytest.fixture(scope="module")
def drawer():
    with ChartDrawer() as made:
        yield made


def test_a_spec_comes_back_as_svg_with_its_labels(drawer):
    svg = drawer.svg(drawer.submit(json.dumps(BARS)), timeout=120)
    assert svg.lstrip().startswith("<svg") and "Own cluster" in svg and "Hosted API" in svg


def test_a_spec_vl_convert_refuses_is_an_error_naming_the_reason(drawer):
    key = drawer.submit(json.dumps({"mark": "no-such-mark", "data": {"values": []}}))
    with pytest.raises(ChartError, match="conversion failed") as caught:
        drawer.svg(key, timeout=120)
    assert " at " not in str(caught.value)  # vl-convert's reason without its JavaScript stack
    # the process goes on drawing after a refusal
    assert "<svg" in drawer.svg(drawer.submit(json.dumps(BARS)), timeout=120)


def test_fill_puts_the_svg_and_the_spec_where_each_chart_was(drawer):
    other = dict(BARS, data={"values": [{"option": "Cloud rental", "cost": 4}]})
    text = nbformat.v4.new_output("display_data", data={"text/markdown": "between"})
    cell = nbformat.v4.new_code_cell(
        "", outputs=[chart_output(BARS, "first < chart"), text, chart_output(other, "second chart")]
    )
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# t"), cell])
    assert fill_charts(notebook, drawer, {}, timeout=120) == 2
    outputs = notebook.cells[1].outputs
    assert [list(o.data) for o in outputs] == [
        ["image/svg+xml", "text/plain"],
        ["text/html"],
        ["text/markdown"],
        ["image/svg+xml", "text/plain"],
        ["text/html"],
    ]
    assert outputs[0].metadata["image/svg+xml"]["alt"] == "first < chart"
    assert "Own cluster" in outputs[0].data["image/svg+xml"] and "Cloud rental" in outputs[3].data["image/svg+xml"]
    assert json.loads(outputs[4].data["text/html"].split(">", 1)[1].rsplit("<", 1)[0]) == other
    nbformat.validate(notebook)


def test_a_chart_that_cannot_be_drawn_names_its_cell():
    with ChartDrawer() as drawer:
        notebook = nbformat.v4.new_notebook(
            cells=[nbformat.v4.new_code_cell("", outputs=[chart_output({"mark": "no-such-mark"}, "broken chart")])]
        )
        with pytest.raises(ChartError, match="cell 0: chart 'broken chart'"):
            fill_charts(notebook, drawer, {}, timeout=120)


def test_the_static_drawing_leaves_out_only_the_pan_and_zoom_binding():
    zoom = {"name": "costmodel_zoom", "select": {"type": "interval", "encodings": ["x"]}, "bind": "scales"}
    pick = {"name": "pick", "select": "point"}
    spec = {"layer": [{"mark": "line", "params": [zoom, pick]}, {"mark": {"type": "rule", "clip": False}}]}
    # the marks keep the clipping to the plot that the binding gave them (one left unclipped stays so)
    assert static_spec(spec) == {
        "layer": [{"mark": {"type": "line", "clip": True}, "params": [pick]}, {"mark": {"type": "rule", "clip": False}}]
    }
    assert static_spec({"mark": "bar", "params": [pick]}) == {"mark": "bar", "params": [pick]}


def test_the_static_drawing_is_the_interactive_charts_first_view():
    # vl-convert's drawing of the whole spec (pan and zoom bound) and of the static one: the same
    # SVG but for the clip paths' running numbers
    import re

    import vl_convert

    import costmodel
    from costmodel.presentation import charts, sections

    model = costmodel.resolve(costmodel.load_scenario("llama70b-vs-api"))
    spec = sections.interactive_dict(charts.gpu_count_steps(model))
    assert any(p.get("bind") == "scales" for p in spec["layer"][0]["params"])
    whole = vl_convert.vegalite_to_svg(spec)
    static = vl_convert.vegalite_to_svg(static_spec(spec))
    assert whole.count("clip-path=") == 3
    assert re.sub(r"clip\d+", "clip", whole) == re.sub(r"clip\d+", "clip", static)


def test_no_text_in_a_spec_can_close_its_script_element():
    script = spec_script({"title": "</script><script>alert(1)</script>"})
    assert script.count("</script>") == 1 and "\\u003c/script>" in script
