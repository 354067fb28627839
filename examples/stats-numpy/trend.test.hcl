# flowctl lock examples/stats/numpy && flowctl test examples/stats/numpy
test "lisbon warms, berlin does not" {
  assert {
    condition     = output.slopes["data/lisbon.csv"] == 0.35 && output.slopes["data/berlin.csv"] == 0
    error_message = "Lisbon 0.35 degrees a day warmer, Berlin flat"
  }
  assert {
    condition     = output.means["data/berlin.csv"] == 22
    error_message = "22 degrees on average in Berlin"
  }
}
