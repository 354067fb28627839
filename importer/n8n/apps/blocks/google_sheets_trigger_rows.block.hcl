# The rows of n8n's Google Sheets Trigger as items (its
# arrayOfArraysToJson, GoogleSheetsTrigger.utils.js); a block of flowctl
# import's app registry.

block "google_sheets_trigger_rows" {
  runtime     = "js"
  description = "Each row an object of the header's columns, an empty, 0 or false cell as \"\" (n8n's arrayOfArraysToJson)"
  input "rows" {
    type = any
  }
  input "columns" {
    type = any
  }
  output "items" {
    type = any
  }
  source = <<-JS
    function arrayOfArraysToJson(sheetData, columns) {
      const returnData = [];
      for (let rowIndex = 0; rowIndex < sheetData.length; rowIndex++) {
        const rowData = {};
        for (let columnIndex = 0; columnIndex < columns.length; columnIndex++) {
          const columnName = columns[columnIndex];
          const cellValue = sheetData[rowIndex][columnIndex] || '';
          rowData[columnName] = cellValue;
        }
        returnData.push(rowData);
      }
      return returnData;
    }
    function execute(input) {
      return { items: arrayOfArraysToJson(input.rows || [], input.columns || []) };
    }
  JS
}
