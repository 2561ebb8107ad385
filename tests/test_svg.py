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

BARS = {"mark": "bar", "data": {"values": [{"option": "Own cluster", "cost": 3}, {"option": "Hosted API", "cost": 5}]},
        "encoding": {"x": {"field": "option", "type": "nominal"}, "y": {"field": "cost", "type": "quantitative"}}}


def chart_output(spec: dict, description: str) -> nbformat.NotebookNode:
    return nbformat.v4.new_output("display_data", data={CHART_MIMETYPE: json.dumps(spec), "text/plain": description},
                                  metadata={CHART_MIMETYPE: {"alt": description}})


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
    assert " at " not in str(caught.value)          # vl-convert's reason without its JavaScript stack
    # the process goes on drawing after a refusal
    assert "<svg" in drawer.svg(drawer.submit(json.dumps(BARS)), timeout=120)


def test_fill_puts_the_svg_and_the_spec_where_each_chart_was(drawer):
    other = dict(BARS, data={"values": [{"option": "Cloud rental", "cost": 4}]})
    text = nbformat.v4.new_output("display_data", data={"text/markdown": "between"})
    cell = nbformat.v4.new_code_cell("", outputs=[chart_output(BARS, "first < chart"), text,
                                                  chart_output(other, "second chart")])
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# t"), cell])
    assert fill_charts(notebook, drawer, {}, timeout=120) == 2
    outputs = notebook.cells[1].outputs
    assert [list(o.data) for o in outputs] == [["image/svg+xml", "text/plain"], ["text/html"], ["text/markdown"],
                                               ["image/svg+xml", "text/plain"], ["text/html"]]
    assert outputs[0].metadata["image/svg+xml"]["alt"] == "first < chart"
    assert "Own cluster" in outputs[0].data["image/svg+xml"] and "Cloud rental" in outputs[3].data["image/svg+xml"]
    assert json.loads(outputs[4].data["text/html"].split(">", 1)[1].rsplit("<", 1)[0]) == other
    nbformat.validate(notebook)


def test_a_chart_that_cannot_be_drawn_names_its_cell():
    with ChartDrawer() as drawer:
        notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("", outputs=[
            chart_output({"mark": "no-such-mark"}, "broken chart")])])
        with pytest.raises(ChartError, match="cell 0: chart 'broken chart'"):
            fill_charts(notebook, drawer, {}, timeout=120)


def test_the_static_drawing_leaves_out_only_the_pan_and_zoom_binding():
    zoom = {"name": "costmodel_zoom", "select": {"type": "interval", "encodings": ["x"]}, "bind": "scales"}
    pick = {"name": "pick", "select": "point"}
    spec = {"layer": [{"mark": "line", "params": [zoom, pick]}, {"mark": "rule", "params": [zoom]}]}
    assert static_spec(spec) == {"layer": [{"mark": "line", "params": [pick]}, {"mark": "rule"}]}


def test_no_text_in_a_spec_can_close_its_script_element():
    script = spec_script({"title": "</script><script>alert(1)</script>"})
    assert script.count("</script>") == 1 and "\\u003c/script>" in script
