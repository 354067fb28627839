# Google Sheets: read the rows of a sheet, all or those the filters
# match — n8n's Google Sheets node v4 (GoogleSheetsV2), Sheet → Get
# Row(s), for one item. Written by flowctl import from its registry
# (importer/n8n/apps); every import writes the same file. The two js
# blocks are n8n's own code (GoogleSheet.js, GoogleSheets.utils.js).
# https://developers.google.com/sheets/api/reference/rest/v4/spreadsheets/get
# https://developers.google.com/sheets/api/reference/rest/v4/spreadsheets.values/get
flow "google_sheets_read_rows" {
  description = "Reads the rows of a Google Sheets sheet as items: an object for each row, by the header row's names, with its row_number"
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

input "range_definition" {
  type        = string
  default     = "detectAutomatically"
  description = "Where the data is: detectAutomatically, specifyRange (header_row, first_data_row) or specifyRangeA1 (range)"
}

input "header_row" {
  type        = number
  default     = 1
  description = "The row of the column names (specifyRange)"
}

input "first_data_row" {
  type        = number
  default     = 2
  description = "The first row of data (specifyRange)"
}

input "range" {
  type        = string
  default     = ""
  description = "The A1 range to read (specifyRangeA1), such as A1:D20"
}

input "read_rows_until" {
  type        = string
  default     = "lastRowInSheet"
  description = "lastRowInSheet (empty rows are left out) or firstEmptyRow"
}

input "value_render" {
  type        = string
  default     = "UNFORMATTED_VALUE"
  description = "The API's valueRenderOption: UNFORMATTED_VALUE, FORMATTED_VALUE or FORMULA"
}

input "date_render" {
  type        = string
  default     = "FORMATTED_STRING"
  description = "The API's dateTimeRenderOption: FORMATTED_STRING or SERIAL_NUMBER"
}

input "filters" {
  type        = any
  default     = []
  description = "The rows to return: a list of { lookupColumn, lookupValue }; none returns every row"
}

input "combine_filters" {
  type        = string
  default     = "AND"
  description = "AND: rows that match every filter; OR: rows that match one"
}

input "match" {
  type        = string
  default     = "all"
  description = "The rows the filters return: all, first (the first row that matches), or first_per_filter (with OR, the first row each filter matches)"
}

block "google_sheets_rows" {
  runtime     = "js"
  description = "The rows of a sheet as n8n's Get Row(s) gives them (readSheet: prepareSheetData, then lookupValues or structureArrayDataByColumn)"
  input "values" {
    type = any
  }
  input "options" {
    type = any
  }
  output "items" {
    type = any
  }
  source = <<-JS
    const ROW_NUMBER = 'row_number';
    function addRowNumber(data, headerRow) {
      if (data.length === 0) return data;
      const sheetData = data.map((row, i) => [i + 1, ...row]);
      sheetData[headerRow][0] = ROW_NUMBER;
      return sheetData;
    }
    function trimToFirstEmptyRow(data, includesRowNumber = true) {
      const baseLength = includesRowNumber ? 1 : 0;
      const emptyRowIndex = data.findIndex((row) => row.slice(baseLength).every((cell) => cell === ''));
      if (emptyRowIndex === -1) return data;
      return data.slice(0, emptyRowIndex);
    }
    function removeEmptyRows(data, includesRowNumber = true) {
      const baseLength = includesRowNumber ? 1 : 0;
      const notEmptyRows = data.filter((row) => row.slice(baseLength).some((cell) => cell || typeof cell === 'number' || typeof cell === 'boolean'));
      if (includesRowNumber) notEmptyRows[0][0] = ROW_NUMBER;
      return notEmptyRows;
    }
    function trimLeadingEmptyRows(data, includesRowNumber = true) {
      const baseLength = includesRowNumber ? 1 : 0;
      const firstNotEmptyRowIndex = data.findIndex((row) => row.slice(baseLength).some((cell) => cell || typeof cell === 'number'));
      const returnData = data.slice(firstNotEmptyRowIndex);
      if (includesRowNumber) returnData[0][0] = ROW_NUMBER;
      return returnData;
    }
    function removeEmptyColumns(data) {
      if (!data || data.length === 0) return [];
      const returnData = [];
      const longestRow = data.reduce((a, b) => (a.length > b.length ? a : b), []).length;
      for (let col = 0; col < longestRow; col++) {
        const column = data.map((row) => row[col]);
        if (column[0] !== '') {
          returnData.push(column);
          continue;
        }
        const hasData = column.slice(1).some((cell) => cell || typeof cell === 'number');
        if (hasData) returnData.push(column);
      }
      return (returnData[0] || []).map((_, i) => returnData.map((row) => (row[i] === undefined ? '' : row[i])));
    }
    function prepareSheetData(data, options) {
      let returnData = [...(data || [])];
      let headerRow = 0;
      let firstDataRow = 1;
      if (options.rangeDefinition === 'specifyRange') {
        headerRow = parseInt(options.headerRow, 10) - 1;
        firstDataRow = parseInt(options.firstDataRow, 10) - 1;
      }
      returnData = addRowNumber(returnData, headerRow);
      if (options.rangeDefinition === 'detectAutomatically') {
        returnData = removeEmptyColumns(returnData);
        returnData = trimLeadingEmptyRows(returnData, true);
        if (options.readRowsUntil === 'firstEmptyRow') {
          returnData = trimToFirstEmptyRow(returnData, true);
        } else {
          returnData = removeEmptyRows(returnData, true);
        }
      }
      return { data: returnData, headerRow: headerRow, firstDataRow: firstDataRow };
    }
    function convertSheetDataArrayToObjectArray(sheet, startRow, columnKeys, addEmpty) {
      const returnData = [];
      for (let rowIndex = startRow; rowIndex < sheet.length; rowIndex++) {
        const item = {};
        const columnCount = sheet[rowIndex].length;
        for (let columnIndex = 0; columnIndex < columnCount; columnIndex++) {
          const key = columnKeys[columnIndex];
          if (key) item[key] = sheet[rowIndex][columnIndex] ?? '';
        }
        if (Object.keys(item).length || addEmpty === true) returnData.push(item);
      }
      return returnData;
    }
    function structureArrayDataByColumn(inputData, keyRow, dataStartRow) {
      const keys = [];
      if (keyRow < 0 || dataStartRow < keyRow || keyRow >= inputData.length) return [];
      const longestRow = inputData.reduce((a, b) => (a.length > b.length ? a : b), []).length;
      for (let columnIndex = 0; columnIndex < longestRow; columnIndex++) {
        keys.push(inputData[keyRow][columnIndex] || 'col_' + columnIndex);
      }
      return convertSheetDataArrayToObjectArray(inputData, dataStartRow, keys, false);
    }
    function lookupValues(inputData, keyRowIndex, dataStartRowIndex, lookupValues, match, combineFilters) {
      const keys = [];
      if (keyRowIndex < 0 || dataStartRowIndex < keyRowIndex || keyRowIndex >= inputData.length) {
        throw new Error('The key row does not exist');
      }
      for (let columnIndex = 0; columnIndex < inputData[keyRowIndex].length; columnIndex++) {
        keys.push(inputData[keyRowIndex][columnIndex] || 'col_' + columnIndex);
      }
      for (let rowIndex = 0; rowIndex < inputData.length; rowIndex++) {
        if (inputData[rowIndex].length === 0) {
          for (let i = 0; i < keys.length; i++) inputData[rowIndex][i] = '';
        } else if (inputData[rowIndex].length < keys.length) {
          for (let i = 0; i < keys.length; i++) {
            if (inputData[rowIndex][i] === undefined) inputData[rowIndex].push('');
          }
        }
      }
      const addedRows = [];
      const returnData = [keys];
      const column = (name) => {
        const i = keys.indexOf(name);
        if (i === -1) throw new Error('The column "' + name + '" could not be found');
        return i;
      };
      const text = (v) => (v === undefined || v === null ? v : v.toString());
      if (combineFilters === 'OR') {
        lookupLoop: for (const lookupValue of lookupValues) {
          const returnColumnIndex = column(lookupValue.lookupColumn);
          for (let rowIndex = dataStartRowIndex; rowIndex < inputData.length; rowIndex++) {
            if (text(inputData[rowIndex][returnColumnIndex]) === text(lookupValue.lookupValue)) {
              if (addedRows.indexOf(rowIndex) === -1) {
                returnData.push(inputData[rowIndex]);
                addedRows.push(rowIndex);
              }
              if (match === 'first') break lookupLoop;
              if (match === 'first_per_filter') continue lookupLoop;
            }
          }
        }
      } else {
        for (let rowIndex = dataStartRowIndex; rowIndex < inputData.length; rowIndex++) {
          let allMatch = true;
          for (const lookupValue of lookupValues) {
            const returnColumnIndex = column(lookupValue.lookupColumn);
            if (text(inputData[rowIndex][returnColumnIndex]) !== text(lookupValue.lookupValue)) {
              allMatch = false;
              break;
            }
          }
          if (allMatch) {
            if (addedRows.indexOf(rowIndex) === -1) {
              returnData.push(inputData[rowIndex]);
              addedRows.push(rowIndex);
            }
            if (match !== 'all') break;
          }
        }
      }
      const dataWithoutEmptyColumns = removeEmptyColumns(returnData);
      return convertSheetDataArrayToObjectArray(dataWithoutEmptyColumns, 1, dataWithoutEmptyColumns[0], true);
    }
    function execute(input) {
      const values = input.values || [];
      const o = input.options;
      if (values.length === 0) return { items: [] };
      const prepared = prepareSheetData(values, o);
      if ((o.filters || []).length) {
        return { items: lookupValues(prepared.data, prepared.headerRow, prepared.firstDataRow, o.filters, o.match, o.combineFilters) };
      }
      return { items: structureArrayDataByColumn(prepared.data, prepared.headerRow, prepared.firstDataRow) };
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
  range  = input.range_definition == "specifyRangeA1" ? input.range : ""
}

step "values" {
  use     = "http"
  url     = "${input.api_url}/v4/spreadsheets/${input.document_id}/values/${step.sheet.range}"
  query   = { valueRenderOption = input.value_render, dateTimeRenderOption = input.date_render }
  headers = { accept = "application/json", authorization = "Bearer ${secret.google_sheets}" }
}

step "rows" {
  use    = "google_sheets_rows"
  values = try(step.values.body.values, [])
  options = {
    rangeDefinition = input.range_definition
    headerRow       = input.header_row
    firstDataRow    = input.first_data_row
    readRowsUntil   = input.read_rows_until
    filters         = input.filters
    combineFilters  = input.combine_filters
    match           = input.match
  }
}

output "items" {
  value       = step.rows.items
  description = "The rows, as n8n's node gives them: an object for each row, by the header row's names, with its row_number"
}
