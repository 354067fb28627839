// The n8n_code block's source: n8n's Code node, n8n's expressions and the
// list nodes written in JavaScript, over the items a step is given (each
// item's json; items[index] is the current one). flowctl import writes it
// into blocks/n8n.block.hcl; docs/import.md says what it follows of n8n.

// AdapterError is an error of the adapter itself (an unknown node name, an
// item that does not exist): n8n's expressions let these through, where
// they turn other errors into an empty value.
class AdapterError extends Error {}

function wrap(list) {
  return (list || []).map(function (json, i) {
    return { json: json, pairedItem: { item: i } }
  })
}

// accessor is $input, or $('Node'): the items of a node; index is the
// current item's (for $input) or its paired item's (for a node).
function accessor(name, list, index) {
  return {
    all: function () { return list },
    first: function () { return list[0] },
    last: function () { return list[list.length - 1] },
    get item() {
      if (index === undefined) {
        throw new AdapterError('The paired item in the items of ' + name + ' is not known')
      }
      if (index >= list.length) {
        throw new AdapterError('No item ' + index + ' in the items of ' + name)
      }
      return list[index]
    },
    itemMatching: function (i) { return list[i] },
    isExecuted: true,
    params: {},
  }
}

// scope is the names n8n gives code and expressions.
function scope(input, perItem) {
  var items = wrap(input.items)
  var index = input.index || 0
  var nodes = {}
  Object.keys(input.nodes || {}).forEach(function (name) {
    nodes[name] = wrap(input.nodes[name])
  })
  // pairs: for each node the code names with .item, the index of each
  // input item's paired item in that node's items (n8n's pairedItem).
  var pairs = input.pairs || {}
  var $ = function (name) {
    if (!(name in nodes)) {
      throw new AdapterError('Referenced node "' + name + '" is unknown or has not run')
    }
    return accessor(name, nodes[name], name in pairs ? pairs[name][index] : undefined)
  }
  var $node = {}
  Object.keys(nodes).forEach(function (name) {
    Object.defineProperty($node, name, {
      enumerable: true,
      get: function () {
        // n8n's $node["Node"] is that node's item at the current index.
        var it = nodes[name][index]
        if (!it) {
          throw new AdapterError('"' + name + '" node has ' + nodes[name].length + " item(s) but you're trying to access item " + index)
        }
        return { json: it.json, parameter: {}, runIndex: 0, context: {} }
      },
    })
  })
  var current = items[perItem ? index : 0]
  return {
    $input: accessor('$input', items, index),
    $json: current ? current.json : undefined,
    $binary: {},
    $: $,
    $node: $node,
    $items: function (name) { return name === undefined ? items : $(name).all() },
    $itemIndex: index,
    $runIndex: 0,
    $workflow: { name: input.workflow, active: false },
    $prevNode: { name: input.prev || '', outputIndex: 0, runIndex: 0 },
    items: items,
    item: perItem ? current : undefined,
  }
}

// run runs a Code node's JavaScript as n8n does: the body of an async
// function, with the names of scope.
async function run(code, names) {
  var keys = Object.keys(names)
  var AsyncFunction = Object.getPrototypeOf(async function () {}).constructor
  var fn = new AsyncFunction(keys.join(', '), code + '\n')
  return await fn.apply({}, keys.map(function (k) { return names[k] }))
}

function isObject(v) {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

var itemKeys = ['json', 'binary', 'pairedItem', 'error', 'index']

// normalize turns what the code returned into items, with n8n's checks.
function normalize(result) {
  if (result === null || result === undefined) {
    return []
  }
  if (typeof result !== 'object') {
    throw new Error("Code doesn't return items properly: please return an array of objects, one for each item you would like to output.")
  }
  var list = Array.isArray(result) ? result : (result.json ? [result] : [{ json: result }])
  list.forEach(function (it) {
    if (!isObject(it)) {
      throw new Error("Code doesn't return items properly: please return an array of objects, one for each item you would like to output.")
    }
  })
  var withKey = list.filter(function (it) { return 'json' in it })
  if (withKey.length > 0 && withKey.length < list.length) {
    throw new Error('Inconsistent item format')
  }
  if (withKey.length === 0) {
    list = list.map(function (it) { return { json: it } })
  }
  return list.map(function (it, i) {
    Object.keys(it).forEach(function (k) {
      if (itemKeys.indexOf(k) < 0) {
        throw new Error('Unknown top-level item key: ' + k + ' [item ' + i + ']')
      }
    })
    if (!isObject(it.json)) {
      throw new Error("A 'json' property isn't an object [item " + i + ']')
    }
    return it.json
  })
}

// split cuts an n8n expression into text and code, as n8n does: {{ opens
// code (unless escaped by a backslash) and the next }} closes it.
function split(expr) {
  var chunks = []
  var open = true
  var buf = ''
  var i = 0
  while (i < expr.length) {
    var rest = expr.slice(i)
    var at = rest.indexOf(open ? '{{' : '}}')
    if (at < 0) {
      chunks.push({ code: !open, text: buf + rest })
      return chunks
    }
    var before = rest.slice(0, at)
    var slashes = before.match(/\\*$/)[0].length
    if (slashes % 2 === 1) {
      buf += rest.slice(0, at + 2)
      i += at + 2
      continue
    }
    buf += before
    chunks.push({ code: !open, text: open ? buf.replace(/\\\\/g, '\\') : buf.replace('\\}}', '}}') })
    open = !open
    buf = ''
    i += at + 2
  }
  if (buf !== '' || chunks.length === 0) {
    chunks.push({ code: !open, text: buf })
  }
  return chunks
}

// evaluate gives an n8n expression's value: one code part alone is its
// value; text with code parts joins them as text, an empty value (but 0
// and false) as nothing. An error other than the adapter's makes the
// part's value empty, as n8n's evaluator does.
function evaluate(expr, names) {
  if (typeof expr !== 'string' || expr.charAt(0) !== '=') {
    return expr
  }
  var chunks = split(expr.slice(1))
  var keys = Object.keys(names)
  var args = keys.map(function (k) { return names[k] })
  var value = function (code) {
    var src = code.trim().charAt(0) === '{' ? '(' + code + ')' : code
    try {
      var fn = new Function(keys.join(', '), 'return (' + src + '\n)')
      return fn.apply({}, args)
    } catch (e) {
      if (e instanceof AdapterError) {
        throw e
      }
      if (e instanceof SyntaxError) {
        throw new Error('invalid syntax in ' + JSON.stringify(code.trim()))
      }
      return undefined
    }
  }
  if (chunks.length === 2 && !chunks[0].code && chunks[0].text === '' && chunks[1].code) {
    return value(chunks[1].text)
  }
  return chunks.map(function (c) {
    if (!c.code) {
      return c.text
    }
    var v = value(c.text)
    return v || v === 0 || v === false ? v : ''
  }).join('')
}

// get reads a dot path, as lodash's get.
function get(obj, path) {
  var parts = String(path).replace(/\[(\w+)\]/g, '.$1').split('.').filter(function (p) { return p !== '' })
  var v = obj
  for (var i = 0; i < parts.length; i++) {
    if (v === null || v === undefined) {
      return undefined
    }
    v = v[parts[i]]
  }
  return v
}

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

// stableSort sorts with a comparison, keeping the order of equal items.
function stableSort(list, cmp) {
  return list.map(function (v, i) { return [v, i] }).sort(function (x, y) {
    return cmp(x[0], y[0]) || x[1] - y[1]
  }).map(function (x) { return x[0] })
}

// sort (n8n-nodes-base.sort) by fields: text without case; or by code.
async function sort(items, p, names) {
  if (p.type === 'code') {
    var wrapped = wrap(items)
    var sorted = await run('return items.sort((a, b) => { ' + p.code + ' })', Object.assign({}, names, { items: wrapped }))
    return normalize(sorted)
  }
  if (p.type === 'random') {
    var copy = items.slice()
    for (var i = copy.length - 1; i > 0; i--) {
      var j = Math.floor(Math.random() * (i + 1))
      var t = copy[i]
      copy[i] = copy[j]
      copy[j] = t
    }
    return copy
  }
  var fields = ((p.sortFieldsUi || {}).sortField || [])
  if (!fields.length) {
    throw new Error('No sorting specified. Please add a field to sort by')
  }
  var dot = !(p.options || {}).disableDotNotation
  var read = function (json, name) {
    var v = dot ? get(json, name) : json[name]
    return typeof v === 'string' ? v.toLowerCase() : v
  }
  fields.forEach(function (f) {
    var found = items.some(function (json) { return dot ? get(json, f.fieldName) !== undefined : Object.prototype.hasOwnProperty.call(json, f.fieldName) })
    if (!found) {
      throw new Error("Couldn't find the field '" + f.fieldName + "' in the input data")
    }
  })
  return stableSort(items, function (a, b) {
    for (var k = 0; k < fields.length; k++) {
      var dir = fields[k].order === 'descending' ? -1 : 1
      var x = read(a, fields[k].fieldName)
      var y = read(b, fields[k].fieldName)
      if (!equal(x, y)) {
        return less(x, y) ? -dir : dir
      }
    }
    return 0
  })
}

var months = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December']
var days = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday']

function pad(n, w) {
  var s = String(n)
  while (s.length < w) {
    s = '0' + s
  }
  return s
}

function ordinal(n) {
  var rest = n % 100
  if (rest >= 11 && rest <= 13) {
    return n + 'th'
  }
  return n + (['th', 'st', 'nd', 'rd'][n % 10] || 'th')
}

// lodashMerge merges src into target as lodash's merge does for JSON:
// objects and arrays key by key, deeply; other values replace.
function lodashMerge(target, src) {
  Object.keys(src).forEach(function (k) {
    var s = src[k]
    var t = target[k]
    if (s !== null && typeof s === 'object') {
      var base
      if (Array.isArray(s)) {
        base = Array.isArray(t) ? t.slice() : []
      } else {
        base = isObject(t) ? Object.assign({}, t) : {}
      }
      target[k] = lodashMerge(base, s)
    } else if (s !== undefined || !(k in target)) {
      target[k] = s
    }
  })
  return target
}

// combineByPosition is Merge v3's combine by position: the json of the
// items at each position merged, the preferred input's last.
function combineByPosition(p) {
  var inputs = p.inputs || []
  if (p.empty_passes && inputs.some(function (l) { return l.length === 0 })) {
    // Merge v2: the items of both inputs when one has none.
    return [].concat.apply([], inputs)
  }
  var opts = p.options || {}
  var clash = (opts.clashHandling || {}).values || {}
  var resolve = clash.resolveClash || ''
  var preferredIndex = resolve.indexOf('preferInput') === 0 ? Number(resolve.replace('preferInput', '')) - 1 : inputs.length - 1
  var preferred = inputs[preferredIndex] || []
  var lengths = inputs.map(function (l) { return l.length }).concat([preferred.length])
  var count = opts.includeUnpaired ? Math.max.apply(null, lengths) : Math.min.apply(null, lengths)
  var out = []
  for (var i = 0; i < count; i++) {
    var parts = inputs.map(function (l) { return l[i] || {} }).concat([preferred[i] || {}])
    var json = {}
    parts.forEach(function (part) {
      if (clash.mergeMode === 'shallowMerge') {
        Object.assign(json, part)
      } else {
        lodashMerge(json, part)
      }
    })
    out.push(json)
  }
  return out
}

// combineAll is Merge's combine all (v2's multiplex): for each item of
// input 1, each item of input 2, their json merged (lodash's merge,
// deeply, or shallowly), input 2's fields winning unless input 1 is
// preferred.
function combineAll(p) {
  var inputs = p.inputs || []
  var clash = ((p.options || {}).clashHandling || {}).values || {}
  var a = inputs[0] || []
  var b = inputs[1] || []
  if (clash.resolveClash === 'preferInput1') {
    var t = a
    a = b
    b = t
  }
  var out = []
  a.forEach(function (x) {
    b.forEach(function (y) {
      if (clash.mergeMode === 'shallowMerge') {
        out.push(Object.assign({}, x, y))
      } else {
        out.push(lodashMerge(lodashMerge({}, x), y))
      }
    })
  })
  return out
}

// scheduleTrigger is the item n8n's Schedule Trigger gives, in UTC.
function scheduleTrigger() {
  var d = new Date()
  var h = d.getUTCHours()
  var h12 = h % 12 === 0 ? 12 : h % 12
  var ampm = h < 12 ? 'am' : 'pm'
  var time = h12 + ':' + pad(d.getUTCMinutes(), 2) + ':' + pad(d.getUTCSeconds(), 2) + ' ' + ampm
  return [{
    timestamp: d.toISOString().replace('Z', '+00:00'),
    'Readable date': months[d.getUTCMonth()] + ' ' + ordinal(d.getUTCDate()) + ' ' + d.getUTCFullYear() + ', ' + time,
    'Readable time': time,
    'Day of week': days[d.getUTCDay()],
    Year: String(d.getUTCFullYear()),
    Month: months[d.getUTCMonth()],
    'Day of month': pad(d.getUTCDate(), 2),
    Hour: pad(h, 2),
    Minute: pad(d.getUTCMinutes(), 2),
    Second: pad(d.getUTCSeconds(), 2),
    Timezone: 'UTC (UTC+00:00)',
  }]
}

async function execute(input) {
  var items = input.items || []
  var mode = input.mode
  var names
  switch (mode) {
    case 'runOnceForAllItems':
      if (items.length === 0) {
        return { items: [], values: null }
      }
      names = scope(input, false)
      return { items: normalize(await run(input.code, names)), values: null }
    case 'runOnceForEachItem': {
      names = scope(input, true)
      var result = await run(input.code, names)
      if (result === null || result === undefined) {
        return { items: [], values: null }
      }
      if (typeof result !== 'object' || Array.isArray(result)) {
        throw new Error("Code doesn't return a single object [item " + (input.index || 0) + ']')
      }
      var json = 'json' in result ? result.json : result
      if (!isObject(json)) {
        throw new Error("A 'json' property isn't an object [item " + (input.index || 0) + ']')
      }
      return { items: [json], values: null }
    }
    case 'expressions': {
      names = scope(input, true)
      var values = {}
      Object.keys(input.expressions || {}).forEach(function (k) {
        values[k] = evaluate(input.expressions[k], names)
      })
      return { items: [], values: values }
    }
    case 'splitOut':
      return { items: splitOut(items, input.params || {}), values: null }
    case 'aggregate':
      return { items: items.length ? aggregate(items, input.params || {}) : [], values: null }
    case 'sort':
      return { items: await sort(items, input.params || {}, scope(input, false)), values: null }
    case 'scheduleTrigger':
      return { items: scheduleTrigger(), values: null }
    case 'combineByPosition':
      return { items: combineByPosition(input.params || {}), values: null }
    case 'combineAll':
      return { items: combineAll(input.params || {}), values: null }
    case 'function':
      return { items: await functionNode(input), values: null }
    case 'functionItem':
      return { items: await functionItem(input), values: null }
    case 'removeDuplicates':
      return { items: items.length ? removeDuplicates(items, input.params || {}) : [], values: null }
    case 'itemListsSplitOut':
      return { items: itemListsSplitOut(items, input.params || {}), values: null }
    case 'compareDatasets':
      return { items: compareDatasets(input.params || {}), values: null }
    case 'summarize':
      return { items: items.length ? summarize(items, input.params || {}) : [], values: null }
    case 'renameKeys':
      return { items: items.map(function (json) { return renameKeys(json, input.params || {}) }), values: null }
    case 'stopAndError':
      // n8n's Stop and Error fails the workflow with its message.
      throw new Error(String((input.params || {}).message))
  }
  throw new Error('unknown mode ' + mode)
}
