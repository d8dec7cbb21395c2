"""The Compare view: benchmark results from several machines side by side."""
