"""Reading the files a scenario names: its own YAML text, hourly demand files and Slurm job logs.

Nothing here computes a cost; each reader returns plain Python data or numpy arrays and
raises :class:`~costmodel.errors.InputError` (or a subclass) naming the file, the line
and the rule broken.
"""
