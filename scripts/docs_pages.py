"""Pages of the docs site made from the code at build time (mkdocs-gen-files runs this).

Three reference pages are written from what the package itself holds, so they cannot drift from it:

- ``reference/formulas.md``: every name of ``costmodel.formulas.__all__`` with the first line of its
  docstring, the unit of what it returns and its references;
- ``reference/scenario-file.md``: every field of ``data/schemas/scenario.schema.json``, block by block;
- ``reference/api/*.md``: one page per public module, rendered by mkdocstrings from the docstrings.

Run by ``mkdocs build`` (see ``mkdocs.yml``); ``python scripts/docs_pages.py`` prints the formula index.
"""

from __future__ import annotations

import importlib
import inspect
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCENARIO_SCHEMA = ROOT / "data" / "schemas" / "scenario.schema.json"

# The public modules the API reference renders: those ``costmodel`` lists as its submodules, with
# the modules of each package. The report runner, the kernel and the command line are entry points,
# documented by the guide's command-line page instead.
API_MODULES = [
    "costmodel",
    "costmodel.scenarios",
    "costmodel.schema",
    "costmodel.resolved",
    "costmodel.results",
    "costmodel.catalog",
    "costmodel.formulas",
    "costmodel.domain",
    "costmodel.presentation",
    "costmodel.io",
    "costmodel.units",
    "costmodel.errors",
    "costmodel.paths",
    "costmodel.files",
    "costmodel.extras",
]

UNIT_AT_END = re.compile(r"\[([^\[\]]+)\]\s*$")


def cell(text: str) -> str:
    """Text made safe for one cell of a Markdown table: one line, pipes escaped."""
    return " ".join(str(text).split()).replace("|", "\\|")


def reference_entries(text: str) -> list[str]:
    """The entries of a numpydoc References section (``.. [1] ...``), each on one line, markers removed."""
    match = re.search(r"^References\n-+\n(.*?)(?=\n\n[A-Z][A-Za-z ]+\n-+\n|\Z)", text, re.S | re.M)
    if not match:
        return []
    entries = re.split(r"^\.\. \[\w+\]\s*", match.group(1), flags=re.M)
    return [" ".join(entry.split()) for entry in entries if entry.strip()]


def cited(entry: str, text: str) -> bool:
    """Whether a docstring names a reference entry: its author or body ("The Green Grid"), or its first
    word and year ("Daly 2006")."""
    key = re.split(r"[(,:]", entry, maxsplit=1)[0].strip()
    key = key[4:] if key.startswith("The ") else key
    year = re.search(r"\b(?:19|20)\d\d\b", entry)
    words = re.findall(r"[A-Za-z][\w-]+", key)
    candidates = [key] + (
        [f"{words[0]} {year.group(0)}", f"{words[0]} et al. {year.group(0)}"] if words and year else []
    )
    candidates += re.findall(r"arXiv[: ]\s*(\d{4}\.\d{4,5})", entry)  # an arXiv id named in an example
    return any(candidate and candidate in text for candidate in candidates)


def docstring_sections(obj) -> tuple[str, str, str]:
    """First line, unit of the return value and references of a formula's numpydoc docstring.

    The unit is the bracket at the end of the Returns section's text, else of the first line (the
    house style puts the unit of a one-value function there). The references are the docstring's own
    References section, else the entries of its module's References section that the docstring names.
    """
    from griffe import Docstring, DocstringSectionKind

    text = inspect.getdoc(obj) or ""
    first = text.strip().splitlines()[0] if text.strip() else ""
    unit = ""
    for section in Docstring(text, parser="numpy", parser_options={"warn_missing_types": False}).parse():
        if section.kind is DocstringSectionKind.returns and not unit:
            found = UNIT_AT_END.search(" ".join(item.description for item in section.value))
            unit = found.group(1) if found else ""
    found = UNIT_AT_END.search(first)
    if not unit and found:
        unit = found.group(1)
    summary = UNIT_AT_END.sub("", first).strip()
    references = reference_entries(text)
    if not references:
        module = sys.modules.get(getattr(obj, "__module__", ""))
        references = [entry for entry in reference_entries(inspect.getdoc(module) or "") if cited(entry, text)]
    return summary, unit, "; ".join(references)


def formula_index() -> str:
    """The formula index page: one row per name of ``costmodel.formulas.__all__``."""
    formulas = importlib.import_module("costmodel.formulas")
    rows = []
    for name in formulas.__all__:
        obj = getattr(formulas, name)
        summary, unit, references = docstring_sections(obj)
        link = f"[`{name}`](api/formulas.md#costmodel.formulas.{name})"
        rows.append(f"| {link} | {cell(summary)} | {cell(unit) or '—'} | {cell(references) or '—'} |")
    return "\n".join(
        [
            "# Formula index",
            "",
            f"Every formula of `costmodel.formulas` ({len(formulas.__all__)} functions of plain numbers, numpy",
            "arrays or pandas Series), written at build time from `costmodel.formulas.__all__`: the first line",
            "of each docstring, the unit of what it returns (from its Returns section, else from the bracket",
            "closing its first line) and its references (its own References section, else the entries of its",
            "module's References that the docstring names). "
            "Each name links to its full docstring in the API reference.",
            "",
            "| formula | what it computes | unit | reference |",
            "|---|---|---|---|",
            *rows,
            "",
            "## References by module",
            "",
            "Each module's References section, whole: the sources of its formulas, including those a",
            "formula's docstring does not name.",
            "",
            *module_references(formulas.__all__, formulas),
        ]
    )


def module_references(names, formulas) -> list[str]:
    """Each formula module's References entries as a list under the module's name."""
    lines = []
    modules = dict.fromkeys(getattr(getattr(formulas, name), "__module__", "") for name in names)
    for module in sorted(name for name in modules if name in sys.modules):
        entries = reference_entries(inspect.getdoc(sys.modules[module]) or "")
        if entries:
            lines += [f"`{module}`", "", *(f"- {entry}" for entry in entries), ""]
    return lines


def _anchor(name: str) -> str:
    return "def-" + re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def _type(spec: dict) -> str:
    """A field's type in words, each named block linked to its section."""
    if "$ref" in spec:
        name = spec["$ref"].rsplit("/", 1)[-1]
        return f"[{name}](#{_anchor(name)})"
    for key in ("anyOf", "oneOf", "allOf"):
        if key in spec:
            kinds = [_type(s) for s in spec[key] if s.get("type") != "null"]
            text = " or ".join(dict.fromkeys(kinds))
            return text + (" or null" if any(s.get("type") == "null" for s in spec[key]) else "")
    if "const" in spec:
        return f"`{json.dumps(spec['const'])}`"
    if "enum" in spec:
        return "one of " + ", ".join(f"`{json.dumps(v)}`" for v in spec["enum"])
    kind = spec.get("type", "any")
    if isinstance(kind, list):
        return " or ".join(kind)
    if kind == "array":
        return f"list of {_type(spec.get('items', {}))}"
    if kind == "object" and isinstance(spec.get("additionalProperties"), dict):
        return f"mapping of text to {_type(spec['additionalProperties'])}"
    return kind


def _rule(spec: dict) -> str:
    """The bounds, lengths and pattern a field must meet, as written in the schema."""
    parts = []
    for key, word in (("minimum", "≥"), ("exclusiveMinimum", ">"), ("maximum", "≤"), ("exclusiveMaximum", "<")):
        if key in spec:
            parts.append(f"{word} {spec[key]}")
    for key, word in (
        ("minLength", "length ≥"),
        ("maxLength", "length ≤"),
        ("minItems", "items ≥"),
        ("maxItems", "items ≤"),
    ):
        if key in spec:
            parts.append(f"{word} {spec[key]}")
    if "pattern" in spec:
        parts.append(f"matches `{spec['pattern']}`")
    for key in ("anyOf", "oneOf"):
        for sub in spec.get(key, []):
            inner = _rule(sub)
            if inner:
                parts.append(inner)
    return ", ".join(dict.fromkeys(parts))


def _fields(block: dict) -> list[str]:
    required = set(block.get("required", []))
    rows = ["| field | type | unit | default | rule | description |", "|---|---|---|---|---|---|"]
    for field, spec in block.get("properties", {}).items():
        title = spec.get("title", "")
        description = spec.get("description", "")
        text = description if not title or title.lower() == field.replace("_", " ") else f"{title}. {description}"
        default = (
            "required" if field in required else (f"`{json.dumps(spec['default'])}`" if "default" in spec else "—")
        )
        rows.append(
            f"| `{field}` | {cell(_type(spec))} | {cell(spec.get('unit', '')) or '—'} | {cell(default)} | "
            f"{cell(_rule(spec)) or '—'} | {cell(text) or '—'} |"
        )
    return rows


def _description(block: dict) -> list[str]:
    text = block.get("description", "").strip()
    return [text.replace(":func:", "").replace(":class:", "").replace(":mod:", ""), ""] if text else []


def scenario_reference() -> str:
    """The scenario-file reference: the top level, then every block in the order it is first met."""
    schema = json.loads(SCENARIO_SCHEMA.read_text())
    definitions = schema.get("$defs", {})
    order: list[str] = []

    def visit(node):
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/"):
                name = ref.rsplit("/", 1)[-1]
                if name not in order and name in definitions:
                    order.append(name)
                    visit(definitions[name])
            for value in node.values():
                visit(value)
        elif isinstance(node, list):
            for value in node:
                visit(value)

    visit(schema.get("properties", {}))
    order += [name for name in definitions if name not in order]
    lines = [
        "# Scenario file reference",
        "",
        "Every field a scenario file may hold, written at build time from",
        "`data/schemas/scenario.schema.json` (the schema `costmodel schema` prints, and the one editors use",
        "for completion; see [Scenario files](../guide/scenario-files.md)). A unit in brackets is the",
        "unit the field is read in; money fields are in the currency the block names. Each block's fields",
        "are listed in its own section; a type links to the block it names.",
        "",
        f"## {schema.get('title', 'Scenario')} (the top level) {{#{_anchor(schema.get('title', 'Scenario'))}}}",
        "",
        *_description(schema),
        *_fields(schema),
        "",
    ]
    for name in order:
        block = definitions[name]
        lines += [f"## {name} {{#{_anchor(name)}}}", "", *_description(block)]
        if block.get("properties"):
            lines += _fields(block)
        else:
            lines.append(f"A value of type {_type(block)}.")
        lines.append("")
    return "\n".join(lines)


def api_pages() -> dict[str, str]:
    """One page per public module; a package's page also renders its public submodules."""
    pages = {}
    for module in API_MODULES:
        name = module.split(".", 1)[1] if "." in module else "index"
        title = f"`{module}`"
        body = [f"# {title}", "", f"::: {module}"]
        if (
            module == "costmodel"
        ):  # the package's docstring, then its public names (`__all__`), each loaded on first use
            body += [
                "    options:",
                "      show_root_heading: false",
                "      members_order: alphabetical",
                "      show_submodules: false",
            ]
        elif module in {"costmodel.domain", "costmodel.presentation", "costmodel.io", "costmodel.schema"}:
            body += ["    options:", "      show_submodules: true"]
        pages[f"reference/api/{name}.md"] = "\n".join(body) + "\n"
    return pages


def main() -> None:
    import mkdocs_gen_files

    with mkdocs_gen_files.open("reference/formulas.md", "w") as out:
        out.write(formula_index())
    with mkdocs_gen_files.open("reference/scenario-file.md", "w") as out:
        out.write(scenario_reference())
    for path, text in api_pages().items():
        with mkdocs_gen_files.open(path, "w") as out:
            out.write(text)


if __name__ == "<run_path>":  # run by mkdocs-gen-files during a build
    main()
elif __name__ == "__main__":
    print(formula_index())
