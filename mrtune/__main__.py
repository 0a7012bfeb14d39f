"""``python -m mrtune``: the ``mrtune`` command line."""

from mrtune.cli import main

main()
