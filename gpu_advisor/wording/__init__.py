"""How GPU Advisor words plans and results, for every face: the CLI, the GUI, the PDF, Markdown, Compare.

No Qt, no torch, no I/O. Each function takes typed data (a `core.result.Plan`, a `bench.results`
model) and returns text or typed rows of text; numbers are formatted only through `core.units`.
Faces render these words; they never word a figure themselves, so they cannot disagree.

- `wording.plan`: a plan's title, verdict, facts, option cells, memory and formula rows.
- `wording.results`: benchmark results (any metric by its unit, workloads, the prediction check,
  diagnoses, the machine), for the CLI summary and the report's results sections.
- `wording.monitor`: the Monitor tab's cards and `gpu-advisor monitor`'s summary.
- `wording.compare`: `bench.compare`'s typed rows as cells, and a chart's unit.
"""
