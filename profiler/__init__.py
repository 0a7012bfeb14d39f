"""mrtune package."""
