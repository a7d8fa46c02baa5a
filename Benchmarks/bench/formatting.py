"""Numbers as RESULTS.md and the terminal print them."""


def fmt_seconds(value):
    return "—" if value is None else (f"{value:.3f}" if value < 10 else f"{value:.2f}")


def fmt_int(value):
    return "—" if value is None else f"{value:,}"


def fmt_mib(value):
    return "—" if value is None else f"{value:.1f}"


def fmt_ratio(value):
    return "—" if value is None else f"{value:.2f} ×"


def size_label(rows):
    if rows % 1_000_000 == 0:
        return f"{rows // 1_000_000}M"
    if rows % 1000 == 0:
        return f"{rows // 1000}k"
    return str(rows)


def speed_text(speedup):
    return f"{speedup:.2f} × faster" if speedup >= 1 else f"{1 / speedup:.2f} × slower"
