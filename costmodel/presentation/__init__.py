"""Presentation: numbers as text, tables, report text, charts and notebook sections.

``format``, ``tables`` and ``text`` need only pandas; ``charts`` imports Altair and
``sections`` IPython, so import those two only where a chart or a notebook is made.
"""
