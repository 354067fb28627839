block "word_count" {
  description = "Count the words of a text"
  use_when    = "You need the number of words in a text"
  tags        = ["text"]
  runtime     = "go"
  timeout     = "2s"

  input "text" {
    type        = string
    description = "The text"
  }
  input "min" {
    type        = number
    default     = 1
    description = "Count only words at least this long"
  }
  output "count" {
    type = number
  }

  source = <<-GO
    package block

    import (
      "context"
      "strings"
    )

    func Execute(ctx context.Context, input map[string]any) (map[string]any, error) {
      n := 0
      for _, w := range strings.Fields(input["text"].(string)) {
        if float64(len(w)) >= input["min"].(float64) {
          n++
        }
      }
      return map[string]any{"count": n}, nil
    }
  GO

  example {
    input  = { text = "a bb ccc", min = 2 }
    output = { count = 2 }
  }
}
