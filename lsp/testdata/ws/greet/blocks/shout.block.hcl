block "shout" {
  description = "Upper-case a text"
  runtime     = "js"
  input "text" {
    type        = string
    description = "The text to shout"
  }
  output "text" {
    type = string
  }
  source = <<-JS
    function execute(input) {
      return { text: input.text.toUpperCase() }
    }
  JS
}
