"""Tests of workflows of MapReduce jobs (issue 7)."""
