
// The legacy code nodes and the list nodes that followed them, for the
// n8n_code block (its source goes on after n8n_code.js).

// legacyNormalize turns what a Function node's code returned into items,
// as n8n's normalizeItems and the node's checks do.
function legacyNormalize(result) {
  if (typeof result === 'object' && !Array.isArray(result)) {
    if (result === null) {
      throw new Error('No data got returned. Always return an Array of items!')
    }
    result = result.json ? [result] : [{ json: result }]
  }
  if (!Array.isArray(result)) {
    throw new Error('Always an Array of items has to be returned!')
  }
  var has = function (key) {
    return function (it) { return typeof it === 'object' && it !== null && key in it }
  }
  if (!result.every(has('json'))) {
    if (result.some(has('json'))) {
      throw new Error('Inconsistent item format')
    }
    if (result.length > 0 && result.every(has('binary'))) {
      throw new Error('Items with binary data are not converted by flowctl import')
    }
    result = result.map(function (it) { return { json: it } })
  }
  return result.map(function (it) {
    if (it.json === undefined) {
      throw new Error('All returned items have to contain a property named "json"!')
    }
    if (typeof it.json !== 'object') {
      throw new Error('The json-property has to be an object!')
    }
    if (!isObject(it.json)) {
      // n8n passes null (failing later) and arrays on; the flow does not.
      throw new Error('The json-property is ' + (it.json === null ? 'null' : 'an array') + ', which flowctl import does not pass on')
    }
    return JSON.parse(JSON.stringify(it.json))
  })
}

// functionNode is the Function node: its code runs once, with items (a
// copy of each item, with its index), $item(i) (the names of item i) and
// the names of item 0 ($json, $node…).
async function functionNode(input) {
  var list = input.items || []
  if (list.length === 0) {
    return []
  }
  var names = scope(input, false)
  names.items = JSON.parse(JSON.stringify(list)).map(function (json, i) {
    return { json: json, pairedItem: { item: i }, index: i }
  })
  names.$item = function (i) { return scope(Object.assign({}, input, { index: i }), true) }
  return legacyNormalize(await run(input.code, names))
}

// functionItem is the Function Item node, for the item input.index: item
// is a copy of its json, and the code returns the new json.
async function functionItem(input) {
  var names = scope(input, true)
  names.item = JSON.parse(JSON.stringify((input.items || [])[input.index || 0]))
  names.$item = function (i) { return scope(Object.assign({}, input, { index: i }), true) }
  var json = await run(input.code, names)
  if (json === undefined) {
    throw new Error('No data got returned. Always an object has to be returned!')
  }
  if (!isObject(json)) {
    throw new Error('The code returned ' + (json === null ? 'null' : typeof json === 'object' ? 'an array' : 'a ' + typeof json) + ', not an object: flowctl import passes on objects only')
  }
  return [JSON.parse(JSON.stringify(json))]
}

// fieldList is a list of field names given as text (commas between) or
// as a list, as n8n's prepareFieldsArray reads it.
function fieldList(v) {
  if (Array.isArray(v)) {
    return v
  }
  return String(v || '').split(',').map(function (f) { return f.trim() }).filter(function (f) { return f !== '' })
}

// flattenKeys are the dot paths of an object's leaves, as n8n's
// flattenKeys (an empty object or list has none).
function flattenKeys(v, prefix, out) {
  if (v !== null && typeof v === 'object') {
    Object.keys(v).forEach(function (k) { flattenKeys(v[k], prefix.concat([k]), out) })
  } else {
    var key = prefix.join('.')
    if (out.indexOf(key) < 0) {
      out.push(key)
    }
  }
  return out
}

// setPath sets a dot path in an object, as lodash's set: a missing step
// is an object, or a list when the next step is an index.
function setPath(obj, path, value) {
  var parts = String(path).replace(/\[(\w+)\]/g, '.$1').split('.').filter(function (p) { return p !== '' })
  var o = obj
  for (var i = 0; i < parts.length - 1; i++) {
    if (o[parts[i]] === null || typeof o[parts[i]] !== 'object') {
      o[parts[i]] = /^(0|[1-9]\d*)$/.test(parts[i + 1]) ? [] : {}
    }
    o = o[parts[i]]
  }
  o[parts[parts.length - 1]] = value
  return obj
}

// unsetPath deletes a dot path, as lodash's unset.
function unsetPath(obj, path) {
  var parts = String(path).replace(/\[(\w+)\]/g, '.$1').split('.').filter(function (p) { return p !== '' })
  var o = obj
  for (var i = 0; i < parts.length - 1; i++) {
    if (o === null || typeof o !== 'object') {
      return
    }
    o = o[parts[i]]
  }
  if (o !== null && typeof o === 'object') {
    delete o[parts[parts.length - 1]]
  }
}

// removeDuplicates is Remove Duplicates (v1, v2's Remove Items Repeated
// Within Current Input) and Item Lists' Remove Duplicates: the first item
// of each set of items equal on the fields compared (lodash's isEqual),
// with n8n's checks of the fields. n8n sorts the items on the fields and
// keeps the first of each run of equals, which is the same when the
// fields' values can be ordered; values that cannot (lists, objects, null
// beside other values) are an error rather than a guess.
function removeDuplicates(items, p) {
  var opts = p.options || {}
  var dot = !opts.disableDotNotation
  var version = p.__version || 2
  var read = function (json, key) { return dot ? get(json, key) : json[key] }
  var keysOf = function (json) { return dot ? flattenKeys(json, [], []) : Object.keys(json) }
  var keys = keysOf(items[0])
  items.forEach(function (json) {
    keysOf(json).forEach(function (k) {
      if (keys.indexOf(k) < 0) {
        keys.push(k)
      }
    })
  })
  var compare = p.compare || 'allFields'
  if (compare === 'allFieldsExcept') {
    var exclude = fieldList(p.fieldsToExclude)
    if (!exclude.length) {
      throw new Error('No fields specified. Please add a field to exclude from comparison')
    }
    keys = (dot ? keysOf(items[0]) : keys).filter(function (k) { return exclude.indexOf(k) < 0 })
  } else if (compare === 'selectedFields') {
    var fields = fieldList(p.fieldsToCompare)
    if (!fields.length) {
      throw new Error('No fields specified. Please add a field to compare on')
    }
    keys = fields.map(function (k) { return String(k).trim() })
  }
  for (var k = 0; k < keys.length; k++) {
    var key = keys[k]
    var seenType = ''
    var values = []
    for (var i = 0; i < items.length; i++) {
      if (key === '') {
        throw new Error('Name of field to compare is blank')
      }
      var v = read(items[i], key)
      if (v === null && version > 1) {
        values.push(v)
        continue
      }
      if (v === undefined) {
        throw new Error("'" + key + "' field is missing from some input items")
      }
      if (seenType !== '' && seenType !== typeof v) {
        throw new Error("'" + key + "' isn't always the same type")
      }
      seenType = typeof v
      values.push(v)
    }
    var objects = values.some(function (x) { return x !== null && typeof x === 'object' })
    var nulls = values.some(function (x) { return x === null }) && values.some(function (x) { return x !== null })
    if ((objects || nulls) && values.some(function (x) { return !equal(x, values[0]) })) {
      throw new Error("'" + key + "' holds lists, objects or nulls beside other values, whose order n8n's comparison leaves open; flowctl import does not guess it")
    }
  }
  var kept = []
  var out = []
  items.forEach(function (json) {
    var dup = kept.some(function (k) {
      return keys.every(function (key) { return equal(read(json, key), read(k, key)) })
    })
    if (!dup) {
      kept.push(json)
      out.push(json)
    }
  })
  if (opts.removeOtherFields) {
    out = out.map(function (json) {
      var picked = {}
      keys.forEach(function (key) {
        var v = read(json, key)
        if (v !== undefined) {
          setPath(picked, key, v)
        }
      })
      return picked
    })
  }
  return out
}

// renameKeys is Rename Keys for one item: each key renamed (lodash's get,
// set and unset on dot paths), then the regular expressions' renames.
function renameKeys(json, p) {
  var out = JSON.parse(JSON.stringify(json))
  ;((p.keys || {}).key || []).forEach(function (k) {
    var from = k.currentKey === undefined ? '' : k.currentKey
    var to = k.newKey === undefined ? '' : k.newKey
    if (from === '' || to === '' || from === to) {
      return
    }
    var v = get(json, from)
    if (v === undefined) {
      return
    }
    setPath(out, to, v)
    unsetPath(out, from)
  })
  ;(((p.additionalOptions || {}).regexReplacement || {}).replacements || []).forEach(function (r) {
    var o = r.options || {}
    var regex = new RegExp(r.searchRegex, o.caseInsensitive ? 'i' : undefined)
    var depth = o.depth === undefined ? -1 : o.depth
    var rename = function (obj, d) {
      if (obj === null || typeof obj !== 'object') {
        return obj
      }
      // The keys as they are when the renaming starts (a key renamed is
      // not visited again).
      Object.keys(obj).forEach(function (key) {
        if (Array.isArray(obj)) {
          if (d !== 0) {
            rename(obj[key], d - 1)
          }
          return
        }
        if (!Object.prototype.hasOwnProperty.call(obj, key)) {
          return
        }
        if (typeof obj[key] === 'object' && d !== 0) {
          rename(obj[key], d - 1)
        }
        if (regex.test(key)) {
          var renamed = key.replace(regex, r.replaceRegex)
          if (renamed !== key) {
            obj[renamed] = obj[key]
            delete obj[key]
          }
        }
      })
      return obj
    }
    out = rename(out, depth)
  })
  return out
}

// summarize is Summarize (v1, v1.1) and Item Lists' Summarize: the
// aggregations of the fields, for all the items or for each group of
// items split by fields, in one item or an item for each group, as n8n's
// Summarize node computes them.
function summarize(items, p) {
  var opts = p.options || {}
  var version = p.__version || 1.1
  var read = function (json, field) { return opts.disableDotNotation ? json[field] : get(json, field) }
  var names = { append: 'appended_', average: 'average_', concatenate: 'concatenated_', count: 'count_', countUnique: 'unique_count_', max: 'max_', min: 'min_', sum: 'sum_' }
  var empty = function (v) { return v === undefined || v === null || v === '' }
  var normalize = function (name) { return String(name).replace(/[\]\["]/g, '').replace(/[ .]/g, '_') }
  var entries = (((p.fieldsToSummarize || { values: [{}] }).values) || []).map(function (e) {
    return Object.assign({ aggregation: 'count', field: '', includeEmpty: false, separateBy: ',', customSeparator: '' }, e)
  })
  if (entries.filter(function (e) { return e.field !== '' }).length === 0) {
    throw new Error("You need to add at least one aggregation to 'Fields to Summarize' with non empty 'Field'")
  }
  var split = String(p.fieldsToSplitBy || '').split(',').map(function (f) { return f.trim() }).filter(function (f) { return f !== '' })
  var aggregate = function (data, e) {
    var f = e.field
    if (e.aggregation === 'average' || e.aggregation === 'sum') {
      data = data.filter(function (it) { return typeof read(it, f) === 'number' })
    }
    var kept = function () { return e.includeEmpty ? data : data.filter(function (it) { return !empty(read(it, f)) }) }
    var i = 0
    var v = null
    switch (e.aggregation) {
      case 'append':
        return kept().map(function (it) { return read(it, f) })
      case 'concatenate':
        return kept().map(function (it) {
          v = read(it, f)
          if (typeof v === 'object') {
            v = JSON.stringify(v)
          }
          return typeof v === 'undefined' ? 'undefined' : v
        }).join(e.separateBy === 'other' ? e.customSeparator : e.separateBy)
      case 'average':
      case 'sum':
        var total = 0
        for (i = 0; i < data.length; i++) {
          total = total + read(data[i], f)
        }
        return e.aggregation === 'sum' ? total : total / data.length
      case 'min':
      case 'max':
        var best = undefined
        for (i = 0; i < data.length; i++) {
          v = read(data[i], f)
          if (!empty(v) && (best === undefined || (e.aggregation === 'min' ? v < best : v > best))) {
            best = v
          }
        }
        return best === undefined ? null : best
      case 'countUnique':
        var seen = new Set()
        data.forEach(function (it) {
          v = read(it, f)
          if (e.includeEmpty || !empty(v)) {
            seen.add(v)
          }
        })
        return seen.size
    }
    return kept().length
  }
  var result = function (data) {
    var out = {}
    entries.forEach(function (e) {
      out[normalize(names[e.aggregation] + e.field)] = aggregate(data, e)
    })
    return out
  }
  // group is a tree of Maps (n8n's, which keep the split values' types).
  var group = function (data, keys) {
    if (!keys.length) {
      return { data: result(data) }
    }
    var groups = new Map()
    data.forEach(function (it) {
      var v = read(it, keys[0])
      if (v && typeof v === 'object') {
        v = JSON.stringify(v)
      }
      if (version === 1) {
        v = String(v)
      }
      if (opts.skipEmptySplitFields && typeof v !== 'number' && !v) {
        return
      }
      groups.set(v, (groups.get(v) || []).concat([it]))
    })
    var splits = new Map()
    groups.forEach(function (list, k) { splits.set(k, group(list, keys.slice(1))) })
    return { field: keys[0], splits: splits }
  }
  var tree = group(items, split)
  if (version === 1 && !opts.continueIfFieldNotFound) {
    entries.forEach(function (e) {
      if (e.field !== '' && !items.some(function (it) { return read(it, e.field) !== undefined })) {
        throw new Error("The field '" + e.field + "' does not exist in any items")
      }
    })
  }
  if (opts.outputFormat === 'singleItem') {
    var toObject = function (t) {
      if (!t.splits) {
        return t.data
      }
      var o = {}
      t.splits.forEach(function (sub, k) { o[k] = toObject(sub) })
      return o
    }
    return [toObject(tree)]
  }
  var toArray = function (t) {
    if (!t.splits) {
      return [t.data]
    }
    var out = []
    t.splits.forEach(function (sub, k) {
      toArray(sub).forEach(function (d) {
        d[normalize(t.field)] = k
        out.push(d)
      })
    })
    return out
  }
  return toArray(tree)
}

// itemListsSplitOut is Item Lists' Split Out Items: v3 is Split Out; the
// versions before it fail where v3 gives nothing or wraps a value — v1
// and v2.0 on a field the item lacks, v1 on a value that is not a list,
// v2.0 and v2.1 on one that is not a list or an object.
function itemListsSplitOut(items, p) {
  var version = p.__version || 3
  var opts = p.options || {}
  var fields = String(p.fieldToSplitOut || '').split(',').map(function (f) { return f.trim() })
  if (version < 2.2) {
    items.forEach(function (json) {
      fields.forEach(function (field) {
        var v = opts.disableDotNotation ? json[field] : get(json, field)
        if (v === undefined && version < 2.1) {
          throw new Error("Couldn't find the field '" + field + "' in the input data")
        }
        if (v !== undefined && version < 2 && !Array.isArray(v)) {
          throw new Error("The provided field '" + field + "' is not an array")
        }
        if (v !== undefined && (typeof v !== 'object' || v === null)) {
          throw new Error("The provided field '" + field + "' is not an array or object")
        }
        if (version < 2 && (v.indexOf(null) >= 0 || (p.include === 'allOtherFields' && Object.keys(json).some(function (k) { return /[.[]/.test(k) })))) {
          // v1 makes {} of a null element, and reads the other fields by
          // path: values v3 does not give.
          throw new Error('Item Lists v1 splits this item in a way flowctl import does not follow (a null element, or a field name with a dot)')
        }
      })
    })
  }
  return splitOut(items, p)
}
