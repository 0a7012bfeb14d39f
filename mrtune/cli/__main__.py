"""``python -m mrtune.cli``: the same entry point as the ``mrtune`` console script."""

from mrtune.cli import main

main()
