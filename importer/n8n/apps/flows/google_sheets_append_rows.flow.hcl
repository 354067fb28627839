# Google Sheets: append rows to a sheet — n8n's Google Sheets node v4
# (GoogleSheetsV2), Sheet → Append Row, once for all the items. Written by
# flowctl import from its registry (importer/n8n/apps); every import
# writes the same file. The js blocks are n8n's own code (append.operation,
# GoogleSheet.js, GoogleSheets.utils.js); the requests are n8n's, in its
# order.
# https://developers.google.com/sheets/api/reference/rest/v4/spreadsheets.values/update
# https://developers.google.com/sheets/api/reference/rest/v4/spreadsheets/request#appenddimensionrequest
flow "google_sheets_append_rows" {
  description = "Appends rows to a Google Sheets sheet, a row for each object, its values under the header row's names"
}

secret "google_sheets" {
  description = "An OAuth2 access token of the Google account n8n's Google Sheets credential stands for, with the scope https://www.googleapis.com/auth/spreadsheets; flowctl does not refresh it"
}

input "api_url" {
  type        = string
  default     = "https://sheets.googleapis.com"
  description = "The Sheets API's root URL"
}

input "document_id" {
  type        = string
  description = "The spreadsheet's ID"
}

input "sheet" {
  type        = string
  description = "The sheet: its title (sheet_by = \"name\") or its ID, the gid of its URL"
}

input "sheet_by" {
  type        = string
  default     = "id"
  description = "How sheet names the sheet: name or id"
}

input "mapping_mode" {
  type        = string
  default     = "defineBelow"
  description = "defineBelow: rows are the node's mapped columns; autoMapInputData: rows are the items, new keys becoming new columns as handling_extra_data says"
}

input "rows" {
  type        = any
  description = "The rows to append: a list of objects, column name to value"
}

input "header_row" {
  type        = number
  default     = 1
  description = "The row of the column names"
}

input "cell_format" {
  type        = string
  default     = "USER_ENTERED"
  description = "The API's valueInputOption: USER_ENTERED (as if typed in) or RAW"
}

input "header_format" {
  type        = string
  default     = "RAW"
  description = "The valueInputOption of the header row written for autoMapInputData (n8n's Cell Format when set, else RAW)"
}

input "use_append" {
  type        = bool
  default     = false
  description = "Append with the API's values.append after the table, rather than write after the last row"
}

input "handling_extra_data" {
  type        = string
  default     = "insertInNewColumn"
  description = "autoMapInputData: what to do with keys the header lacks — insertInNewColumn, ignoreIt or error"
}

input "schema" {
  type        = any
  default     = null
  description = "The column names the node was set up with (n8n's columns.schema), which the header row must still have (defineBelow); null checks nothing"
}

block "google_sheets_append_plan" {
  runtime     = "js"
  description = "What n8n's Append Row writes before the rows: the header row for autoMapInputData (autoMapInputData), after checking the header against the node's columns (checkForSchemaChanges)"
  input "sheet_data" {
    type    = any
    default = null
  }
  input "header" {
    type    = any
    default = null
  }
  input "rows" {
    type = any
  }
  input "mode" {
    type = string
  }
  input "header_row" {
    type = number
  }
  input "handling" {
    type = string
  }
  input "schema" {
    type    = any
    default = null
  }
  output "input_data" {
    type = any
  }
  output "header_keys" {
    type     = any
    optional = true
  }
  output "header_all" {
    type     = any
    optional = true
  }
  output "last_row" {
    type = number
  }
  output "auto" {
    type = bool
  }
  source = <<-JS
    const ROW_NUMBER = 'row_number';
    function checkForSchemaChanges(columnNames, schema) {
      const updatedColumnNames = [];
      columnNames = columnNames.filter((col) => col !== '');
      const schemaColumns = columnNames.includes(ROW_NUMBER) ? schema : schema.filter((s) => s !== ROW_NUMBER);
      for (const [columnIndex, columnName] of columnNames.entries()) {
        const schemaEntry = schemaColumns[columnIndex];
        if (schemaEntry === undefined) break;
        if (columnName !== schemaEntry) updatedColumnNames.push({ oldName: schemaEntry, newName: columnName });
      }
      if (updatedColumnNames.length) {
        throw new Error("Column names were updated after the node's setup: " +
          updatedColumnNames.map((c) => c.oldName + ' -> ' + c.newName).join(', '));
      }
    }
    function execute(input) {
      const sheetData = input.sheet_data;
      const rows = input.rows || [];
      let mode = input.mode;
      if (!sheetData || !sheetData.length) mode = 'autoMapInputData';
      if (input.schema && mode !== 'autoMapInputData') {
        if (sheetData[input.header_row - 1] === undefined) {
          throw new Error('Could not retrieve the column names from row ' + input.header_row);
        }
        checkForSchemaChanges(sheetData[input.header_row - 1], input.schema);
      }
      let keys = null;
      let all = null;
      let inputData = rows;
      if (mode === 'autoMapInputData') {
        inputData = [];
        let columnNames = input.header ? input.header[0] : [];
        if (input.handling === 'insertInNewColumn') {
          if (!columnNames.length) {
            keys = [Object.keys(rows[0]).filter((key) => key !== ROW_NUMBER)];
            columnNames = Object.keys(rows[0]);
          }
          const newColumns = new Set();
          rows.forEach((item) => {
            Object.keys(item).forEach((key) => {
              if (key !== ROW_NUMBER && !columnNames.includes(key)) newColumns.add(key);
            });
            if (item[ROW_NUMBER]) {
              const json = Object.assign({}, item);
              delete json[ROW_NUMBER];
              inputData.push(json);
              return;
            }
            inputData.push(item);
          });
          if (newColumns.size) all = [columnNames.concat([...newColumns])];
          // n8n writes the keys in the order of the item's fields; a flow's
          // objects have their keys sorted, so that order is not known.
          if ((keys && keys[0].length > 1) || newColumns.size > 1) {
            throw new Error('The sheet lacks columns for ' + (keys ? keys[0] : []).concat([...newColumns]).join(', ') + ": n8n adds them in the order of the item's fields, which this flow does not know (its objects' keys are sorted); add them to the header row of the sheet, in the order you want");
          }
        }
        if (input.handling === 'ignoreIt') rows.forEach((item) => inputData.push(item));
        if (input.handling === 'error') {
          rows.forEach((item, itemIndex) => {
            Object.keys(item).forEach((key) => {
              if (!columnNames.includes(key)) {
                throw new Error("Unexpected fields in node input: the input field '" + key + "' of item " + itemIndex + " doesn't match any column in the Sheet.");
              }
            });
            inputData.push(item);
          });
        }
      } else {
        rows.forEach((row) => {
          if (Object.keys(row).length === 0) throw new Error("At least one value has to be added under 'Values to Send'");
        });
      }
      return { input_data: inputData, header_keys: keys, header_all: all, last_row: (sheetData || [{}]).length + 1, auto: mode === 'autoMapInputData' };
    }
  JS
}

block "google_sheets_append_values" {
  runtime     = "js"
  description = "The rows' values under the header's column names (convertObjectArrayToSheetDataArray) and the range they go to (updateRows)"
  input "header" {
    type    = any
    default = null
  }
  input "input_data" {
    type = any
  }
  input "title" {
    type = string
  }
  input "last_row" {
    type = number
  }
  input "use_append" {
    type = bool
  }
  output "range" {
    type = string
  }
  output "path" {
    type = string
  }
  output "values" {
    type = any
  }
  source = <<-JS
    function execute(input) {
      if (input.header === undefined || input.header === null) throw new Error('Could not retrieve the column data');
      const columnNames = input.header[0] || [];
      const emptyValue = input.use_append ? null : '';
      const data = input.input_data.map((item) => columnNames.map((key) => {
        const value = item[key];
        if (value === undefined || value === null) return emptyValue;
        if (typeof value === 'object') return JSON.stringify(value);
        return value;
      }));
      const row = input.last_row;
      const range = input.title + '!' + row + ':' + (data.length ? row + data.length - 1 : row);
      return { range: range, path: encodeURIComponent(input.title) + '!' + row + ':' + (data.length ? row + data.length - 1 : row), values: data };
    }
  JS
}

step "sheets" {
  use     = "http"
  url     = "${input.api_url}/v4/spreadsheets/${input.document_id}"
  query   = { fields = "sheets.properties" }
  headers = { accept = "application/json", authorization = "Bearer ${secret.google_sheets}" }
}

step "sheet" {
  use    = "google_sheets_sheet"
  sheets = step.sheets.body.sheets
  by     = input.sheet_by
  value  = input.sheet
}

step "data" {
  use     = "http"
  url     = "${input.api_url}/v4/spreadsheets/${input.document_id}/values/${step.sheet.range}"
  query   = { valueRenderOption = "FORMATTED_VALUE", dateTimeRenderOption = "FORMATTED_STRING" }
  headers = { accept = "application/json", authorization = "Bearer ${secret.google_sheets}" }
}

# autoMapInputData reads the header row (n8n does when the mode is set,
# and when the sheet is empty).
step "header" {
  use      = "http"
  for_each = input.mapping_mode == "autoMapInputData" || length(try(step.data.body.values, [])) == 0 ? [true] : []
  url      = "${input.api_url}/v4/spreadsheets/${input.document_id}/values/${step.sheet.escaped_title}!${input.header_row}:${input.header_row}"
  query    = { valueRenderOption = "FORMATTED_VALUE", dateTimeRenderOption = "FORMATTED_STRING" }
  headers  = { accept = "application/json", authorization = "Bearer ${secret.google_sheets}" }
}

step "plan" {
  use        = "google_sheets_append_plan"
  sheet_data = try(step.data.body.values, null)
  header     = length(step.header) > 0 ? try(step.header[0].body.values, null) : null
  rows       = input.rows
  mode       = input.mapping_mode
  header_row = input.header_row
  handling   = input.handling_extra_data
  schema     = input.schema
}

# The header row autoMapInputData writes: the first item's keys when the
# sheet has none, then with the new columns.
step "write_header" {
  use      = "http"
  for_each = step.plan.header_keys == null ? [] : [step.plan.header_keys]
  method   = "PUT"
  url      = "${input.api_url}/v4/spreadsheets/${input.document_id}/values/${step.sheet.escaped_title}!${input.header_row}:${input.header_row}"
  query    = { valueInputOption = input.header_format }
  headers  = { accept = "application/json", authorization = "Bearer ${secret.google_sheets}" }
  body     = { range = "${step.sheet.title}!${input.header_row}:${input.header_row}", values = each.value }
}

step "write_columns" {
  use        = "http"
  for_each   = step.plan.header_all == null ? [] : [step.plan.header_all]
  method     = "PUT"
  url        = "${input.api_url}/v4/spreadsheets/${input.document_id}/values/${step.sheet.escaped_title}!${input.header_row}:${input.header_row}"
  query      = { valueInputOption = input.header_format }
  headers    = { accept = "application/json", authorization = "Bearer ${secret.google_sheets}" }
  body       = { range = "${step.sheet.title}!${input.header_row}:${input.header_row}", values = each.value }
  depends_on = [step.write_header]
}

step "add_row" {
  use        = "http"
  for_each   = input.use_append ? [] : [true]
  method     = "POST"
  url        = "${input.api_url}/v4/spreadsheets/${input.document_id}:batchUpdate"
  headers    = { accept = "application/json", authorization = "Bearer ${secret.google_sheets}" }
  body       = { requests = [{ appendDimension = { sheetId = step.sheet.sheet_id, dimension = "ROWS", length = 1 } }] }
  depends_on = [step.write_columns]
}

step "columns" {
  use        = "http"
  url        = "${input.api_url}/v4/spreadsheets/${input.document_id}/values/${step.sheet.escaped_title}!${input.header_row}:${input.header_row}"
  query      = { valueRenderOption = "UNFORMATTED_VALUE", dateTimeRenderOption = "FORMATTED_STRING" }
  headers    = { accept = "application/json", authorization = "Bearer ${secret.google_sheets}" }
  depends_on = [step.add_row]
}

# With use_append n8n reads the sheet again for the row after the last.
step "existing" {
  use        = "http"
  for_each   = input.use_append ? [true] : []
  url        = "${input.api_url}/v4/spreadsheets/${input.document_id}/values/${step.sheet.range}"
  query      = { valueRenderOption = "UNFORMATTED_VALUE", dateTimeRenderOption = "FORMATTED_STRING" }
  headers    = { accept = "application/json", authorization = "Bearer ${secret.google_sheets}" }
  depends_on = [step.columns]
}

step "values" {
  use        = "google_sheets_append_values"
  header     = try(step.columns.body.values, null)
  input_data = step.plan.input_data
  title      = step.sheet.title
  last_row   = input.use_append ? length(try(step.existing[0].body.values, [])) + 1 : step.plan.last_row
  use_append = input.use_append
}

step "write" {
  use     = "http"
  method  = input.use_append ? "POST" : "PUT"
  url     = "${input.api_url}/v4/spreadsheets/${input.document_id}/values/${step.values.path}${input.use_append ? ":append" : ""}"
  query   = { valueInputOption = input.cell_format }
  headers = { accept = "application/json", authorization = "Bearer ${secret.google_sheets}" }
  body    = { range = step.values.range, values = step.values.values }
}

output "items" {
  value       = step.plan.auto ? input.rows : step.plan.input_data
  description = "What n8n's node gives: the items as they came (autoMapInputData), else the rows mapped"
}
