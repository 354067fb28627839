block "summary" {
  description = "Summary statistics of a list of numbers"
  use_when    = "You need the mean, median, spread or range of numbers"
  tags        = ["statistics"]
  runtime     = "python"
  timeout     = "5s"

  input "values" {
    type        = list(number)
    description = "The numbers"
  }
  output "count" {
    type = number
  }
  output "mean" {
    type = number
  }
  output "median" {
    type = number
  }
  output "stdev" {
    type        = number
    description = "The sample standard deviation; 0 for fewer than two numbers"
  }
  output "range" {
    type = list(number)
  }

  source_file = "summary.py"

  example {
    input  = { values = [1, 2, 3, 4] }
    output = { count = 4, mean = 2.5, median = 2.5, stdev = 1.290994, range = [1, 4] }
  }
}
