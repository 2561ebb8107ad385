"""Tokens: the input:output mix, blended API prices, and GPU-hours to serve tokens.

A workload's tokens per day count input and output tokens together; its mix is the input
tokens per output token r, so the output share is 1 / (1 + r). Serving throughput is
counted in output tokens per second per GPU (MLPerf Inference, TensorRT-LLM).

Notes
-----
How a hosted API bills tokens (:func:`api_price_parts`), per million workload tokens. With
s = 1 / (1 + r) the output share, k the API model's tokens per workload token, u the region
uplift, t and t_c the service-tier factors on tokens and on cache reads and writes, c, w and w₁
the shares of input read from the cache and written to it (5 minutes, 1 hour), and ρ the reasoning
tokens per output token; the long-context or tiered prices replace the standard ones when
k · input tokens per request passes a threshold (the whole request is billed at the tier's
prices, the provider's rule):

input = k·u·(1 − s)·(1 − c − w − w₁)·t·p_in;  cache_read = k·u·(1 − s)·c·t_c·p_read;
cache_write = k·u·(1 − s)·(w·p_write + w₁·p_write,1h)·t_c;  output = k·u·s·(1 + ρ)·t·p_out.

With a reasoning price, output = k·u·s·t·p_out and reasoning = k·u·s·ρ·t·p_reason. Modality
shares a (audio) and m (image) of input take their tokens out of every input class at the same
shares: audio_input = k·u·(1 − s)·a·((1 − c − w − w₁)·t·p_audio + c·t_c·p_audio,cached),
image_input = k·u·(1 − s)·m·((1 − c − w − w₁)·t·p_image + c·t_c·p_image,cached) (image tokens
read from the cache at the text cache price when no image cache price is given). Fees per
million workload tokens are 10⁶ · (fee + searches · search fee + citation tokens · p_citation / 10⁶)
/ (n_in · (1 + 1/r)), n_in the input tokens per request.

References
----------
.. [1] MLCommons, MLPerf Inference rules: throughput in output tokens per second.
.. [2] Anthropic, Claude API pricing (platform.claude.com/docs/en/about-claude/pricing):
   input, cached input (cache read) and output prices per million tokens; batch −50 % stacking
   with prompt caching; cache writes 1.25× input (5 min) and 2× (1 h); cache reads 0.1× input;
   long context above 200 K input tokens for the whole request; US-only inference ×1.1; web
   search 10 USD per 1,000 searches.
.. [3] OpenAI, API pricing (developers.openai.com/api/docs/pricing): batch and flex −50 %;
   reasoning tokens billed as output tokens; audio tokens priced apart.
.. [4] Pydantic, genai-prices (github.com/pydantic/genai-prices): tiered prices by the
   request's input tokens applying to all its tokens ("cliff"); per-request and per-search
   prices (requests_kcount, web_searches_kcount); audio and image token prices.
.. [5] Perplexity, API pricing (docs.perplexity.ai/guides/pricing): Sonar Deep Research bills
   citation tokens (at the input price), searches (5 USD per 1,000) and reasoning tokens apart.

Examples
--------
Claude Opus 4.5 (5 / 25 USD per M) at a 2:1 mix, with the billing words of
:func:`api_price_parts`. Batch at half price, stacking with caching (fault F22):

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

Long context (fault F23): Claude Sonnet 4.5, 3 / 15 USD per M, 6 / 22.50 above 200 K input
tokens a request; requests of 300 K input tokens at a 300:1 mix:

>>> round(sum(api_price_parts(3.0, 15.0, 300.0, input_tokens_per_request=300_000, long_context_threshold=200_000,
...                           long_context_input_price=6.0, long_context_output_price=22.5).values()), 4)
6.0548
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields
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


def _tier_price(base: Numbers, tiers: Iterable[tuple[Numbers, Numbers]], api_tokens_per_request: Numbers) -> Numbers:
    """The price of one token class for requests of ``api_tokens_per_request`` input tokens: the
    highest tier whose threshold the request passes (cliff pricing), else ``base``."""
    price = base
    for threshold, tier_price in sorted(tiers, key=lambda t: t[0]):
        price = np.where(np.asarray(api_tokens_per_request) > threshold, tier_price, price)
    return price


def api_price_parts(
    input_price: Numbers,
    output_price: Numbers | None,
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
    kind. The one formula of how hosted APIs bill tokens, as Anthropic, OpenAI, Pydantic's genai-prices
    and Perplexity state it: the module's Notes give it part by part, its References the sources and its
    Examples each billing word at work. :func:`blended_api_price` is the sum of the parts.

    Parameters
    ----------
    input_price, output_price
        Standard prices of input and output tokens; ``output_price`` may be None for an input-only offer
        (embeddings) when the workload has no output tokens. [currency/M tokens]
    input_tokens_per_output_token
        The workload's mix r; ``numpy.inf`` for a workload without output tokens. [-]
    cached_input_price, cached_input_share
        Price of a cache read (default the input price), and the share c of input tokens read from the
        prompt cache. [currency/M tokens], [-]
    cache_write_price, cache_write_share
        Price of writing an input token to the cache (at the chosen time-to-live, the 5-minute one when
        ``cache_write_1h_share`` is given too; default the input price), and the share w of input tokens
        written at it. [currency/M tokens], [-]
    tier_multiplier, cache_tier_multiplier
        Service-tier factors on input and output prices (batch and flex 0.5, priority above 1) and on cache
        reads and writes (default the first: the tier discount stacks with caching, as Anthropic states). [-]
    reasoning_tokens_per_output_token
        Reasoning ("thinking") tokens billed per visible output token. [-]
    region_uplift, tokens_per_workload_token
        Factor on every token price (not on fees) for a region or data-residency choice (Anthropic US-only
        inference: 1.1); the API model's tokens per token of the workload's own count (its tokenizer). [-]
    input_tokens_per_request
        Input tokens of one request, in the workload's count; 0 means short requests (and no per-request
        fee can be priced). [tokens]
    long_context_threshold, long_context_input_price, long_context_output_price
        Input tokens of a request (API count) above which the whole request is billed at the long-context
        input and output prices (none: no long-context tier); cache reads and writes scale with the input
        price's ratio. [tokens], [currency/M tokens]
    reasoning_price
        Price of reasoning tokens where the provider bills them apart from output; default the output
        price (and its tier). [currency/M tokens]
    cache_write_1h_price, cache_write_1h_share
        Cache writes with a 1-hour time-to-live beside the 5-minute ones of ``cache_write_price`` /
        ``cache_write_share`` in the same bill: c + w + w₁ ≤ 1. [currency/M tokens], [-]
    context_tiers
        Several prompt-size tiers, each token class with its own: a mapping of class (``input``,
        ``cache_read``, ``cache_write``, ``cache_write_1h``, ``output``, ``reasoning``) to a list of
        ``(threshold, price)``; the highest threshold a request's input passes (API count, strictly above)
        sets the class's price for the whole request. A cache class without tiers of its own scales with
        the input's ratio, and reasoning with the output's. Not with ``long_context_threshold``.
        [tokens], [currency/M tokens]
    audio_input_share, audio_input_price, cached_audio_input_price
        Share of input tokens that are audio tokens, their price, and the price of an audio token read
        from the cache (default the audio price). [-], [currency/M tokens]
    image_input_share, image_input_price, cached_image_input_price
        Share of input tokens that are image tokens, their price, and the price of an image token read
        from the cache (default the text cache-read price). [-], [currency/M tokens]
    audio_output_share, audio_output_price
        Share of output tokens that are audio tokens and their price. [-], [currency/M tokens]
    request_fee, searches_per_request, search_fee
        Fixed fee per request; web (or file) searches per request and the price of one.
        [currency/request], [searches/request], [currency/search]
    citation_tokens_per_request, citation_price
        Citation tokens a request is billed for beside its input and output (Perplexity's deep research)
        and their price. [tokens/request], [currency/M tokens]

    Returns
    -------
    dict
        ``input``, ``cache_read``, ``cache_write``, ``output``, each per million workload tokens (input and
        output together); with the further words, also ``reasoning`` (split from ``output`` only when
        ``reasoning_price`` is given), ``audio_input``, ``image_input``, ``audio_output``, ``request_fees``
        (per-request and per-search fees) and ``citation_tokens``. [currency/M tokens]

    Examples
    --------
    Standard tier, Claude Opus 4.5 (5 / 25 USD per M), a 2:1 mix; an embedding offer (0.02 USD per M
    input tokens, no output price) and no output tokens:

    >>> round(sum(api_price_parts(5.0, 25.0, 2.0).values()), 4)
    11.6667
    >>> float(sum(api_price_parts(0.02, None, float("inf")).values()))
    0.02
    """
    return _price_parts(_Bill(**locals()))  # every argument, by its name


@dataclass(frozen=True)
class _Bill:
    """The arguments of :func:`api_price_parts`, each as given (see there for its meaning and unit)."""

    input_price: Numbers
    output_price: Numbers | None
    input_tokens_per_output_token: Numbers
    cached_input_price: Numbers | None
    cached_input_share: Numbers
    cache_write_price: Numbers | None
    cache_write_share: Numbers
    tier_multiplier: Numbers
    cache_tier_multiplier: Numbers | None
    reasoning_tokens_per_output_token: Numbers
    region_uplift: Numbers
    tokens_per_workload_token: Numbers
    input_tokens_per_request: Numbers
    long_context_threshold: Numbers | None
    long_context_input_price: Numbers | None
    long_context_output_price: Numbers | None
    reasoning_price: Numbers | None
    cache_write_1h_price: Numbers | None
    cache_write_1h_share: Numbers
    context_tiers: Mapping[str, Any] | None
    audio_input_share: Numbers
    audio_input_price: Numbers | None
    cached_audio_input_price: Numbers | None
    image_input_share: Numbers
    image_input_price: Numbers | None
    cached_image_input_price: Numbers | None
    audio_output_share: Numbers
    audio_output_price: Numbers | None
    request_fee: Numbers
    searches_per_request: Numbers
    search_fee: Numbers
    citation_tokens_per_request: Numbers
    citation_price: Numbers | None


@dataclass(frozen=True)
class _Prices:
    """The token prices a bill applies, its context tiers in place (the module's p_in, p_read, p_write,
    p_write,1h, p_out and p_reason; reasoning None when billed as output). [currency/M tokens]"""

    input: Numbers
    cache_read: Numbers
    cache_write: Numbers
    cache_write_1h: Numbers
    output: Numbers
    reasoning: Numbers | None


_TOKEN_CLASSES = {"input", "cache_read", "cache_write", "cache_write_1h", "output", "reasoning"}


def _price_parts(bill: _Bill) -> dict[str, Values]:
    """:func:`api_price_parts` of its arguments: the token parts, then the modality parts, then the fees."""
    share = output_share(bill.input_tokens_per_output_token)
    prices = _prices(bill, share)
    parts = _token_parts(bill, prices, share)
    parts.update(_modality_parts(bill, share))
    parts.update(_fee_parts(bill))
    return parts


def _prices(bill: _Bill, share: Values) -> _Prices:
    """The token prices of a bill: defaults filled in (a cache price is the input price unless given), then
    the long-context or context tiers applied at the request's input tokens in the API's count.

    Raises
    ------
    ValueError
        Both tier forms given, a context tier of no token class, or no output price for a workload
        with output tokens.
    """
    context_tiers = bill.context_tiers
    if context_tiers is not None and bill.long_context_threshold is not None:
        raise ValueError("give context_tiers or long_context_threshold, not both")
    if bill.long_context_threshold is not None:
        context_tiers = {
            "input": [(bill.long_context_threshold, bill.long_context_input_price)],
            "output": [(bill.long_context_threshold, bill.long_context_output_price)],
        }
    output_price = bill.output_price
    if output_price is None:
        if np.any(np.asarray(share) > 0):
            raise ValueError(
                "an offer without an output price (input only: embeddings) takes a workload without output tokens"
            )
        output_price = 0.0
    input_price = bill.input_price
    prices = _Prices(
        input_price,
        input_price if bill.cached_input_price is None else bill.cached_input_price,
        input_price if bill.cache_write_price is None else bill.cache_write_price,
        input_price if bill.cache_write_1h_price is None else bill.cache_write_1h_price,
        output_price,
        bill.reasoning_price,
    )
    if not context_tiers:
        return prices
    unknown = set(context_tiers) - _TOKEN_CLASSES
    if unknown:
        raise ValueError(f"context_tiers has no token class {sorted(unknown)[0]!r}")
    return _tiered(prices, context_tiers, bill.tokens_per_workload_token * np.asarray(bill.input_tokens_per_request))


def _tiered(prices: _Prices, context_tiers: Mapping[str, Any], request: Numbers) -> _Prices:
    """Token prices at a request's size (``request`` input tokens, API count): each class's own tiers, else
    the input's ratio for a cache class and the output's for reasoning; floats again for scalar inputs."""
    new_input = _tier_price(prices.input, context_tiers.get("input", ()), request)
    new_output = _tier_price(prices.output, context_tiers.get("output", ()), request)
    priced = np.asarray(prices.output) > 0  # 0 for an input-only offer
    ratio_in = new_input / prices.input
    ratio_out = np.where(priced, new_output / np.where(priced, prices.output, 1.0), 1.0)

    def tiered(name: str, base: Numbers, ratio: Numbers) -> Numbers:
        return _tier_price(base, context_tiers[name], request) if context_tiers.get(name) else base * ratio

    reasoning = None if prices.reasoning is None else tiered("reasoning", prices.reasoning, ratio_out)
    tiered_prices = _Prices(
        new_input,
        tiered("cache_read", prices.cache_read, ratio_in),
        tiered("cache_write", prices.cache_write, ratio_in),
        tiered("cache_write_1h", prices.cache_write_1h, ratio_in),
        new_output,
        reasoning,
    )
    values = [getattr(tiered_prices, f.name) for f in fields(_Prices)]
    if not all(np.ndim(x) == 0 for x in values if x is not None):  # a sweep's arrays
        return tiered_prices

    def number(x: Numbers) -> float:
        return float(np.asarray(x))

    return _Prices(
        number(tiered_prices.input),
        number(tiered_prices.cache_read),
        number(tiered_prices.cache_write),
        number(tiered_prices.cache_write_1h),
        number(tiered_prices.output),
        None if reasoning is None else number(reasoning),
    )


def _token_parts(bill: _Bill, prices: _Prices, share: Values) -> dict[str, Values]:
    """The text-token parts: ``input``, ``cache_read``, ``cache_write``, ``output`` and, with a reasoning
    price, ``reasoning`` (the module's Notes). [currency/M tokens]"""
    cache_tier = bill.tier_multiplier if bill.cache_tier_multiplier is None else bill.cache_tier_multiplier
    scale = bill.tokens_per_workload_token * bill.region_uplift
    inputs = scale * (1.0 - share)
    text = 1.0 - bill.audio_input_share - bill.image_input_share  # the input tokens that are text
    uncached = 1.0 - bill.cached_input_share - bill.cache_write_share - bill.cache_write_1h_share
    outputs = scale * share
    parts: dict[str, Values] = {
        "input": inputs * uncached * text * bill.tier_multiplier * prices.input,
        "cache_read": inputs
        * bill.cached_input_share
        * (text + (bill.image_input_share if bill.cached_image_input_price is None else 0.0))
        * cache_tier
        * prices.cache_read,
        "cache_write": inputs
        * (bill.cache_write_share * prices.cache_write + bill.cache_write_1h_share * prices.cache_write_1h)
        * cache_tier,
    }
    visible = outputs * (1.0 - bill.audio_output_share) * bill.tier_multiplier
    reasoning = outputs * bill.reasoning_tokens_per_output_token * bill.tier_multiplier
    if prices.reasoning is None:
        parts["output"] = visible * prices.output + reasoning * prices.output
    else:
        parts["output"] = visible * prices.output
        parts["reasoning"] = reasoning * prices.reasoning
    return parts


def _modality_parts(bill: _Bill, share: Values) -> dict[str, Values]:
    """The ``audio_input``, ``image_input`` and ``audio_output`` parts of the bills that have those
    tokens (the module's Notes). [currency/M tokens]

    Raises
    ------
    ValueError
        A share of audio or image tokens without their price.
    """
    cache_tier = bill.tier_multiplier if bill.cache_tier_multiplier is None else bill.cache_tier_multiplier
    scale = bill.tokens_per_workload_token * bill.region_uplift
    inputs = scale * (1.0 - share)
    uncached = 1.0 - bill.cached_input_share - bill.cache_write_share - bill.cache_write_1h_share
    parts: dict[str, Values] = {}
    if np.any(np.asarray(bill.audio_input_share) > 0):
        if bill.audio_input_price is None:
            raise ValueError("audio input tokens need an audio input price")
        price = bill.audio_input_price
        cached = price if bill.cached_audio_input_price is None else bill.cached_audio_input_price
        parts["audio_input"] = (
            inputs
            * bill.audio_input_share
            * (uncached * bill.tier_multiplier * price + bill.cached_input_share * cache_tier * cached)
        )
    if np.any(np.asarray(bill.image_input_share) > 0):
        if bill.image_input_price is None:
            raise ValueError("image input tokens need an image input price")
        image = inputs * bill.image_input_share * uncached * bill.tier_multiplier * bill.image_input_price
        if bill.cached_image_input_price is not None:
            image = (
                image
                + inputs * bill.image_input_share * bill.cached_input_share * cache_tier * bill.cached_image_input_price
            )
        parts["image_input"] = image
    if np.any(np.asarray(bill.audio_output_share) > 0):
        if bill.audio_output_price is None:
            raise ValueError("audio output tokens need an audio output price")
        parts["audio_output"] = scale * share * bill.audio_output_share * bill.tier_multiplier * bill.audio_output_price
    return parts


def _fee_parts(bill: _Bill) -> dict[str, Values]:
    """The ``request_fees`` (per request and per search) and ``citation_tokens`` parts per million workload
    tokens, where a bill has them (the module's Notes). [currency/M tokens]

    Raises
    ------
    ValueError
        Citation tokens without a citation price, or a fee without the input tokens per request.
    """
    fees = bill.request_fee + bill.searches_per_request * bill.search_fee
    citations: Numbers = 0.0
    if np.any(np.asarray(bill.citation_tokens_per_request) > 0):
        if bill.citation_price is None:
            raise ValueError("citation tokens need a citation price")
        citations = bill.citation_tokens_per_request * bill.citation_price / 1e6
    parts: dict[str, Values] = {}
    request = np.asarray(bill.input_tokens_per_request)
    for name, per_request in (("request_fees", fees), ("citation_tokens", citations)):
        if np.any(np.asarray(per_request) > 0):
            if not np.all(request > 0):
                raise ValueError("a fee per request needs the input tokens per request")
            part = (
                1e6
                * per_request
                / (request * (1.0 + 1.0 / np.asarray(bill.input_tokens_per_output_token, dtype=float)))
            )
            parts[name] = float(np.asarray(part)) if np.ndim(part) == 0 else part
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
