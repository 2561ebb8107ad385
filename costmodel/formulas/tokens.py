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

from ..units import DAYS_PER_MONTH, SECONDS_PER_HOUR


def output_share(input_tokens_per_output_token):
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


def tokens_per_month(tokens_per_day):
    """Tokens in the model's month of 365 / 12 days. [tokens/month]

    Examples
    --------
    >>> round(tokens_per_month(10e6) / 1e6, 4)
    304.1667
    """
    return tokens_per_day * DAYS_PER_MONTH


def blended_api_price(input_price, output_price, input_tokens_per_output_token, cached_input_price=None,
                      cached_input_share=0.0):
    """API price per million tokens of a workload's own mix of input, cached input and output. [currency/M tokens]

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
    share and c the cached share.

    Examples
    --------
    Reference case R1: Claude Opus 4.5 at 5 USD in and 25 USD out per million, a 2:1 mix:

    >>> round(blended_api_price(5.0, 25.0, 2.0), 4)
    11.6667

    With 60 % of input read from the cache at 0.50 USD:

    >>> round(blended_api_price(5.0, 25.0, 2.0, 0.5, 0.6), 4)
    9.8667
    """
    share = output_share(input_tokens_per_output_token)
    cached = input_price if cached_input_price is None else cached_input_price
    return (1.0 - share) * ((1.0 - cached_input_share) * input_price + cached_input_share * cached) \
        + share * output_price


def gpu_hours_for_tokens(tokens_per_day, input_tokens_per_output_token, output_tokens_per_second_per_gpu):
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
    return tokens_per_month(tokens_per_day) * output_share(input_tokens_per_output_token) \
        / (output_tokens_per_second_per_gpu * SECONDS_PER_HOUR)
