# A variant of ../stats.flow.hcl with a dependency: the python block
# "trend" requires numpy, which flowctl lock pins in flowctl.lock.hcl
# beside this flow (not in the repository: the wheels are chosen for one
# interpreter and platform, so lock it where it runs; see README.md).
# apply installs exactly the locked wheel into the user's cache and runs
# the block under the same confinement as any python block.
flow "stats_trend" {
  description = "The daily trend of one column of the CSV files in data/, fitted by numpy"
}

input "files" {
  type        = list(string)
  description = "CSV files to read, relative to this flow"
  default     = ["data/berlin.csv", "data/lisbon.csv"]
}

input "column" {
  type        = string
  description = "The column to fit"
  default     = "temperature"
}

block "trend" {
  description  = "The least-squares slope per row and the mean of one column of a CSV text"
  runtime      = "python"
  requirements = ["numpy>=1.24"]
  input "csv" {
    type = string
  }
  input "name" {
    type = string
  }
  output "slope" {
    type        = number
    description = "The change from one row to the next, fitted by least squares"
  }
  output "mean" {
    type = number
  }
  source = <<-PY
    import csv
    from io import StringIO

    import numpy

    def execute(input, ctx):
        rows = list(csv.DictReader(StringIO(input["csv"])))
        y = numpy.array([float(r[input["name"]]) for r in rows], dtype=float)
        slope, _ = numpy.polyfit(numpy.arange(len(y)), y, 1)
        return {"slope": round(float(slope), 6), "mean": round(float(y.mean()), 6)}
  PY
  example {
    input  = { csv = "day,t\n1,1\n2,3\n3,5\n", name = "t" }
    output = { slope = 2, mean = 3 }
  }
}

step "read" {
  use      = "file"
  for_each = input.files
  path     = each.value
}

step "trend" {
  use      = "trend"
  for_each = step.read
  csv      = each.value.text
  name     = input.column
}

output "slopes" {
  value = zipmap(input.files, step.trend[*].slope)
}

output "means" {
  value = zipmap(input.files, step.trend[*].mean)
}
