// The list nodes of the n8n_code block's adapter (after n8n_code.js):
// Split Out and Aggregate, and the lodash comparisons they and Sort use.

// Split Out (n8n-nodes-base.splitOut): one item per element of a field.
function splitOut(items, p) {
  // n8n reads Destination Field Name and Disable Dot Notation from the
  // node's options.
  var opts = p.options || {}
  var fields = String(p.fieldToSplitOut || '').split(',').map(function (f) { return f.trim().replace(/^\$json\./, '') })
  var dests = String(opts.destinationFieldName || '').split(',').map(function (f) { return f.trim() }).filter(function (f) { return f !== '' })
  if (dests.length && dests.length !== fields.length) {
    throw new Error('If multiple fields to split out are given, the same number of destination fields must be given')
  }
  var include = p.include || 'noOtherFields'
  var out = []
  items.forEach(function (json) {
    var item = Object.assign({}, json)
    var rows = []
    fields.forEach(function (field, n) {
      var dest = dests[n] || ''
      var v = opts.disableDotNotation ? item[field] : get(item, field)
      if (v === undefined) {
        v = []
      }
      if (typeof v !== 'object' || v === null) {
        v = [v]
      }
      if (!Array.isArray(v)) {
        v = Object.values(v)
      }
      v.forEach(function (e, i) {
        rows[i] = rows[i] || {}
        if (typeof e === 'object' && e !== null && include === 'noOtherFields' && dest === '' && fields.length === 1) {
          rows[i] = Object.assign({}, rows[i], e)
        } else {
          rows[i][dest || field] = e
        }
      })
    })
    rows.forEach(function (row) {
      if (include === 'allOtherFields') {
        var copy = JSON.parse(JSON.stringify(item))
        fields.forEach(function (f) {
          if (opts.disableDotNotation) {
            delete copy[f]
          } else {
            unsetPath(copy, f)
          }
        })
        row = Object.assign(copy, row)
      } else if (include === 'selectedOtherFields') {
        var selected = String(p.fieldsToInclude || '').split(',').map(function (f) { return f.trim() }).filter(Boolean)
        if (!selected.length) {
          throw new Error('No fields specified')
        }
        selected.forEach(function (f) {
          row[f] = opts.disableDotNotation ? item[f] : get(item, f)
        })
      }
      out.push(row)
    })
  })
  return out
}

// Aggregate (n8n-nodes-base.aggregate): fields into lists, or all items
// into one list; one item.
function aggregate(items, p) {
  var out = {}
  if ((p.aggregate || 'aggregateIndividualFields') === 'aggregateIndividualFields') {
    var opts = p.options || {}
    ;((p.fieldsToAggregate || {}).fieldToAggregate || []).forEach(function (f) {
      var field = f.fieldToAggregate || ''
      if (field === '') {
        return
      }
      var name = f.renameField && f.outputFieldName ? f.outputFieldName
        : (!opts.disableDotNotation && field.indexOf('.') >= 0 ? field.split('.').pop() : field)
      var values = []
      items.forEach(function (json) {
        var v = opts.disableDotNotation ? json[field] : get(json, field)
        if (!opts.keepMissing) {
          if (Array.isArray(v)) {
            v = v.filter(function (e) { return e !== null })
          } else if (v === null || v === undefined) {
            return
          }
        }
        if (Array.isArray(v) && opts.mergeLists) {
          values.push.apply(values, v)
        } else {
          values.push(v)
        }
      })
      out[name] = values
    })
    return [out]
  }
  var include = (p.fieldsToInclude || '').split(',').map(function (f) { return f.trim() }).filter(Boolean)
  var exclude = (p.fieldsToExclude || '').split(',').map(function (f) { return f.trim() }).filter(Boolean)
  var list = items
  if (include.length || exclude.length) {
    list = []
    items.forEach(function (json) {
      var kept = {}
      Object.keys(json).forEach(function (k) {
        if ((exclude.length && exclude.indexOf(k) >= 0) || (include.length && include.indexOf(k) < 0)) {
          return
        }
        kept[k] = json[k]
      })
      if (Object.keys(kept).length) {
        list.push(kept)
      }
    })
  }
  out[p.destinationFieldName || 'data'] = list
  return [out]
}

// equal is lodash's isEqual for JSON values.
function equal(a, b) {
  if (a === b) {
    return true
  }
  if (typeof a === 'number' && typeof b === 'number') {
    return a !== a && b !== b
  }
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) {
    return false
  }
  var ka = Object.keys(a)
  var kb = Object.keys(b)
  return ka.length === kb.length && ka.every(function (k) { return Object.prototype.hasOwnProperty.call(b, k) && equal(a[k], b[k]) })
}

// less is lodash's lt: strings compare as text, anything else as numbers.
function less(a, b) {
  if (!(typeof a === 'string' && typeof b === 'string')) {
    a = Number(a)
    b = Number(b)
  }
  return a < b
}
