"""The Monitor view: run a workload on this machine and watch its telemetry live."""
