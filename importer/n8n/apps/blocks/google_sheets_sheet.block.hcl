# A block of flowctl import's app registry, shared by its Google Sheets
# flows.

block "google_sheets_sheet" {
  runtime     = "js"
  description = "Finds the sheet by title or ID in the spreadsheet's sheets (n8n's spreadsheetGetSheet) and gives the range of the API's URLs (encodeRange)"
  input "sheets" {
    type = any
  }
  input "by" {
    type = string
  }
  input "value" {
    type = string
  }
  input "range" {
    type    = string
    default = ""
  }
  output "title" {
    type = string
  }
  output "sheet_id" {
    type = number
  }
  output "range" {
    type = string
  }
  output "escaped_title" {
    type = string
  }
  source = <<-JS
    function getSheetId(value) {
      if (value === 'gid=0') return 0;
      return parseInt(value);
    }
    function encodeRange(range) {
      if (range.includes('!')) {
        const [sheet, ranges] = range.split('!');
        return encodeURIComponent(sheet) + '!' + ranges;
      }
      return encodeURIComponent("'" + range + "'");
    }
    function execute(input) {
      const found = (input.sheets || []).find((item) => {
        if (input.by === 'name') return item.properties.title === input.value;
        return item.properties.sheetId === getSheetId(input.value);
      });
      if (!found || !found.properties || !found.properties.title) {
        throw new Error('Sheet with ' + (input.by === 'name' ? 'name' : 'ID') + ' ' + input.value + ' not found');
      }
      const title = found.properties.title;
      const range = input.range ? title + '!' + input.range : title;
      return { title: title, sheet_id: found.properties.sheetId, range: encodeRange(range), escaped_title: encodeURIComponent(title) };
    }
  JS
}
