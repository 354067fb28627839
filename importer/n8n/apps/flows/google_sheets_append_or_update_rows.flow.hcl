# Google Sheets: update rows of a sheet, found by the value of a column,
# and append those no row matches — n8n's Google Sheets node v4
# (GoogleSheetsV2), Sheet → Append or Update Row, Map Each Column
# Manually, once for all the items. Written by flowctl import
# from its registry (importer/n8n/apps); every import writes the same
# file. The js block is n8n's own code (appendOrUpdate.operation,
# GoogleSheet.js: prepareDataForUpdateOrUpsert, checkForSchemaChanges,
# convertObjectArrayToSheetDataArray); the requests are n8n's.
# https://developers.google.com/sheets/api/reference/rest/v4/spreadsheets.values/batchUpdate
flow "google_sheets_append_or_update_rows" {
  description = "Updates the rows of a Google Sheets sheet whose column to match on holds each row's value there, and appends the others"
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

input "rows" {
  type        = any
  description = "The rows: a list of objects, column name to value, each with the column to match on (null values are written as empty cells)"
}

input "match_column" {
  type        = string
  description = "The column whose value finds the row to update"
}

input "header_row" {
  type        = number
  default     = 1
  description = "The row of the column names"
}

input "first_data_row" {
  type        = number
  default     = 2
  description = "The first row of data"
}

input "cell_format" {
  type        = string
  default     = "USER_ENTERED"
  description = "The API's valueInputOption: USER_ENTERED (as if typed in) or RAW"
}

input "schema" {
  type        = any
  default     = null
  description = "The column names the node was set up with (n8n's columns.schema), which the header row must still have; null checks nothing"
}

block "google_sheets_upsert_data" {
  runtime     = "js"
  description = "The cells n8n's Append or Update Row writes: for each row, those of its columns the header has, in the row whose column to match on holds its value; the rows no row matches, appended after the last"
  input "sheet_data" {
    type    = any
    default = null
  }
  input "rows" {
    type = any
  }
  input "title" {
    type = string
  }
  input "match_column" {
    type = string
  }
  input "key_row" {
    type = number
  }
  input "data_start_row" {
    type = number
  }
  input "schema" {
    type    = any
    default = null
  }
  output "update_data" {
    type = any
  }
  output "mapped" {
    type = any
  }
  output "append" {
    type = any
  }
  output "append_range" {
    type = string
  }
  output "append_path" {
    type = string
  }
  source = <<-JS
    const ROW_NUMBER = 'row_number';
    function encodeCol(index) {
      let s = '';
      for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
      return s;
    }
    function cell(value) {
      if (typeof value === 'object') {
        try { return JSON.stringify(value); } catch (e) { return value; }
      }
      return value;
    }
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
      const sheetData = input.sheet_data || [];
      const keyRowIndex = input.key_row - 1;
      const dataStartRowIndex = input.data_start_row - 1;
      if (!sheetData[keyRowIndex]) {
        if (!sheetData.length) {
          throw new Error("The sheet is empty: n8n then maps the items' fields as columns, in their order, which this flow does not know (its objects' keys are sorted); add the header row to the sheet");
        }
        throw new Error('Could not retrieve the column names from row ' + (keyRowIndex + 1));
      }
      const columnNames = sheetData[keyRowIndex];
      if (input.schema) checkForSchemaChanges(columnNames, input.schema);
      const indexKey = input.match_column;
      const keyIndex = columnNames.indexOf(indexKey);
      const columnValues = sheetData.slice(dataStartRowIndex - 1).map((row) => row[keyIndex]).splice(1);
      const updateData = [];
      const appendData = [];
      const mapped = [];
      input.rows.forEach((row, i) => {
        const mappingValues = Object.assign({}, row);
        if (mappingValues[indexKey] === '' || mappingValues[indexKey] === undefined) {
          throw new Error("The 'Column to Match On' parameter is required (item " + i + ')');
        }
        Object.keys(mappingValues).forEach((key) => {
          if (mappingValues[key] === undefined || mappingValues[key] === null) mappingValues[key] = '';
        });
        mapped.push(mappingValues);
        const inputIndexKey = mappingValues[indexKey];
        let index = -1;
        for (let k = 0; k < columnValues.length; k++) {
          if (columnValues[k] !== undefined && columnValues[k] !== null && columnValues[k].toString() === inputIndexKey.toString()) {
            index = k;
            break;
          }
        }
        if (index === -1) {
          appendData.push(mappingValues);
          return;
        }
        const updateRowIndex = index + dataStartRowIndex + 1;
        for (const name of columnNames) {
          if (name === indexKey) continue;
          if (mappingValues[name] === undefined || mappingValues[name] === null) continue;
          updateData.push({ range: input.title + '!' + encodeCol(columnNames.indexOf(name)) + updateRowIndex, values: [[cell(mappingValues[name])]] });
        }
      });
      const append = appendData.map((item) => columnNames.map((key) => {
        const value = item[key];
        if (value === undefined || value === null) return '';
        if (typeof value === 'object') return JSON.stringify(value);
        return value;
      }));
      const row = sheetData.length + 1;
      const rows = row + ':' + (append.length ? row + append.length - 1 : row);
      return { update_data: updateData, mapped: mapped, append: append, append_range: input.title + '!' + rows, append_path: encodeURIComponent(input.title) + '!' + rows };
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

step "plan" {
  use            = "google_sheets_upsert_data"
  sheet_data     = try(step.data.body.values, null)
  rows           = input.rows
  title          = step.sheet.title
  match_column   = input.match_column
  key_row        = input.header_row
  data_start_row = input.first_data_row
  schema         = input.schema
}

step "write" {
  use      = "http"
  for_each = length(step.plan.update_data) > 0 ? [true] : []
  method   = "POST"
  url      = "${input.api_url}/v4/spreadsheets/${input.document_id}/values:batchUpdate"
  headers  = { accept = "application/json", authorization = "Bearer ${secret.google_sheets}" }
  body     = { data = step.plan.update_data, valueInputOption = input.cell_format }
}

step "add_row" {
  use        = "http"
  for_each   = length(step.plan.append) > 0 ? [true] : []
  method     = "POST"
  url        = "${input.api_url}/v4/spreadsheets/${input.document_id}:batchUpdate"
  headers    = { accept = "application/json", authorization = "Bearer ${secret.google_sheets}" }
  body       = { requests = [{ appendDimension = { sheetId = step.sheet.sheet_id, dimension = "ROWS", length = 1 } }] }
  depends_on = [step.write]
}

step "append" {
  use        = "http"
  for_each   = length(step.plan.append) > 0 ? [true] : []
  method     = "PUT"
  url        = "${input.api_url}/v4/spreadsheets/${input.document_id}/values/${step.plan.append_path}"
  query      = { valueInputOption = input.cell_format }
  headers    = { accept = "application/json", authorization = "Bearer ${secret.google_sheets}" }
  body       = { range = step.plan.append_range, values = step.plan.append }
  depends_on = [step.add_row]
}

output "items" {
  value       = step.plan.mapped
  description = "What n8n's node gives: the rows as mapped (null values as \"\")"
}
