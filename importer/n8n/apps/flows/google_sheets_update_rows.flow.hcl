# Google Sheets: update rows of a sheet, found by the value of a column —
# n8n's Google Sheets node v4 (GoogleSheetsV2), Sheet → Update Row, Map
# Each Column Manually, once for all the items. Written by flowctl import
# from its registry (importer/n8n/apps); every import writes the same
# file. The js block is n8n's own code (update.operation,
# GoogleSheet.js: prepareDataForUpdateOrUpsert,
# prepareDataForUpdatingByRowNumber); the requests are n8n's.
# https://developers.google.com/sheets/api/reference/rest/v4/spreadsheets.values/batchUpdate
flow "google_sheets_update_rows" {
  description = "Updates the rows of a Google Sheets sheet whose column to match on holds each row's value there"
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
  description = "The column whose value finds the row to update; row_number: the row's number"
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

input "check_row_number" {
  type        = bool
  default     = false
  description = "A row_number that is null fails (n8n from v4.6)"
}

block "google_sheets_update_data" {
  runtime     = "js"
  description = "The cells n8n's Update Row writes: for each row, those of its columns the header has, in the row whose column to match on holds its value"
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
  input "check_row_number" {
    type = bool
  }
  output "update_data" {
    type = any
  }
  output "mapped" {
    type = any
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
    function execute(input) {
      const sheetData = input.sheet_data;
      const keyRowIndex = input.key_row - 1;
      const dataStartRowIndex = input.data_start_row - 1;
      if (!sheetData || sheetData[keyRowIndex] === undefined) {
        throw new Error('Could not retrieve the column names from row ' + (keyRowIndex + 1));
      }
      const columnNames = sheetData[keyRowIndex];
      const indexKey = input.match_column;
      const keyIndex = columnNames.indexOf(indexKey);
      const columnValues = sheetData.slice(dataStartRowIndex - 1).map((row) => row[keyIndex]).splice(1);
      const updateData = [];
      const mapped = [];
      input.rows.forEach((row, i) => {
        const mappingValues = Object.assign({}, row);
        if (mappingValues[indexKey] === '' || mappingValues[indexKey] === undefined) {
          throw new Error("The 'Column to Match On' parameter is required (item " + i + ')');
        }
        Object.keys(mappingValues).forEach((key) => {
          if (key === ROW_NUMBER && (mappingValues[key] === undefined || mappingValues[key] === null) && input.check_row_number) {
            throw new Error("row_number is null or undefined: since it's being used to determine the row to update, it cannot be null or undefined");
          }
          if (mappingValues[key] === undefined || mappingValues[key] === null) mappingValues[key] = '';
        });
        mapped.push(mappingValues);
        if (indexKey === ROW_NUMBER) {
          for (const name of columnNames) {
            if (name === ROW_NUMBER) continue;
            if (mappingValues[name] === undefined || mappingValues[name] === null) continue;
            updateData.push({ range: input.title + '!' + encodeCol(columnNames.indexOf(name)) + mappingValues.row_number, values: [[cell(mappingValues[name])]] });
          }
          return;
        }
        if (keyIndex === -1) throw new Error('Could not find column for key "' + indexKey + '"');
        const inputIndexKey = mappingValues[indexKey];
        let index = -1;
        for (let k = 0; k < columnValues.length; k++) {
          if (columnValues[k] !== undefined && columnValues[k] !== null && columnValues[k].toString() === inputIndexKey.toString()) {
            index = k;
            break;
          }
        }
        if (index === -1) return;
        const updateRowIndex = index + dataStartRowIndex + 1;
        for (const name of columnNames) {
          if (name === indexKey) continue;
          if (mappingValues[name] === undefined || mappingValues[name] === null) continue;
          updateData.push({ range: input.title + '!' + encodeCol(columnNames.indexOf(name)) + updateRowIndex, values: [[cell(mappingValues[name])]] });
        }
      });
      return { update_data: updateData, mapped: updateData.length ? mapped : [] };
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
  use              = "google_sheets_update_data"
  sheet_data       = try(step.data.body.values, null)
  rows             = input.rows
  title            = step.sheet.title
  match_column     = input.match_column
  key_row          = input.header_row
  data_start_row   = input.first_data_row
  check_row_number = input.check_row_number
}

step "write" {
  use      = "http"
  for_each = length(step.plan.update_data) > 0 ? [true] : []
  method   = "POST"
  url      = "${input.api_url}/v4/spreadsheets/${input.document_id}/values:batchUpdate"
  headers  = { accept = "application/json", authorization = "Bearer ${secret.google_sheets}" }
  body     = { data = step.plan.update_data, valueInputOption = input.cell_format }
}

output "items" {
  value       = step.plan.mapped
  description = "What n8n's node gives: the rows as mapped (null values as \"\"), none when no row is updated"
}
