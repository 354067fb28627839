# The clock a polling trigger's flow reads, as n8n's poll reads it when it
# starts: the time now, in whole seconds since 1970 (Gmail Trigger's
# Math.floor(DateTime.now().toSeconds())) and in UTC as moment's format()
# gives it (Google Drive Trigger's moment().utc().format()); a block of
# flowctl import's app registry, shared by its polling flows.

block "poll_clock" {
  runtime     = "js"
  description = "The time now: seconds since 1970 and the UTC time YYYY-MM-DDTHH:mm:ssZ"
  output "seconds" {
    type = number
  }
  output "utc" {
    type = string
  }
  source = <<-JS
    function execute(input) {
      var ms = Date.now();
      return { seconds: Math.floor(ms / 1000), utc: new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z') };
    }
  JS
}
