# Read CSV files of daily measurements, take one column of each with an
# inline Python block (the csv module) and summarize it with a Python block
# from blocks/ (the statistics module), then compare the files.
# Runs offline: no network, no API key; python3 (3.11+) runs the blocks.
flow "stats" {
  description = "Summary statistics of one column of the CSV files in data/"
}

input "files" {
  type        = list(string)
  description = "CSV files to read, relative to this flow"
  default     = ["data/berlin.csv", "data/lisbon.csv"]
}

input "column" {
  type        = string
  description = "The column to summarize"
  default     = "temperature"
}

block "column" {
  description = "The numbers of one column of a CSV text with a header line"
  runtime     = "python"
  input "csv" {
    type = string
  }
  input "name" {
    type = string
  }
  output "values" {
    type = list(number)
  }
  source = <<-PY
    import csv
    from io import StringIO

    def execute(input, ctx):
        rows = list(csv.DictReader(StringIO(input["csv"])))
        if rows and input["name"] not in rows[0]:
            raise KeyError("no column %r (the columns are %s)" % (input["name"], ", ".join(rows[0])))
        values = [float(r[input["name"]]) for r in rows if r[input["name"]].strip()]
        print(len(values), "values of", input["name"])
        return {"values": values}
  PY
  example {
    input  = { csv = "day,t\n1,2.5\n2,\n3,4\n", name = "t" }
    output = { values = [2.5, 4] }
  }
}

step "read" {
  use      = "file"
  for_each = input.files
  path     = each.value
}

step "column" {
  use      = "column"
  for_each = step.read
  csv      = each.value.text
  name     = input.column
}

step "summary" {
  use      = "summary"
  for_each = step.column
  values   = each.value.values
}

output "means" {
  value = zipmap(input.files, step.summary[*].mean)
}

output "widest_range" {
  value = max([for s in step.summary : s.range[1] - s.range[0]]...)
}
