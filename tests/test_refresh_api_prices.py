"""data/api_prices.csv, api_price_windows.csv and the not-imported list are what
scripts/refresh_api_prices.py writes from the pinned genai-prices 0.2.3 (offline, in-process)."""

from __future__ import annotations

import csv
import importlib.util
import io
import re
from importlib.metadata import version

import pytest

from costmodel.catalog import load_catalog
from costmodel.paths import DATA_DIR

SCRIPT = DATA_DIR.parent / "scripts" / "refresh_api_prices.py"
PRICES, WINDOWS = DATA_DIR / "api_prices.csv", DATA_DIR / "api_price_windows.csv"
TIERS, HISTORY = DATA_DIR / "api_price_tiers.csv", DATA_DIR / "api_price_history.csv"
NOT_IMPORTED = DATA_DIR / "sources" / "genai-prices" / "not_imported.csv"


@pytest.fixture(scope="module")
def script():
    spec = importlib.util.spec_from_file_location("refresh_api_prices", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def built(script):
    return script.build(
        PRICES.read_text(encoding="utf-8"),
        WINDOWS.read_text(encoding="utf-8"),
        TIERS.read_text(encoding="utf-8"),
        HISTORY.read_text(encoding="utf-8"),
    )


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


def _rows(text: str) -> list[dict]:
    return list(csv.DictReader(io.StringIO(text)))


# --- the committed files are the script's output ------------------------------------------------------------


def test_committed_files_are_the_scripts_output(built):
    assert version("genai-prices") == "0.2.3"
    prices, windows, tiers, history, not_imported, report = built
    assert prices == PRICES.read_text(encoding="utf-8")
    assert windows == WINDOWS.read_text(encoding="utf-8")
    assert tiers == TIERS.read_text(encoding="utf-8")
    assert history == HISTORY.read_text(encoding="utf-8")
    assert not_imported == NOT_IMPORTED.read_text(encoding="utf-8")
    assert report == []  # no mapped row differs from the package, no override is shadowed


def test_check_reports_added_removed_and_changed_rows(script, tmp_path, capsys):
    files = {name: tmp_path / name for name in ("api_prices.csv", "api_price_windows.csv", "not_imported.csv")}
    text = PRICES.read_text(encoding="utf-8")
    rows = _rows(text)
    edited = [r for r in rows if r["offer"] != "openai-gpt-5"] + [dict(rows[0], offer="zz-gone")]
    for row in edited:
        if row["offer"] == "groq-qwen-qwen3-32b":
            row["output_per_million"] = "9"
    out = io.StringIO()
    writer = csv.DictWriter(out, script.COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(edited)
    files["api_prices.csv"].write_text(out.getvalue(), encoding="utf-8")
    files["api_price_windows.csv"].write_text(WINDOWS.read_text(encoding="utf-8"), encoding="utf-8")
    files["not_imported.csv"].write_text(NOT_IMPORTED.read_text(encoding="utf-8"), encoding="utf-8")
    args = [
        "--check",
        "--path",
        str(files["api_prices.csv"]),
        "--windows",
        str(files["api_price_windows.csv"]),
        "--not-imported",
        str(files["not_imported.csv"]),
    ]
    assert script.main(args) == 1
    printed = capsys.readouterr().out
    assert "api_prices.csv: added openai-gpt-5" in printed
    assert "api_prices.csv: changed groq-qwen-qwen3-32b: output_per_million '9' -> '0.59'" in printed
    # zz-gone is a copy of a generated row under another id: the package has no such model
    assert "api_prices.csv: removed zz-gone" in printed
    assert files["api_prices.csv"].read_text(encoding="utf-8") == out.getvalue()  # --check writes nothing
    files["api_prices.csv"].write_text(text, encoding="utf-8")
    assert script.main(args) == 0 and "up to date" in capsys.readouterr().out


# --- counts the issue asks for ------------------------------------------------------------------------------


def test_at_least_500_offers_from_20_providers(catalog, script):
    generated = [o for o in catalog.api_offers.values() if o.source.startswith("genai-prices 0.2.3 package data (")]
    assert len(catalog.api_offers) >= 500 and len(generated) >= 500
    assert len({o.provider for o in generated}) >= 20
    for offer in generated:  # every row names the package, its model id and a grade; ids are slugs
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", offer.offer), offer.offer
        assert offer.quality == "S" and "transcribing http" in offer.source
        assert offer.offer in script.MAPPING or "genai-prices id " in offer.notes  # mapped rows keep their notes


@pytest.mark.parametrize(
    "model, pattern",
    [
        ("Qwen3 32B", r"qwen-?3-32b"),
        ("Qwen3 30B-A3B", r"qwen-?3-30b-a3b"),
        ("Llama 3.3 70B", r"llama-3-3-70b"),
        ("DeepSeek V3", r"deepseek-(v3|chat-v3)(-0324)?$"),
        ("DeepSeek R1", r"deepseek-r1(-0528)?$"),
        ("gpt-oss-120b", r"gpt-oss-120b$"),
        ("gpt-oss-20b", r"gpt-oss-20b$"),
    ],
)
def test_open_weight_models_have_two_providers(catalog, model, pattern):
    providers = {o.provider for o in catalog.api_offers.values() if re.search(pattern, o.offer)}
    assert len(providers) >= 2, (model, providers)


def test_the_seven_existing_rows_keep_their_ids_and_figures(catalog):
    # Bundled scenarios and golden files use these (figures as of commit dd715eb).
    rows = catalog.api_offers
    expected = {
        "anthropic-claude-opus-4-5": (5, 0.5, 25, 6.25, 10, 0.5),
        "anthropic-claude-sonnet-4-5": (3, 0.3, 15, 3.75, 6, 0.5),
        "anthropic-claude-haiku-4-5": (1, 0.1, 5, 1.25, 2, 0.5),
        "together-llama-3-3-70b-turbo": (0.88, None, 0.88, None, None, None),
        "groq-llama-3-3-70b-versatile": (0.59, None, 0.79, None, None, None),
        "deepseek-chat-v3": (0.27, 0.07, 1.10, None, None, None),
        "deepseek-v4-1-flash": (0.30, 0.006, 1.20, None, None, None),
    }
    for offer, figures in expected.items():
        row = rows[offer]
        assert (
            row.input_per_million,
            row.cached_input_per_million,
            row.output_per_million,
            row.cache_write_5m_per_million,
            row.cache_write_1h_per_million,
            row.batch_multiplier,
        ) == figures
    sonnet = rows["anthropic-claude-sonnet-4-5"]
    assert (
        sonnet.long_context_threshold_tokens,
        sonnet.long_context_input_per_million,
        sonnet.long_context_output_per_million,
    ) == (200_000, 6.0, 22.5)
    assert [w.offer for w in load_catalog().api_price_windows.values()].count("deepseek-v4-1-flash") == 3


# --- prices checked by hand against the pages cited ---------------------------------------------------------


def test_qwen3_32b_on_cerebras_by_hand(catalog):
    # inference-docs.cerebras.ai/models/qwen-3-32b (Cerebras' model page, stored copy), "Pricing":
    # Input $0.40 / M tokens, Output $0.80 / M tokens; no cached-input price listed.
    row = catalog.api_offers["cerebras-qwen-3-32b"]
    assert (row.input_per_million, row.cached_input_per_million, row.output_per_million) == (0.40, None, 0.80)
    assert "(cerebras/qwen-3-32b)" in row.source


def test_gpt_5_by_hand(catalog):
    # OpenAI's pricing page (developers.openai.com/api/docs/pricing) as quoted by crazyrouter.com/en/blog/
    # gpt-5-pricing (2026-04-27, "Base Pricing"): input $1.25, cached input $0.125 (90 % off), output $10.00
    # per 1M tokens; the Batch API halves input and output (aipromptshub.co/calc/gpt-5-cost): 0.625 / 1.25 = 0.5.
    row = catalog.api_offers["openai-gpt-5"]
    assert (row.input_per_million, row.cached_input_per_million, row.output_per_million) == (1.25, 0.125, 10)
    assert row.batch_multiplier == 0.5 and "transcribing https://developers.openai.com/api/docs/pricing" in row.source


def test_gemini_2_5_pro_long_context_tier_by_hand(catalog):
    # Google's Gemini API pricing page as quoted by deploybase.ai/articles/gemini-api-pricing-2026 ("Data
    # from Google's official pricing page"): $1.25 input / $10 output per 1M tokens for prompts <= 200K
    # tokens, $2.50 input / $15 output above 200K (input x 2, output x 1.5: 2.5 / 1.25 = 2, 15 / 10 = 1.5).
    row = catalog.api_offers["google-gemini-2-5-pro"]
    assert (row.input_per_million, row.output_per_million) == (1.25, 10)
    assert (
        row.long_context_threshold_tokens,
        row.long_context_input_per_million,
        row.long_context_output_per_million,
    ) == (200_000, 2.5, 15)


def test_deepseek_chat_time_of_day_windows():
    # genai-prices 0.2.3: deepseek-chat 0.27 / 0.07 / 1.10 from 00:30 to 16:30 UTC, 0.135 / 0.035 / 0.55 otherwise
    # (half: 0.135 / 0.27 = 0.035 / 0.07 = 0.55 / 1.1 = 0.5). 00:30 UTC is 06:00 in Asia/Kolkata (UTC+05:30).
    catalog = load_catalog()
    offer = catalog.api_offers["deepseek-deepseek-chat"]
    assert (offer.input_per_million, offer.cached_input_per_million, offer.output_per_million) == (0.27, 0.07, 1.1)
    windows = [w for w in catalog.api_price_windows.values() if w.offer == offer.offer]
    assert [(w.start_hour, w.end_hour, w.time_zone, w.price_multiplier) for w in windows] == [
        (6, 22, "Asia/Kolkata", 1.0),
        (0, 24, "UTC", 0.5),
    ]


# --- what the catalog cannot hold is listed -----------------------------------------------------------------


def test_not_imported_entries_have_reasons():
    entries = _rows(NOT_IMPORTED.read_text(encoding="utf-8"))
    assert len(entries) > 100
    assert all(e["provider"] and e["model"] and e["reason"].strip() for e in entries)
    reasons = {(e["provider"], e["model"]): e["reason"] for e in entries}
    # Changed: embeddings priced per token are input-only offers now (APIOffer's output_per_million may be
    # empty), so text-embedding-3-small and bge-base-en-v1.5 are imported, not listed; a model without an
    # output price that is no embedding stays out, and mistral-embed's output price is the part not held.
    imported = load_catalog().api_offers
    assert "openai-text-embedding-3-small" in imported and ("openai", "text-embedding-3-small") not in reasons
    assert imported["cloudflare-cf-baai-bge-base-en-v1-5"].output_per_million is None
    assert "no output price" in reasons[("cloudflare", "@cf/cloudflare/clef")]  # no embedding by its name
    assert "embedding" in reasons[("mistral", "mistral-embed")]  # priced per output token, still no text
    assert "service_tier=fast" in " ".join(e["reason"] for e in entries if e["model"] == "gpt-5")
    # Changed: time-of-day factors by token class (applies_to) and several prompt-size tiers
    # (data/api_price_tiers.csv) are held now, so these two are imported whole.
    assert ("deepseek", "deepseek-reasoner") not in reasons
    assert not any(
        "several prompt-size tiers" in e["reason"] for e in entries if e["model"] == "qwen/qwen3-coder-flash"
    )
    # an entry whose offer is given was imported without the part named; others were not imported at all
    assert all(e["offer"] in imported for e in entries if e["offer"])
    assert not any(e["offer"] for e in entries if e["reason"].startswith(("no prices", "no output", "not a text")))


# --- the rows the script does not generate ------------------------------------------------------------------


def test_mapped_rows_refresh_and_hand_kept_rows_stay(script):
    text = PRICES.read_text(encoding="utf-8").replace("Claude Haiku 4.5,1,", "Claude Haiku 4.5,9,")
    windows = WINDOWS.read_text(encoding="utf-8")
    out, *_, report = script.build(text, windows)
    haiku = next(r for r in _rows(out) if r["offer"] == "anthropic-claude-haiku-4-5")
    assert (haiku["input_per_million"], haiku["as_of"]) == ("1", script.RELEASED)  # a changed price is refreshed
    assert report == ["refreshed anthropic-claude-haiku-4-5: input_per_million 9 -> 1"]
    overridden = text.replace(",,1.25,2,0.5,", ",override: our negotiated price,1.25,2,0.5,", 1)
    assert "Claude Haiku 4.5,9," in script.build(overridden, windows)[0]  # an override stays
    kept = {r["offer"]: r for r in _rows(out)}
    assert kept["deepseek-chat-v3"]["source"].startswith("api-docs.deepseek.com")  # a row outside the package
    assert "deepseek-deepseek-flash" not in kept  # stands for deepseek-flash


# --- costmodel's bill equals genai-prices' own calc_price for the same usage ----------------------------------
# The costmodel side goes through the public path (a scenario: R1 with options.api and its shares); the package
# side through ModelInfo.calc_price with a Usage of one request. genai-prices counts nested usage: output_tokens
# holds the reasoning tokens, input_tokens the cache reads and writes and the audio tokens, cache_write_tokens
# the 1-hour writes, cache_audio_read_tokens sits in both input_audio_tokens and cache_read_tokens.

R1 = "llama70b-vs-api"


def _package_model(provider_id: str, model_id: str):
    from genai_prices.data import providers

    provider = next(p for p in providers if p.id == provider_id)
    return provider, next(m for m in provider.models if m.id == model_id)


def _genai_per_million(
    provider_id,
    model_id,
    day,
    n_in,
    ratio,
    cached=0.0,
    writes=None,
    reasoning=0.0,
    audio=0.0,
    audio_out=0.0,
    searches=0.0,
    citations=0.0,
    image=0.0,
    price_context=None,
):
    """genai-prices' price of one request of ``n_in`` input tokens at the mix ``ratio``, per million workload
    tokens (input plus visible output). [USD/M tokens]"""
    import datetime as dt

    from genai_prices import Usage

    provider, model = _package_model(provider_id, model_id)
    n_out = n_in / ratio
    writes = writes or {}
    usage = Usage(
        input_tokens=n_in,
        cache_read_tokens=cached * n_in,
        cache_write_tokens=sum(writes.values()) * n_in,
        cache_write_1h_tokens=writes.get("1h", 0.0) * n_in,
        output_tokens=n_out * (1 + reasoning) + citations,
        output_reasoning_tokens=reasoning * n_out,
        output_citation_tokens=citations,
        input_image_tokens=image * n_in,
        cache_image_read_tokens=image * cached * n_in,
        input_audio_tokens=audio * n_in,
        cache_audio_read_tokens=audio * cached * n_in,
        output_audio_tokens=audio_out * n_out,
        web_searches=searches,
    )
    when = dt.datetime.combine(day, dt.time(12), tzinfo=dt.UTC)
    total = model.calc_price(usage, provider, genai_request_timestamp=when, price_context=price_context).total_price
    return float(total) / (n_in + n_out) * 1e6


def _costmodel(offer, day, n_in, ratio, **api):
    from conftest import patched

    import costmodel

    changes = {
        "options.api.offer": offer,
        "options.api.price_date": day.isoformat(),
        "workload.input_tokens_per_request": n_in,
        "workload.input_tokens_per_output_token": ratio,
    }
    changes.update({f"options.api.{k}": v for k, v in api.items()})
    scenario = patched(R1, changes, drop=("uncertainty",))
    option = costmodel.resolve(scenario).options["api"]
    return scenario, float(option.price_per_million)


EFFECTIVE = __import__("datetime").date(2026, 12, 2)
BILLS = [
    # (id, offer, package model, date, input tokens per request, mix, costmodel shares, package usage words)
    (
        "reasoning and web search",
        "perplexity-sonar-deep-research",
        ("perplexity", "sonar-deep-research"),
        EFFECTIVE,
        5_000,
        4.0,
        {"reasoning_tokens_per_output_token": 2.0, "searches_per_request": 1.5, "citation_tokens_per_request": 3_000},
        {"reasoning": 2.0, "searches": 1.5, "citations": 3_000},
    ),
    ("fee per request", "perplexity-sonar", ("perplexity", "sonar"), EFFECTIVE, 2_000, 3.0, {}, {}),
    (
        "audio in and out, cached audio",
        "openai-gpt-realtime",
        ("openai", "gpt-realtime"),
        EFFECTIVE,
        8_000,
        2.0,
        {"cached_input_share": 0.3, "audio_input_share": 0.4, "audio_output_share": 0.5},
        {"cached": 0.3, "audio": 0.4, "audio_out": 0.5},
    ),
    (
        "image tokens with their own cache price",
        "openai-gpt-realtime",
        ("openai", "gpt-realtime"),
        EFFECTIVE,
        8_000,
        2.0,
        {"cached_input_share": 0.3, "audio_input_share": 0.2, "image_input_share": 0.25},
        {"cached": 0.3, "audio": 0.2, "image": 0.25},
    ),
    (
        "audio at batch, cache not discounted",
        "google-gemini-2-5-flash",
        ("google", "gemini-2.5-flash"),
        EFFECTIVE,
        10_000,
        5.0,
        {"cached_input_share": 0.25, "audio_input_share": 0.6, "service_tier": "batch", "searches_per_request": 0.2},
        {"cached": 0.25, "audio": 0.6, "searches": 0.2, "price_context": {"processing": "batch"}},
    ),
    (
        "web search, cache writes at both TTLs",
        "anthropic-claude-sonnet-4-0",
        ("anthropic", "claude-sonnet-4-0"),
        EFFECTIVE,
        20_000,
        10.0,
        {"cached_input_share": 0.5, "cache_write_shares": {"5m": 0.1, "1h": 0.05}, "searches_per_request": 3.0},
        {"cached": 0.5, "writes": {"5m": 0.1, "1h": 0.05}, "searches": 3.0},
    ),
    *[
        (
            f"several tiers, {n:,} input tokens",
            "openrouter-qwen-qwen3-coder-flash",
            ("openrouter", "qwen/qwen3-coder-flash"),
            EFFECTIVE,
            n,
            8.0,
            {"cached_input_share": 0.4, "cache_write_share": 0.2},
            {"cached": 0.4, "writes": {"5m": 0.2}},
        )
        for n in (20_000, 32_000, 32_001, 50_000, 128_000, 200_000)
    ],
    (
        "a cache price the package does not tier",
        "openrouter-google-gemini-2-5-pro",
        ("openrouter", "google/gemini-2.5-pro"),
        EFFECTIVE,
        300_000,
        50.0,
        {"cached_input_share": 0.3, "cache_write_share": 0.1},
        {"cached": 0.3, "writes": {"5m": 0.1}},
    ),
    # A long-context tier and a per-search fee in one bill (both need the request's input tokens; costmodel
    # passed them twice and failed, resolved._api_option), on the last day Sonnet 4.5's 1M context was offered.
    (
        "long context with web search",
        "anthropic-claude-sonnet-4-5",
        ("anthropic", "claude-sonnet-4-5"),
        __import__("datetime").date(2026, 4, 30),
        300_000,
        300.0,
        {"cached_input_share": 0.2, "cache_write_share": 0.1, "searches_per_request": 2.0},
        {"cached": 0.2, "writes": {"5m": 0.1}, "searches": 2.0},
    ),
    (
        "a dated future price, before it",
        "google-gemini-3-6-flash",
        ("google", "gemini-3.6-flash"),
        EFFECTIVE,
        4_000,
        3.0,
        {"cached_input_share": 0.2, "searches_per_request": 1.0},
        {"cached": 0.2, "searches": 1.0},
    ),
    (
        "a dated future price, after it",
        "google-gemini-3-6-flash",
        ("google", "gemini-3.6-flash"),
        __import__("datetime").date(2027, 2, 1),
        4_000,
        3.0,
        {"cached_input_share": 0.2, "searches_per_request": 1.0},
        {"cached": 0.2, "searches": 1.0},
    ),
    # The package's first price has no start date: an undated row of the history, in force before the dated ones
    # (OpenAI o3 at 10 / 40 USD per M until its price cut to 2 / 8 on 2025-06-10).
    (
        "the first, undated price",
        "openai-o3",
        ("openai", "o3"),
        __import__("datetime").date(2025, 5, 1),
        3_000,
        2.0,
        {"cached_input_share": 0.2},
        {"cached": 0.2},
    ),
    (
        "the price after the cut",
        "openai-o3",
        ("openai", "o3"),
        __import__("datetime").date(2025, 7, 1),
        3_000,
        2.0,
        {"cached_input_share": 0.2},
        {"cached": 0.2},
    ),
    (
        "a superseded dated price",
        "mistral-mistral-large-4",
        ("mistral", "mistral-large-4"),
        __import__("datetime").date(2026, 10, 25),
        6_000,
        2.0,
        {"cached_input_share": 0.5},
        {"cached": 0.5},
    ),
]


@pytest.mark.parametrize(
    "offer, ids, day, n_in, ratio, shares, usage", [b[1:] for b in BILLS], ids=[b[0] for b in BILLS]
)
def test_costmodel_bills_as_genai_prices_calc_price(offer, ids, day, n_in, ratio, shares, usage):
    import costmodel
    from costmodel.units import DAYS_PER_MONTH

    scenario, price = _costmodel(offer, day, n_in, ratio, **shares)
    expected = _genai_per_million(*ids, day, n_in, ratio, **usage)
    assert price == pytest.approx(expected, rel=1e-12)
    volume = 10e6  # tokens a day: the monthly bill is the same price times the month's tokens
    monthly = float(costmodel.monthly_cost(scenario, "api", volume))
    assert monthly == pytest.approx(expected * volume * DAYS_PER_MONTH / 1e6, rel=1e-12)


def test_the_sample_uses_the_new_words(catalog):
    # The offers above hold what the catalog gained: a reasoning price, audio prices, web-search and request
    # fees, several prompt-size tiers, a price held at its base under another's tier, dated prices.
    offers = catalog.api_offers
    assert offers["perplexity-sonar-deep-research"].reasoning_per_million == 3
    assert offers["perplexity-sonar-deep-research"].web_search_per_thousand == 5
    assert offers["perplexity-sonar-deep-research"].citation_per_million == 2
    assert offers["perplexity-sonar"].per_thousand_requests == 12
    realtime = offers["openai-gpt-realtime"]
    assert (
        realtime.input_audio_per_million,
        realtime.cached_audio_input_per_million,
        realtime.output_audio_per_million,
        realtime.input_image_per_million,
        realtime.cached_image_input_per_million,
    ) == (32, 0.4, 64, 5, 0.5)
    tiers = [t for t in catalog.api_price_tiers.values() if t.offer == "openrouter-qwen-qwen3-coder-flash"]
    assert sorted({t.above_input_tokens for t in tiers}) == [32_000, 128_000] and len(tiers) == 8
    assert offers["openrouter-qwen-qwen3-coder-flash"].long_context_threshold_tokens is None
    assert [c.effective_from for c in catalog.api_price_history.values() if c.offer == "google-gemini-3-6-flash"] == [
        "2027-01-01"
    ]
    assert offers["mistral-mistral-large-4"].effective_from == "2026-10-29"


def test_embedding_is_an_input_only_offer_at_the_package_price(catalog):
    # An embedding has no output tokens: the catalog row has no output price and the bill is the input price.
    # A scenario cannot say "no output tokens" (workload.input_tokens_per_output_token must be finite), so the
    # costmodel side is the billing formula with the offer's row, costmodel.formulas.api_price_parts.
    from genai_prices import Usage

    from costmodel.formulas import api_price_parts

    for offer, ids, audio in (
        ("openai-text-embedding-3-small", ("openai", "text-embedding-3-small"), 0.0),
        ("google-gemini-embedding-2", ("google", "gemini-embedding-2"), 0.3),
    ):
        row = catalog.api_offers[offer]
        assert row.output_per_million is None and "input-only" in row.notes
        parts = api_price_parts(
            row.input_per_million,
            None,
            float("inf"),
            audio_input_share=audio,
            audio_input_price=row.input_audio_per_million,
        )
        provider, model = _package_model(*ids)
        n_in = 1_000_000
        usage = Usage(input_tokens=n_in, input_audio_tokens=audio * n_in)
        expected = float(model.calc_price(usage, provider).total_price)
        assert float(sum(parts.values())) == pytest.approx(expected, rel=1e-12)


def test_deepseek_reasoner_windows_by_token_class(catalog):
    # genai-prices 0.2.3: deepseek-reasoner 0.55 / 0.14 / 2.19 from 00:30 to 16:30 UTC, 0.135 / 0.035 / 0.55
    # otherwise: input x 0.135 / 0.55, cache reads x 0.25, output x 0.55 / 2.19, one window row per class.
    offer = catalog.api_offers["deepseek-deepseek-reasoner"]
    assert (offer.input_per_million, offer.cached_input_per_million, offer.output_per_million) == (0.55, 0.14, 2.19)
    windows = [w for w in catalog.api_price_windows.values() if w.offer == offer.offer]
    assert [(w.start_hour, w.end_hour, w.time_zone, w.applies_to) for w in windows] == [
        (6, 22, "Asia/Kolkata", "all"),
        (0, 24, "UTC", "input"),
        (0, 24, "UTC", "cache_read"),
        (0, 24, "UTC", "output"),
    ]
    factors = {w.applies_to: w.price_multiplier for w in windows[1:]}
    assert factors["input"] * 0.55 == pytest.approx(0.135, rel=1e-12)
    assert factors["cache_read"] * 0.14 == pytest.approx(0.035, rel=1e-12)
    assert factors["output"] * 2.19 == pytest.approx(0.55, rel=1e-12)


def test_half_hour_window_in_utc(script):
    # A time-of-day price on the half hour that no listed zone turns into whole hours is written in UTC.
    import datetime as dt
    from decimal import Decimal

    from genai_prices.types import ConditionalPrice, ModelPrice, TimeOfDateConstraint

    std = ModelPrice(input_mtok=Decimal("1"), output_mtok=Decimal("4"))
    peak = ConditionalPrice(
        constraint=TimeOfDateConstraint(
            start_time=dt.time(1, 30, tzinfo=dt.UTC), end_time=dt.time(2, 0, tzinfo=dt.UTC)
        ),
        prices=ModelPrice(input_mtok=Decimal("2"), output_mtok=Decimal("8")),
    )
    _, windows, problem = script._clock_windows("x", std, [peak], "s")
    assert problem == ""
    assert [(w["start_hour"], w["end_hour"], w["time_zone"], w["price_multiplier"]) for w in windows] == [
        ("1.5", "2", "UTC", "1"),
        ("0", "24", "UTC", "0.5"),
    ]


def test_sonnet_long_context_retired(catalog):
    # Anthropic's context-windows page (platform.claude.com/docs/en/build-with-claude/context-windows): the
    # context-1m-2025-08-07 beta for Sonnet 4.5 and Sonnet 4 ended on 30 April 2026; the script's
    # RETIRED_LONG_CONTEXT writes it with the source. A later bill above 200 K input tokens is refused.
    from conftest import patched

    import costmodel
    from costmodel.errors import ScenarioError

    for offer in ("anthropic-claude-sonnet-4-5", "anthropic-claude-sonnet-4-0"):
        row = catalog.api_offers[offer]
        assert row.long_context_until == "2026-04-30" and "context-windows" in row.notes
    changes = {
        "options.api.offer": "anthropic-claude-sonnet-4-5",
        "workload.input_tokens_per_request": 300_000,
        "options.api.price_date": "2026-05-01",
    }
    with pytest.raises(ScenarioError, match="retired"):
        costmodel.resolve(patched(R1, changes, drop=("uncertainty",)))
