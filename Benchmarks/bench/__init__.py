"""The benchmark harness behind Benchmarks/run.py (see its docstring for what it measures).

    settings    where the files are; the environment a run depends on (one Settings value)
    tools       the tools (a)…(i): order, labels, tasks, the command line of each
    notes       the notes store that (h) and (i) convert
    content     the check: content hashes and schemas of sources and destinations
    measuring   one process timed, its peak memory and the disk space it needs
    sizes       one size: every tool, every round, checked and summarized
    batches     (j) and (k): etl batch over archives of small stores
    machine     the machine and the etl binary, as RESULTS.md shows them
    records     results.json, scale.json, batches.json read and written
    formatting  numbers as RESULTS.md prints them
    targets     the issues' goals against the measurements
    report      RESULTS.md
    plot        results.png
    summary     what the terminal shows at the end, and the exit status
    cli         the command line (run, smoke, report, scale, batches)
"""
