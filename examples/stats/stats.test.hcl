# flowctl test examples/stats
test "each file is summarized" {
  inputs = { files = ["data/berlin.csv"] }
  assert {
    condition     = output.means["data/berlin.csv"] == 22 && step.summary[0].count == 5
    error_message = "five days of Berlin, 22 degrees on average"
  }
  assert {
    condition     = output.widest_range == 4.5
    error_message = "from 19.5 to 24 degrees"
  }
}

test "another column" {
  inputs = { column = "rain_mm" }
  assert {
    condition     = output.means["data/lisbon.csv"] == 0.1
    error_message = "half a millimetre of rain over five days in Lisbon"
  }
}

test "the summary block can be replaced" {
  mock "summary" {
    outputs = { count = 1, mean = 0, median = 0, stdev = 0, range = [0, 10] }
  }
  assert {
    condition     = output.widest_range == 10
    error_message = "the mock's range"
  }
}
