"""Tokens: the input:output mix, blended API prices, and GPU-hours to serve tokens.

A workload's tokens per day count input and output tokens together; its mix is the input
tokens per output token r, so the output share is 1 / (1 + r). Serving throughput is
counted in output tokens per second per GPU (MLPerf Inference, TensorRT-LLM).

References
----------
.. [1] MLCommons, MLPerf Inference rules: throughput in output tokens per second.
.. [2] Anthropic, Claude pricing page (2025): input, cached input (cache read) and output
   prices per million tokens.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ..units import DAYS_PER_MONTH, SECONDS_PER_HOUR
from .shapes import Numbers, Values


def output_share(input_tokens_per_output_token: Numbers) -> Values:
    """Share of all tokens that are output tokens. [-]

    Parameters
    ----------
    input_tokens_per_output_token
        The mix r: 2 means two input tokens per output token. [-]

    Notes
    -----
    s = 1 / (1 + r).

    Examples
    --------
    >>> round(output_share(2.0), 6)
    0.333333
    """
    return 1.0 / (1.0 + input_tokens_per_output_token)


def tokens_per_month(tokens_per_day: Numbers) -> Values:
    """Tokens in the model's month of 365 / 12 days. [tokens/month]

    Examples
    --------
    >>> round(tokens_per_month(10e6) / 1e6, 4)
    304.1667
    """
    return tokens_per_day * DAYS_PER_MONTH


def _tier_price(base, tiers, api_tokens_per_request):
    """The price of one token class for requests of ``api_tokens_per_request`` input tokens: the
    highest tier whose threshold the request passes (cliff pricing), else ``base``."""
    price = base
    for threshold, tier_price in sorted(tiers, key=lambda t: t[0]):
        price = np.where(np.asarray(api_tokens_per_request) > threshold, tier_price, price)
    return price


def api_price_parts(
    input_price: Numbers,
    output_price: Numbers,
    input_tokens_per_output_token: Numbers,
    cached_input_price: Numbers | None = None,
    cached_input_share: Numbers = 0.0,
    cache_write_price: Numbers | None = None,
    cache_write_share: Numbers = 0.0,
    tier_multiplier: Numbers = 1.0,
    cache_tier_multiplier: Numbers | None = None,
    reasoning_tokens_per_output_token: Numbers = 0.0,
    region_uplift: Numbers = 1.0,
    tokens_per_workload_token: Numbers = 1.0,
    input_tokens_per_request: Numbers = 0.0,
    long_context_threshold: Numbers | None = None,
    long_context_input_price: Numbers | None = None,
    long_context_output_price: Numbers | None = None,
    *,
    reasoning_price: Numbers | None = None,
    cache_write_1h_price: Numbers | None = None,
    cache_write_1h_share: Numbers = 0.0,
    context_tiers: Mapping[str, Any] | None = None,
    audio_input_share: Numbers = 0.0,
    audio_input_price: Numbers | None = None,
    cached_audio_input_price: Numbers | None = None,
    image_input_share: Numbers = 0.0,
    image_input_price: Numbers | None = None,
    cached_image_input_price: Numbers | None = None,
    audio_output_share: Numbers = 0.0,
    audio_output_price: Numbers | None = None,
    request_fee: Numbers = 0.0,
    searches_per_request: Numbers = 0.0,
    search_fee: Numbers = 0.0,
    citation_tokens_per_request: Numbers = 0.0,
    citation_price: Numbers | None = None,
) -> dict[str, Values]:
    """An API bill per million workload tokens, by part: input, cache reads and writes, output. [currency/M tokens]

    Not elementwise: it returns several figures together (a tuple or a mapping), each of the inputs'
    kind.

    The one formula of how hosted APIs bill tokens; :func:`blended_api_price` is the sum of
    its parts.

    Parameters
    ----------
    input_price, output_price
        Standard prices of input and output tokens; ``output_price`` may be None for an
        input-only offer (embeddings) when the workload has no output tokens. [currency/M tokens]
    input_tokens_per_output_token
        The workload's mix r; ``numpy.inf`` for a workload without output tokens. [-]
    cached_input_price
        Price of a cache read; default the input price. [currency/M tokens]
    cached_input_share
        Share c of input tokens read from the prompt cache. [-]
    cache_write_price
        Price of writing an input token to the cache (at the chosen time-to-live, the 5-minute
        one when ``cache_write_1h_share`` is given too); default the input price. [currency/M tokens]
    cache_write_share
        Share w of input tokens written to the cache at ``cache_write_price``. [-]
    tier_multiplier
        Service-tier factor on input and output prices (batch and flex 0.5, priority above 1). [-]
    cache_tier_multiplier
        Service-tier factor on cache reads and writes; default ``tier_multiplier`` (the
        provider stacks the tier discount with caching, as Anthropic states). [-]
    reasoning_tokens_per_output_token
        Reasoning ("thinking") tokens billed per visible output token. [-]
    region_uplift
        Factor on every token price for a region or data-residency choice (Anthropic US-only
        inference: 1.1); not on per-request and per-search fees. [-]
    tokens_per_workload_token
        The API model's tokens per token of the workload's own count (its tokenizer). [-]
    input_tokens_per_request
        Input tokens of one request, in the workload's count; 0 means short requests (and no
        per-request fee can be priced). [tokens]
    long_context_threshold
        Input tokens of a request (in the API's count) above which the whole request is
        billed at the long-context prices; none: no long-context tier. [tokens]
    long_context_input_price, long_context_output_price
        Input and output prices above the threshold; cache reads and writes scale with the
        input price's ratio. [currency/M tokens]
    reasoning_price
        Price of reasoning tokens where the provider bills them apart from output; default
        the output price (and its tier). [currency/M tokens]
    cache_write_1h_price, cache_write_1h_share
        Cache writes with a 1-hour time-to-live beside the 5-minute ones of
        ``cache_write_price`` / ``cache_write_share`` in the same bill: c + w + w₁ ≤ 1.
        [currency/M tokens], [-]
    context_tiers
        Several prompt-size tiers, each token class with its own: a mapping of class
        (``input``, ``cache_read``, ``cache_write``, ``cache_write_1h``, ``output``,
        ``reasoning``) to a list of ``(threshold, price)``; the highest threshold a request's
        input passes (API count, strictly above) sets the class's price for the whole
        request. A cache class without tiers of its own scales with the input's ratio, and
        reasoning with the output's. Not with ``long_context_threshold``.
        [tokens], [currency/M tokens]
    audio_input_share, audio_input_price, cached_audio_input_price
        Share of input tokens that are audio tokens, their price, and the price of an audio
        token read from the cache (default the audio price). [-], [currency/M tokens]
    image_input_share, image_input_price, cached_image_input_price
        Share of input tokens that are image tokens, their price, and the price of an image token
        read from the cache (default the text cache-read price). [-], [currency/M tokens]
    audio_output_share, audio_output_price
        Share of output tokens that are audio tokens and their price. [-], [currency/M tokens]
    request_fee
        Fixed fee per request. [currency/request]
    searches_per_request, search_fee
        Web (or file) searches per request and the price of one. [searches/request], [currency/search]
    citation_tokens_per_request, citation_price
        Citation tokens a request is billed for beside its input and output (Perplexity's
        deep research) and their price. [tokens/request], [currency/M tokens]

    Returns
    -------
    dict
        ``input``, ``cache_read``, ``cache_write``, ``output``, each per million workload
        tokens (input and output together); with the further words, also ``reasoning``
        (reasoning tokens, split from ``output`` only when ``reasoning_price`` is given),
        ``audio_input``, ``image_input``, ``audio_output``, ``request_fees`` (per-request and
        per-search fees) and ``citation_tokens``.
        [currency/M tokens]

    Notes
    -----
    With s = 1 / (1 + r) the output share, k the tokens per workload token and u the
    region uplift, and the long-context prices in place of the standard ones when
    k · input tokens per request > threshold (whole request, the provider's rule):

    input = k·u·(1 − s)·(1 − c − w)·t·p_in;  cache_read = k·u·(1 − s)·c·t_c·p_read;
    cache_write = k·u·(1 − s)·w·t_c·p_write;  output = k·u·s·(1 + ρ)·t·p_out,

    t and t_c being the tier factors and ρ the reasoning tokens per output token. With a
    reasoning price, output = k·u·s·t·p_out and reasoning = k·u·s·ρ·t·p_reason. Modality
    shares a (audio) and m (image) of input take their tokens out of every input class at
    the same shares: audio_input = k·u·(1 − s)·a·t·((1 − c − w)·p_audio + c·p_audio,cached),
    image_input = k·u·(1 − s)·m·((1 − c − w)·t·p_image + c·t_c·p_image,cached) (image tokens
    read from the cache at the text cache price when no image cache price is given). Fees per
    million workload tokens are 10⁶ · (fee + searches · search fee + citation tokens · p_citation / 10⁶)
    / (n_in · (1 + 1/r)), n_in the input tokens per request.

    References
    ----------
    .. [1] Anthropic, Claude API pricing (platform.claude.com/docs/en/about-claude/pricing):
       batch −50 % stacking with prompt caching; cache writes 1.25× input (5 min) and 2× (1 h);
       cache reads 0.1× input; long context above 200 K input tokens for the whole request;
       US-only inference ×1.1; web search 10 USD per 1,000 searches.
    .. [2] OpenAI, API pricing (developers.openai.com/api/docs/pricing): batch and flex −50 %;
       reasoning tokens billed as output tokens; audio tokens priced apart.
    .. [3] Pydantic, genai-prices (github.com/pydantic/genai-prices): tiered prices by the
       request's input tokens applying to all its tokens ("cliff"); per-request and per-search
       prices (requests_kcount, web_searches_kcount); audio and image token prices.
    .. [4] Perplexity, API pricing (docs.perplexity.ai/guides/pricing): Sonar Deep Research bills
       citation tokens (at the input price), searches (5 USD per 1,000) and reasoning tokens apart.

    Examples
    --------
    Standard tier, Claude Opus 4.5 (5 / 25 USD per M), a 2:1 mix: 11.6667 in all.

    >>> parts = api_price_parts(5.0, 25.0, 2.0)
    >>> round(sum(parts.values()), 4)
    11.6667

    Batch at half price, stacking with caching (fault F22):

    >>> round(sum(api_price_parts(5.0, 25.0, 2.0, tier_multiplier=0.5).values()), 4)
    5.8333

    Cache writes: 20 % of input written at the 1-hour price (2 × 5 = 10 USD), 60 % read at 0.50:

    >>> p = api_price_parts(5.0, 25.0, 2.0, 0.5, 0.6, 10.0, 0.2)
    >>> [round(float(p[k]), 4) for k in ("input", "cache_read", "cache_write", "output")]
    [0.6667, 0.2, 1.3333, 8.3333]

    Reasoning tokens: one reasoning token per output token doubles the output part:

    >>> round(float(api_price_parts(5.0, 25.0, 2.0, reasoning_tokens_per_output_token=1.0)["output"]), 4)
    16.6667

    Region uplift of 1.1 and a tokenizer giving 1.3 tokens per workload token:

    >>> round(sum(api_price_parts(5.0, 25.0, 2.0, region_uplift=1.1, tokens_per_workload_token=1.3).values()), 4)
    16.6833

    Long context (fault F23): Claude Sonnet 4.5, 3 / 15 USD per M, 6 / 22.50 above 200 K
    input tokens a request; requests of 300 K input tokens at a 300:1 mix:

    >>> round(sum(api_price_parts(3.0, 15.0, 300.0, input_tokens_per_request=300_000, long_context_threshold=200_000,
    ...                           long_context_input_price=6.0, long_context_output_price=22.5).values()), 4)
    6.0548

    An embedding offer (0.02 USD per M input tokens, no output price) and no output tokens:

    >>> float(sum(api_price_parts(0.02, None, float("inf")).values()))
    0.02
    """
    if context_tiers is not None and long_context_threshold is not None:
        raise ValueError("give context_tiers or long_context_threshold, not both")
    if long_context_threshold is not None:
        context_tiers = {
            "input": [(long_context_threshold, long_context_input_price)],
            "output": [(long_context_threshold, long_context_output_price)],
        }
    share = output_share(input_tokens_per_output_token)
    if output_price is None:
        if np.any(np.asarray(share) > 0):
            raise ValueError(
                "an offer without an output price (input only: embeddings) takes a workload without output tokens"
            )
        output_price = 0.0
    cached = input_price if cached_input_price is None else cached_input_price
    write = input_price if cache_write_price is None else cache_write_price
    write_1h = input_price if cache_write_1h_price is None else cache_write_1h_price
    reasoning = reasoning_price
    if context_tiers:
        unknown = set(context_tiers) - {"input", "cache_read", "cache_write", "cache_write_1h", "output", "reasoning"}
        if unknown:
            raise ValueError(f"context_tiers has no token class {sorted(unknown)[0]!r}")
        request = tokens_per_workload_token * np.asarray(input_tokens_per_request)
        new_input = _tier_price(input_price, context_tiers.get("input", ()), request)
        new_output = _tier_price(output_price, context_tiers.get("output", ()), request)
        priced = np.asarray(output_price) > 0  # 0 for an input-only offer
        ratio_in = new_input / input_price
        ratio_out = np.where(priced, new_output / np.where(priced, output_price, 1.0), 1.0)

        def tiered(name, base, ratio):
            return _tier_price(base, context_tiers[name], request) if context_tiers.get(name) else base * ratio

        cached, write, write_1h = (
            tiered("cache_read", cached, ratio_in),
            tiered("cache_write", write, ratio_in),
            tiered("cache_write_1h", write_1h, ratio_in),
        )
        if reasoning is not None:
            reasoning = tiered("reasoning", reasoning, ratio_out)
        input_price, output_price = new_input, new_output
        values = (input_price, cached, write, write_1h, output_price, reasoning)
        if all(np.ndim(x) == 0 for x in values if x is not None):  # not a sweep's arrays
            input_price, cached, write, write_1h, output_price, reasoning = (
                None if x is None else float(x) for x in values
            )
    cache_tier = tier_multiplier if cache_tier_multiplier is None else cache_tier_multiplier
    scale = tokens_per_workload_token * region_uplift
    inputs = scale * (1.0 - share)
    text = 1.0 - audio_input_share - image_input_share  # the input tokens that are text
    uncached = 1.0 - cached_input_share - cache_write_share - cache_write_1h_share
    outputs = scale * share
    parts = {
        "input": inputs * uncached * text * tier_multiplier * input_price,
        "cache_read": inputs
        * cached_input_share
        * (text + (image_input_share if cached_image_input_price is None else 0.0))
        * cache_tier
        * cached,
        "cache_write": inputs * (cache_write_share * write + cache_write_1h_share * write_1h) * cache_tier,
    }
    visible = outputs * (1.0 - audio_output_share) * tier_multiplier
    if reasoning is None:
        parts["output"] = (
            visible * output_price + outputs * reasoning_tokens_per_output_token * tier_multiplier * output_price
        )
    else:
        parts["output"] = visible * output_price
        parts["reasoning"] = outputs * reasoning_tokens_per_output_token * tier_multiplier * reasoning
    if np.any(np.asarray(audio_input_share) > 0):
        if audio_input_price is None:
            raise ValueError("audio input tokens need an audio input price")
        audio_cached = audio_input_price if cached_audio_input_price is None else cached_audio_input_price
        parts["audio_input"] = (
            inputs
            * audio_input_share
            * (uncached * tier_multiplier * audio_input_price + cached_input_share * cache_tier * audio_cached)
        )
    if np.any(np.asarray(image_input_share) > 0):
        if image_input_price is None:
            raise ValueError("image input tokens need an image input price")
        parts["image_input"] = inputs * image_input_share * uncached * tier_multiplier * image_input_price
        if cached_image_input_price is not None:
            parts["image_input"] = (
                parts["image_input"]
                + inputs * image_input_share * cached_input_share * cache_tier * cached_image_input_price
            )
    if np.any(np.asarray(audio_output_share) > 0):
        if audio_output_price is None:
            raise ValueError("audio output tokens need an audio output price")
        parts["audio_output"] = outputs * audio_output_share * tier_multiplier * audio_output_price
    fees = request_fee + searches_per_request * search_fee
    citations = 0.0
    if np.any(np.asarray(citation_tokens_per_request) > 0):
        if citation_price is None:
            raise ValueError("citation tokens need a citation price")
        citations = citation_tokens_per_request * citation_price / 1e6
    for name, per_request in (("request_fees", fees), ("citation_tokens", citations)):
        if np.any(np.asarray(per_request) > 0):
            if not np.all(np.asarray(input_tokens_per_request) > 0):
                raise ValueError("a fee per request needs the input tokens per request")
            part = (
                1e6
                * per_request
                / (
                    np.asarray(input_tokens_per_request)
                    * (1.0 + 1.0 / np.asarray(input_tokens_per_output_token, dtype=float))
                )
            )
            parts[name] = float(part) if np.ndim(part) == 0 else part
    return parts


def blended_api_price(
    input_price: Numbers,
    output_price: Numbers,
    input_tokens_per_output_token: Numbers,
    cached_input_price: Numbers | None = None,
    cached_input_share: Numbers = 0.0,
    **billing: Any,
) -> Values:
    """API price per million tokens of a workload's own mix of input, cached input and output. [currency/M tokens]

    The sum of :func:`api_price_parts`; ``billing`` takes its further words (cache writes,
    service tier, reasoning tokens, region uplift, tokenizer, long context).

    Parameters
    ----------
    input_price
        Price of input tokens. [currency/M tokens]
    output_price
        Price of output tokens. [currency/M tokens]
    input_tokens_per_output_token
        The workload's mix r. [-]
    cached_input_price
        Price of input tokens read from the provider's prompt cache; default the input
        price. [currency/M tokens]
    cached_input_share
        Share of input tokens that hit the cache, in [0, 1]. [-]

    Notes
    -----
    p = (1 − s)·((1 − c)·p_in + c·p_cached) + s·p_out, with s = 1 / (1 + r) the output
    share and c the cached share (standard tier, no further billing words).

    Examples
    --------
    Reference case R1: Claude Opus 4.5 at 5 USD in and 25 USD out per million, a 2:1 mix:

    >>> round(blended_api_price(5.0, 25.0, 2.0), 4)
    11.6667

    With 60 % of input read from the cache at 0.50 USD:

    >>> round(blended_api_price(5.0, 25.0, 2.0, 0.5, 0.6), 4)
    9.8667
    """
    parts = api_price_parts(
        input_price, output_price, input_tokens_per_output_token, cached_input_price, cached_input_share, **billing
    )
    return sum(parts.values())


def gpu_hours_for_tokens(
    tokens_per_day: Numbers, input_tokens_per_output_token: Numbers, output_tokens_per_second_per_gpu: Numbers
) -> Values:
    """GPU-hours a month to serve a token volume at a throughput. [GPU-h/month]

    Parameters
    ----------
    tokens_per_day
        Input plus output tokens per day. [tokens/day]
    input_tokens_per_output_token
        The mix r. [-]
    output_tokens_per_second_per_gpu
        Throughput of one GPU at full load, the input tokens' prefill included. [output tokens/s/GPU]

    Notes
    -----
    H = V · 365/12 · s / (T · 3,600), with s = 1 / (1 + r).

    Examples
    --------
    Reference case R1: 10 M tokens/day at 2:1 on 2,102.5 output tokens/s per H100:

    >>> round(gpu_hours_for_tokens(10e6, 2.0, 2102.5), 3)
    13.395
    """
    return (
        tokens_per_month(tokens_per_day)
        * output_share(input_tokens_per_output_token)
        / (output_tokens_per_second_per_gpu * SECONDS_PER_HOUR)
    )
