import statistics


def execute(input, ctx):
    values = input["values"]
    if not values:
        raise ValueError("no values to summarize")
    return {
        "count": len(values),
        "mean": statistics.fmean(values),
        "median": statistics.median(values),
        "stdev": round(statistics.stdev(values), 6) if len(values) > 1 else 0,
        "range": [min(values), max(values)],
    }
