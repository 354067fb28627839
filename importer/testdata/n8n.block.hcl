# Written by flowctl import for the flows imported from n8n; the same for every import.

block "n8n_code" {
  description = "n8n's Code node, expressions and list nodes, on goja (written by flowctl import)"
  runtime     = "js"
  input "mode" {
    type        = string
    description = "runOnceForAllItems, runOnceForEachItem, expressions, splitOut, aggregate, sort, scheduleTrigger, stopAndError, combineByPosition, combineAll, ifV1, switchV1, mergeV1, combineByFields, function, functionItem, removeDuplicates or renameKeys"
  }
  input "code" {
    type        = string
    default     = ""
    description = "the Code node's JavaScript"
  }
  input "expressions" {
    type        = map(string)
    default     = {}
    description = "n8n expressions to evaluate, by name"
  }
  input "params" {
    type        = any
    default     = {}
    description = "the parameters of a list node"
  }
  input "items" {
    type        = any
    default     = []
    description = "the json of the input items"
  }
  input "index" {
    type        = number
    default     = 0
    description = "the index of the current item"
  }
  input "nodes" {
    type        = any
    default     = {}
    description = "the json of the items of the nodes the code names, by node name"
  }
  input "pairs" {
    type        = any
    default     = {}
    description = "for each node the code names with .item, the index of each input item's paired item in that node's items"
  }
  input "workflow" {
    type        = string
    default     = ""
    description = "the workflow's name ($workflow.name)"
  }
  input "zone" {
    type        = any
    default     = null
    description = "the workflow's timezone for $now and $today, when it is not UTC: its name and offsets"
  }
  output "items" {
    type        = any
    description = "the json of the output items"
    optional    = true
  }
  output "values" {
    type        = any
    description = "the values of the expressions, by name"
    optional    = true
  }
  output "pairs" {
    type        = any
    description = "for the Code node run once for all items, the index of the input item each output item pairs with (null: none n8n follows)"
    optional    = true
  }
  source = <<EOT
// The n8n_code block's source: n8n's Code node, n8n's expressions and the
// list nodes written in JavaScript, over the items a step is given (each
// item's json; items[index] is the current one). flowctl import writes it
// into blocks/n8n.block.hcl; docs/import.md says what it follows of n8n.

// AdapterError is an error of the adapter itself (an unknown node name, an
// item that does not exist): n8n's expressions let these through, where
// they turn other errors into an empty value.
class AdapterError extends Error {}

// wrap makes items of json objects: each pairs with its index, as n8n
// sets the pairedItem of a node's input items before it runs.
function wrap(list) {
  return (list || []).map(function (json, i) {
    return { json: json, pairedItem: { item: i } }
  })
}

// pairsOf is the index of the input item each output item pairs with, as
// n8n sets it after a node ran (WorkflowExecute.assignPairedItems): the
// pairedItem the node gave it (an input item returned keeps its own),
// else item 0 when one item came in, else
// item i when as many items came in as went out, else item 0 when one
// item went out; null where n8n has none, or several, or one of another
// input, which the flow does not follow (n8n's $('Node').item fails on
// the first, may follow the others).
// foreignPairs are the pairedItem objects of the items of other nodes the
// code is given ($('Node').all()): n8n's are those nodes' own pairs, which
// the flow does not know, so an item returned with one has none here.
var foreignPairs = new Set()

function pairsOf(out, nIn) {
  var nOut = out.length
  return out.map(function (it, i) {
    var p = it.pairedItem
    if (foreignPairs.has(p)) {
      return null
    }
    if (p === undefined) {
      if (nIn === 1) {
        return 0
      }
      if (nIn === nOut) {
        return i
      }
      if (nOut === 1 && nIn > 1) {
        return 0
      }
      return null
    }
    if (Array.isArray(p)) {
      if (p.length !== 1) {
        return null
      }
      p = p[0]
    }
    if (typeof p === 'number') {
      p = { item: p }
    }
    if (!isObject(p) || (p.input || 0) !== 0 || p.sourceOverwrite || typeof p.item !== 'number' || p.item < 0 || p.item >= nIn) {
      return null
    }
    return p.item
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
  foreignPairs = new Set()
  Object.keys(input.nodes || {}).forEach(function (name) {
    nodes[name] = wrap(input.nodes[name])
    nodes[name].forEach(function (it) { foreignPairs.add(it.pairedItem) })
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

// expressionNames are the names n8n gives its expressions beside those of
// scope: $item(i) (n8n-workflow's WorkflowDataProxy, the names of item i,
// whose $node and $json read item i; a run index other than the one run's
// is refused) and $ifEmpty (its extended functions).
function expressionNames(input) {
  return {
    $item: function (i, runIndex) {
      if (runIndex !== undefined && runIndex !== 0 && runIndex !== -1) {
        throw new AdapterError('$item(' + i + ', ' + runIndex + '): the flow runs each node once')
      }
      var names = scope(Object.assign({}, input, { index: i }), true)
      var list = input.items || []
      if (list[i] === undefined) {
        // n8n fails reading $json of an item the input does not have.
        Object.defineProperty(names, '$json', {
          get: function () {
            throw new AdapterError('the input has ' + list.length + " item(s) but you're trying to access item " + i)
          },
        })
      }
      return names
    },
    $ifEmpty: function (value, defaultValue) {
      if (arguments.length !== 2) {
        throw new AdapterError('expected two arguments (value, defaultValue) for this function')
      }
      if (value === undefined || value === null || value === '') {
        return defaultValue
      }
      if (typeof value === 'object') {
        if (Array.isArray(value) && !value.length) {
          return defaultValue
        }
        if (!Object.keys(value).length) {
          return defaultValue
        }
      }
      return value
    },
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
    return it
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
    return normalize(sorted).map(function (it) { return it.json })
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


async function execute(input) {
  var out = await executeMode(input)
  // Only the Code node run once for all items gives pairs.
  if (out.pairs === undefined) {
    out.pairs = null
  }
  return out
}

async function executeMode(input) {
  var items = input.items || []
  var mode = input.mode
  var names
  switch (mode) {
    case 'runOnceForAllItems':
      if (items.length === 0) {
        return { items: [], values: null }
      }
      names = scope(input, false)
      var out = normalize(await run(input.code, names))
      return { items: out.map(function (it) { return it.json }), values: null, pairs: pairsOf(out, items.length) }
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
      names = Object.assign(scope(input, true), n8nTimeNames(input.zone), expressionNames(input)) // n8n_time.js
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
    case 'ifV1':
      return { items: ifV1(input.params || {}), values: null }
    case 'switchV1':
      return { items: switchV1(input.params || {}), values: null }
    case 'mergeV1':
      return { items: mergeV1(input.params || {}), values: null }
    case 'combineByFields':
      return { items: combineByFields(input.params || {}), values: null }
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
// The n8n_code adapter, continued (after n8n_code.js): Merge's combining
// modes, the Schedule Trigger's item, and IF v1, Switch v1 and v2, Merge
// v1 as their code makes them.

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

// compareV1 are the comparisons of n8n's IF v1 and Switch v1 and v2
// (nodes/If/V1, nodes/Switch/V1 and V2), as their code makes them.
function regexV1(value2) {
  var m = (value2 || '').toString().match(new RegExp('^/(.*?)/([gimusy]*)$'))
  if (!m) {
    return new RegExp((value2 || '').toString())
  }
  return new RegExp(m[1], m[2])
}

function emptyV1(v) {
  return [undefined, null, ''].includes(v) || (typeof v === 'number' && isNaN(v)) ||
    (typeof v === 'object' && v !== null ? Object.entries(v).length === 0 : false)
}

var compareV1 = {
  after: function (a, b) { return (a || 0) > (b || 0) },
  before: function (a, b) { return (a || 0) < (b || 0) },
  contains: function (a, b) { return (a || '').toString().includes((b || '').toString()) },
  notContains: function (a, b) { return !(a || '').toString().includes((b || '').toString()) },
  endsWith: function (a, b) { return a.endsWith(b) },
  notEndsWith: function (a, b) { return !a.endsWith(b) },
  equal: function (a, b) { return a === b },
  notEqual: function (a, b) { return a !== b },
  larger: function (a, b) { return (a || 0) > (b || 0) },
  largerEqual: function (a, b) { return (a || 0) >= (b || 0) },
  smaller: function (a, b) { return (a || 0) < (b || 0) },
  smallerEqual: function (a, b) { return (a || 0) <= (b || 0) },
  startsWith: function (a, b) { return a.startsWith(b) },
  notStartsWith: function (a, b) { return !a.startsWith(b) },
  isEmpty: function (a) { return emptyV1(a) },
  isNotEmpty: function (a) { return !emptyV1(a) },
  regex: function (a, b) { return !!(a || '').toString().match(regexV1(b)) },
  notRegex: function (a, b) { return !(a || '').toString().match(regexV1(b)) },
}

function compareOfV1(op) {
  var f = compareV1.hasOwnProperty(op) ? compareV1[op] : undefined
  if (!f) {
    throw new TypeError('compareOperationFunctions[compareData.operation] is not a function (' + op + ')')
  }
  return f
}

// ifV1 is for each item whether n8n's IF v1 sends it to its true output:
// p.items holds each item's conditions ({operation, value1, value2}, in
// the order n8n checks them), p.combine is all or any.
function ifV1(p) {
  return (p.items || []).map(function (conds) {
    for (var k = 0; k < conds.length; k++) {
      var r = compareOfV1(conds[k].operation)(conds[k].value1, conds[k].value2)
      if (r && p.combine === 'any') {
        return true
      }
      if (!r && p.combine === 'all') {
        return false
      }
    }
    return p.combine === 'all'
  })
}

// switchV1 is for each item the output n8n's Switch v1 or v2 (rules
// mode) sends it to, -1 for none: p.items holds each item's value1, rules
// ({operation, value2, output}) and fallback output; p.outputs is the
// number of outputs; v2 sends an item to the index of its rule, v1 to
// the rule's output.
function switchV1(p) {
  var check = function (index) {
    if (index < 0 || index >= p.outputs) {
      throw new Error('The ouput ' + index + ' is not allowed. It has to be between 0 and ' + (p.outputs - 1) + '!')
    }
  }
  return (p.items || []).map(function (it) {
    for (var k = 0; k < it.rules.length; k++) {
      var r = it.rules[k]
      if (compareOfV1(r.operation)(it.value1, r.value2)) {
        check(r.output)
        return p.v2 ? k : r.output
      }
    }
    if (it.fallback !== -1) {
      check(it.fallback)
      return it.fallback
    }
    return -1
  })
}

// lodashGet is lodash's get: a key the object has as it is, or a path.
function lodashGet(obj, path) {
  if (obj !== null && obj !== undefined && typeof path === 'string' && path in Object(obj)) {
    return obj[path]
  }
  return get(obj, path)
}

// mergeV1 is n8n's Merge v1 (nodes/Merge/v1) in the modes that compute
// items: merge by index, multiplex, keep key matches, merge by key and
// remove key matches.
function mergeV1(p) {
  var in1 = (p.inputs || [])[0] || []
  var in2 = (p.inputs || [])[1] || []
  var out = []
  switch (p.mode) {
    case 'mergeByIndex': {
      var join = p.join || 'left'
      if (in1.length === 0) {
        return ['inner', 'left'].includes(join) ? [] : in2
      }
      if (in2.length === 0) {
        return ['left', 'outer'].includes(join) ? in1 : []
      }
      var num = in1.length
      if (join === 'inner') {
        num = Math.min(in1.length, in2.length)
      } else if (join === 'outer') {
        num = Math.max(in1.length, in2.length)
      }
      for (var i = 0; i < num; i++) {
        if (i >= in1.length) {
          out.push(in2[i])
          continue
        }
        if (i >= in2.length) {
          out.push(in1[i])
          continue
        }
        out.push(Object.assign({}, in1[i], in2[i]))
      }
      return out
    }
    case 'multiplex':
      in1.forEach(function (a) {
        in2.forEach(function (b) {
          out.push(Object.assign({}, a, b))
        })
      })
      return out
  }
  var mode = p.mode
  var name1 = p.propertyName1, name2 = p.propertyName2
  var overwrite = p.overwrite || 'always'
  if (!name1 || !name2) {
    return mode === 'keepKeyMatches' ? [] : in1
  }
  var copy = {}
  in2.forEach(function (json) {
    var key = lodashGet(json, name2)
    if (!json || !key) {
      return
    }
    copy[key] = json
  })
  in1.forEach(function (entry) {
    var ref = lodashGet(entry, name1)
    if (ref === undefined) {
      if (mode === 'removeKeyMatches') {
        out.push(entry)
      }
      return
    }
    if (!['string', 'number'].includes(typeof ref) && ref !== null) {
      if (mode === 'removeKeyMatches') {
        out.push(entry)
      }
      return
    }
    if (typeof ref === 'number') {
      ref = ref.toString()
    }
    if (copy.hasOwnProperty(ref)) {
      if (mode === 'removeKeyMatches') {
        return
      } else if (mode === 'mergeByKey') {
        entry = JSON.parse(JSON.stringify(entry))
        Object.keys(copy[ref]).forEach(function (key) {
          if (key === name2) {
            return
          }
          var value = copy[ref][key]
          if (overwrite === 'always' || (overwrite === 'undefined' && !entry.hasOwnProperty(key)) ||
            (overwrite === 'blank' && [null, undefined, ''].includes(entry[key]))) {
            entry[key] = value
          }
        })
      } else {
        out.push(entry)
        return
      }
    } else if (mode === 'removeKeyMatches') {
      out.push(entry)
      return
    }
    if (mode === 'mergeByKey') {
      out.push(entry)
    }
  })
  return out
}

// combineByFields is Merge v3's combine by matching fields (n8n's
// combineByFields and its helpers findMatches and mergeMatched) over the
// json of the items of its two inputs; p.fields are the pairs of fields
// to match, p.joinMode, p.outputDataFrom and p.options as n8n's.
function combineByFields(p) {
  var input1 = (p.inputs || [])[0] || []
  var input2 = (p.inputs || [])[1] || []
  var joinMode = p.joinMode
  var from = p.outputDataFrom
  var opts = p.options || {}
  var clash = (opts.clashHandling || {}).values || {}
  if (input1.length === 0 || input2.length === 0) {
    if (!input1.length && joinMode === 'keepNonMatches' && from === 'input1') return []
    if (!input2.length && joinMode === 'keepNonMatches' && from === 'input2') return []
    if (joinMode === 'keepMatches') return []
    if (joinMode === 'enrichInput1' && input1.length === 0) return []
    if (joinMode === 'enrichInput2' && input2.length === 0) return []
    return input1.concat(input2)
  }
  var getField = function (json, key) {
    return opts.disableDotNotation ? json[key] : lodashGet(json, key)
  }
  var matched = [], matched2 = [], unmatched1 = [], unmatched2 = []
  var matchedIn2 = {}
  input1.forEach(function (entry1) {
    var lookup = {}
    p.fields.forEach(function (f) {
      lookup[f.field2] = getField(entry1, f.field1)
    })
    var keys = Object.keys(lookup)
    if (keys.some(function (k) { return lookup[k] === undefined })) {
      unmatched1.push(entry1)
      return
    }
    var found = []
    for (var i = 0; i < input2.length; i++) {
      var entry2 = input2[i]
      if (keys.every(function (k) { return equal(lookup[k], getField(entry2, k)) })) {
        found.push(i)
        if (opts.multipleMatches === 'first') break
      }
    }
    found.forEach(function (i) { matchedIn2[i] = true })
    var matches = found.map(function (i) { return input2[i] })
    if (!matches.length) {
      unmatched1.push(entry1)
    } else if (from === 'both' || joinMode === 'enrichInput1' || joinMode === 'enrichInput2') {
      matches.forEach(function (m) { matched.push({ entry: entry1, matches: [m] }) })
    } else {
      matched.push({ entry: entry1, matches: matches })
    }
  })
  input2.forEach(function (entry, i) {
    (matchedIn2[i] ? matched2 : unmatched2).push(entry)
  })
  var mergeInto = function (parts) {
    var json = {}
    parts.forEach(function (part) {
      if (clash.mergeMode === 'shallowMerge') {
        Object.assign(json, part)
      } else {
        lodashMerge(json, part)
      }
    })
    return json
  }
  var mergeMatched = function () {
    var resolve = clash.resolveClash
    if (resolve === undefined) {
      resolve = joinMode !== 'enrichInput2' ? 'preferLast' : 'preferInput1'
    }
    return matched.map(function (m) {
      if (resolve === 'preferInput1') {
        return mergeInto(m.matches.concat([m.entry]))
      }
      if (resolve === 'preferLast') {
        return mergeInto([m.entry].concat(m.matches))
      }
      return {}
    })
  }
  switch (joinMode) {
    case 'keepMatches':
    case 'keepEverything': {
      var out = []
      if (from === 'input1') out = matched.map(function (m) { return m.entry })
      if (from === 'input2') out = matched2
      if (from === 'both') out = mergeMatched()
      if (joinMode === 'keepEverything') out = out.concat(unmatched1, unmatched2)
      return out
    }
    case 'keepNonMatches':
      if (from === 'input1') return unmatched1
      if (from === 'input2') return unmatched2
      if (from === 'both') {
        return unmatched1.map(function (e) { return Object.assign({}, e, { _source: 'input1' }) })
          .concat(unmatched2.map(function (e) { return Object.assign({}, e, { _source: 'input2' }) }))
      }
      return []
    case 'enrichInput1':
      return mergeMatched().concat(unmatched1)
    case 'enrichInput2':
      return mergeMatched().concat(unmatched2)
  }
  return []
}

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
// The n8n_code adapter, continued (after n8n_code_legacy.js): Compare
// Datasets.

// compareDatasets is Compare Datasets v2.2 and v2.3 without fuzzy
// comparison, as n8n's findMatches: the items of input A found in input B
// by the fields to match (the first match, or all), split into four
// outputs — in A only, the same in both, different, in B only. Items
// are {json} as n8n's, so that a Mix's changes to an item of A are seen
// wherever n8n's are.
function compareDatasets(p) {
  var opts = p.options || {}
  var version = p.__version || 2.3
  var dot = !opts.disableDotNotation
  var read = function (json, f) { return dot ? get(json, f) : json[f] }
  var empty = function (v) { return v === null || v === undefined || (typeof v === 'object' && Object.keys(v).length === 0) }
  var pairs = ((p.mergeByFields || {}).values || [{ field1: '', field2: '' }]).map(function (f) {
    return { field1: f.field1 === undefined ? '' : f.field1, field2: f.field2 === undefined ? '' : f.field2 }
  })
  if (pairs.length === 1 && pairs[0].field1 === '' && pairs[0].field2 === '') {
    throw new Error('You need to define at least one pair of fields in "Fields to Match" to match on')
  }
  pairs.forEach(function (f, i) {
    if (f.field1 === '' || f.field2 === '') {
      throw new Error('You need to define both fields in "Fields to Match" for pair ' + (i + 1))
    }
  })
  var inputs = p.inputs || []
  var wrapAll = function (list) {
    return (list || []).filter(function (json) { return !empty(json) }).map(function (json) { return { json: json } })
  }
  var data1 = wrapAll(inputs[0])
  var data2 = wrapAll(inputs[1])
  var resolve = p.resolve || (version >= 2.1 ? 'includeBoth' : 'preferInput2')
  var skip = String(opts.skipFields || '').split(',').map(function (f) { return f.trim() })
  if (!dot && skip.some(function (f) { return f.indexOf('.') >= 0 })) {
    throw new Error("Dot notation is disabled, but field to skip comparing '" + skip.filter(function (f) { return f.indexOf('.') >= 0 })[0] + "' contains dot")
  }
  var unmatched1 = []
  var unmatched2 = []
  var matched = []
  var found2 = {}
  data1.forEach(function (entry) {
    var lookup = {}
    var missing = false
    pairs.forEach(function (f) {
      var v = read(entry.json, f.field1)
      lookup[f.field2] = v
      missing = missing || v === undefined
    })
    if (missing) {
      unmatched1.push(entry)
      return
    }
    var matches = []
    for (var i = 0; i < data2.length; i++) {
      var ok = Object.keys(lookup).every(function (k) { return equal(lookup[k], read(data2[i].json, k)) })
      if (ok) {
        matches.push(data2[i])
        found2[i] = true
        if ((opts.multipleMatches || 'first') !== 'all') {
          break
        }
      }
    }
    if (matches.length) {
      matched.push({ entry: entry, matches: matches })
    } else {
      unmatched1.push(entry)
    }
  })
  data2.forEach(function (entry, i) {
    if (!found2[i]) {
      unmatched2.push(entry)
    }
  })
  var dotted = skip.some(function (f) { return f.indexOf('.') >= 0 })
  var without = function (json) {
    var copy = JSON.parse(JSON.stringify(json))
    skip.forEach(function (f) {
      if (!dot || !dotted) {
        delete copy[f]
      } else {
        unsetPath(copy, f)
      }
    })
    return copy
  }
  var same = []
  var different = []
  matched.forEach(function (m) {
    // Initialized: goja gives a var that a closure captures, in a callback
    // that has more arguments than parameters, the value of an argument.
    var kept = null
    m.matches.forEach(function (match) {
      if (equal(without(m.entry.json), without(match.json))) {
        kept = kept || m.entry
        return
      }
      switch (resolve) {
        case 'preferInput1':
          different.push(m.entry)
          break
        case 'preferInput2':
          different.push(match)
          break
        case 'mix':
          different.push(mixItems(m.entry, match, p.preferWhenMix || 'input1', p.exceptWhenMix || '', dot))
          break
        default:
          different.push({ json: bothVersions(m.entry.json, match.json, pairs, skip, dot) })
      }
    })
    if (kept) {
      same.push(kept)
    }
  })
  var jsons = function (list) { return list.map(function (it) { return JSON.parse(JSON.stringify(it.json)) }) }
  return [jsons(unmatched1), jsons(same), jsons(different), jsons(unmatched2)]
}

// mixItems is Compare Datasets' Mix: the preferred version, with the
// fields of the other one named in except (n8n changes the item itself).
function mixItems(item1, item2, prefer, except, dot) {
  var entry = prefer === 'input1' ? item1 : item2
  var match = prefer === 'input1' ? item2 : item1
  var fields = Array.isArray(except) ? except : (except ? String(except).split(',').map(function (f) { return f.trim() }) : [])
  fields.forEach(function (f) {
    entry.json[f] = match.json[f]
    if (dot) {
      // n8n reads the field by its path and sets it under its whole name.
      entry.json[f] = get(match.json, f) || null
    }
  })
  return entry
}

// bothVersions is Compare Datasets' Include Both Versions (v2 and after):
// the keys matched, the fields the same, and each other field's two
// values (null where one lacks it); a field skipped is under skipped.
function bothVersions(json1, json2, pairs, skip, dot) {
  var keys = {}
  pairs.forEach(function (f) { keys[f.field1] = json1[f.field1] })
  var k1 = Object.keys(json1)
  var k2 = Object.keys(json2)
  var all = k1.concat(k2.filter(function (k) { return k1.indexOf(k) < 0 }))
  var sameOut = {}
  k1.filter(function (k) { return k2.indexOf(k) >= 0 }).forEach(function (k) {
    if (equal(json1[k], json2[k])) {
      sameOut[k] = json1[k]
    }
  })
  var differentOut = {}
  var skipped = {}
  var nullish = function (v) { return v === undefined ? null : v }
  all.filter(function (k) { return !(k in sameOut) }).forEach(function (k) {
    var a = nullish(json1[k])
    var b = nullish(json2[k])
    if (dot && skip.indexOf(k) < 0) {
      if (skip.some(function (f) { return f.indexOf(k) === 0 && f.indexOf('.') >= 0 })) {
        throw new Error("Skipping a field inside '" + k + "' is not converted by flowctl import")
      }
      differentOut[k] = { inputA: a, inputB: b }
    } else if (skip.indexOf(k) >= 0) {
      skipped[k] = { inputA: a, inputB: b }
    } else {
      differentOut[k] = { inputA: a, inputB: b }
    }
  })
  var out = { keys: keys, same: sameOut, different: differentOut }
  if (Object.keys(skipped).length) {
    out.skipped = skipped
  }
  return out
}
// n8n's dates ($now, $today, DateTime): luxon's DateTime in UTC or in
// the workflow's timezone (its offsets, which the importer writes from
// Go's time zone database: n8nZone), with the methods and format
// tokens whose values do not depend on the locale (luxon 3.7's
// datetime.js and impl/formatter.js; n8n-workflow's date extensions for
// format and the (amount, unit) arguments of plus and minus). The
// importer refuses the other forms (n8n_time.go), so each name here gives
// n8n's value.

// n8nUTC is luxon's fixed zone of UTC.
var n8nUTC = { fixed: true, name: 'UTC', offset: function () { return 0 } }

// n8nZone is an IANA zone from the importer's table of its offsets:
// changes are [from (ms), offset (minutes)], in order, to until.
function n8nZone(z) {
  return {
    fixed: false,
    name: z.name,
    offset: function (ts) {
      var ch = z.changes
      if (ts < ch[0][0] || ts >= z.until) {
        throw new AdapterError('the time ' + new Date(ts).toISOString() + ' is outside the offsets of ' + z.name + ' the import wrote (import the workflow again)')
      }
      var o = ch[0][1]
      for (var i = 0; i < ch.length && ch[i][0] <= ts; i++) {
        o = ch[i][1]
      }
      return o
    },
  }
}

function N8nDateTime(ts, zone) {
  this.ts = ts
  this.zone = zone || n8nUTC
  this.o = this.zone.offset(ts)
  var d = new Date(ts + this.o * 60000)
  this.year = d.getUTCFullYear()
  this.month = d.getUTCMonth() + 1
  this.day = d.getUTCDate()
  this.hour = d.getUTCHours()
  this.minute = d.getUTCMinutes()
  this.second = d.getUTCSeconds()
  this.millisecond = d.getUTCMilliseconds()
  this.weekday = d.getUTCDay() === 0 ? 7 : d.getUTCDay()
  this.quarter = Math.ceil(this.month / 3)
  this.zoneName = this.zone.name
  this.offset = this.o
  this.isValid = true
}

// n8nFixOffset is luxon's fixOffset: the time of a local time in a zone,
// given a guess of its offset.
function n8nFixOffset(localTS, o, zone) {
  var utcGuess = localTS - o * 60000
  var o2 = zone.offset(utcGuess)
  if (o === o2) {
    return utcGuess
  }
  utcGuess -= (o2 - o) * 60000
  var o3 = zone.offset(utcGuess)
  if (o2 === o3) {
    return utcGuess
  }
  return localTS - Math.min(o2, o3) * 60000
}

// luxon's Duration.normalizeUnit, after n8n's DURATION_MAP.
var n8nTimeUnits = {
  year: 'years', years: 'years', quarter: 'quarters', quarters: 'quarters',
  month: 'months', months: 'months', week: 'weeks', weeks: 'weeks', day: 'days', days: 'days',
  hour: 'hours', hours: 'hours', minute: 'minutes', minutes: 'minutes', second: 'seconds', seconds: 'seconds',
  millisecond: 'milliseconds', milliseconds: 'milliseconds',
}
var n8nDurationMap = { ms: 'milliseconds', sec: 'seconds', secs: 'seconds', hr: 'hours', hrs: 'hours', min: 'minutes', mins: 'minutes' }

function n8nTimeUnit(u) {
  var n = typeof u === 'string' ? n8nTimeUnits[u.toLowerCase()] : undefined
  if (!n) {
    throw new Error('Invalid unit ' + u)
  }
  return n
}

// n8nDuration is luxon's Duration.fromObject of a duration-like object,
// or n8n's (amount, unit) pair.
function n8nDuration(args) {
  var obj = args[0]
  if (args.length !== 1) {
    var unit = args.length > 1 ? args[1] : 'minutes'
    obj = {}
    obj[n8nDurationMap[unit] || unit] = args.length > 0 ? args[0] : 0
  }
  if (obj === null || typeof obj !== 'object') {
    throw new Error('Unknown duration argument ' + obj + ' of type ' + typeof obj)
  }
  var dur = { years: 0, quarters: 0, months: 0, weeks: 0, days: 0, hours: 0, minutes: 0, seconds: 0, milliseconds: 0 }
  Object.keys(obj).forEach(function (k) {
    var v = obj[k]
    if (v === undefined || v === null) {
      return
    }
    var num = Number(v)
    if (typeof v === 'boolean' || v === '' || !isFinite(num)) {
      throw new Error('Invalid unit value ' + v)
    }
    dur[n8nTimeUnit(k)] = num
  })
  return dur
}

var n8nDay = 86400000

// plus is luxon's adjustTime in a fixed zone: whole years, quarters and
// months move the calendar month (the day kept within it), whole weeks
// and days the day; the rest is time, fractions of calendar units at
// luxon's casual lengths.
N8nDateTime.prototype.plus = function () {
  var dur = n8nDuration(Array.prototype.slice.call(arguments))
  return this.n8nAdjust(dur, 1)
}

N8nDateTime.prototype.minus = function () {
  var dur = n8nDuration(Array.prototype.slice.call(arguments))
  return this.n8nAdjust(dur, -1)
}

N8nDateTime.prototype.n8nAdjust = function (dur, sign) {
  Object.keys(dur).forEach(function (k) { dur[k] = dur[k] * sign })
  var year = this.year + Math.trunc(dur.years)
  var month = this.month + Math.trunc(dur.months) + Math.trunc(dur.quarters) * 3
  var modMonth = ((month - 1) % 12 + 12) % 12 + 1
  var modYear = year + (month - modMonth) / 12
  var dim = new Date(Date.UTC(modYear, modMonth, 0)).getUTCDate()
  var day = Math.min(this.day, dim) + Math.trunc(dur.days) + Math.trunc(dur.weeks) * 7
  var ts = n8nFixOffset(Date.UTC(year, month - 1, 1, this.hour, this.minute, this.second, this.millisecond) + (day - 1) * n8nDay, this.o, this.zone)
  ts += (dur.years - Math.trunc(dur.years)) * 365 * n8nDay +
    (dur.quarters - Math.trunc(dur.quarters)) * 91 * n8nDay +
    (dur.months - Math.trunc(dur.months)) * 30 * n8nDay +
    (dur.weeks - Math.trunc(dur.weeks)) * 7 * n8nDay +
    (dur.days - Math.trunc(dur.days)) * n8nDay +
    dur.hours * 3600000 + dur.minutes * 60000 + dur.seconds * 1000 + dur.milliseconds
  return new N8nDateTime(ts, this.zone)
}

// startOf is luxon's: weeks start on Monday.
N8nDateTime.prototype.startOf = function (unit) {
  var u = n8nTimeUnit(unit)
  var c = [this.year, this.month - 1, this.day, this.hour, this.minute, this.second, this.millisecond]
  var keep = { years: 1, quarters: 2, months: 2, weeks: 3, days: 3, hours: 4, minutes: 5, seconds: 6, milliseconds: 7 }[u]
  for (var i = keep; i < c.length; i++) {
    c[i] = i === 2 ? 1 : 0
  }
  if (u === 'quarters') {
    c[1] = (this.quarter - 1) * 3
  }
  var local = Date.UTC(c[0], c[1], c[2], c[3], c[4], c[5], c[6])
  if (u === 'weeks') {
    local -= (this.weekday - 1) * n8nDay
  }
  return new N8nDateTime(n8nFixOffset(local, this.o, this.zone), this.zone)
}

N8nDateTime.prototype.endOf = function (unit) {
  var o = {}
  o[n8nTimeUnit(unit)] = 1
  return this.plus(o).startOf(unit).minus({ milliseconds: 1 })
}

N8nDateTime.prototype.toUTC = function () { return new N8nDateTime(this.ts, n8nUTC) }
N8nDateTime.prototype.toMillis = function () { return this.ts }
N8nDateTime.prototype.valueOf = function () { return this.ts }
N8nDateTime.prototype.toSeconds = function () { return this.ts / 1000 }
N8nDateTime.prototype.toUnixInteger = function () { return Math.floor(this.ts / 1000) }
N8nDateTime.prototype.toISODate = function () { return this.toFormat(this.year > 9999 || this.year < 0 ? 'yyyyyy-MM-dd' : 'yyyy-MM-dd') }
N8nDateTime.prototype.toISO = function () {
  return this.toISODate() + 'T' + this.toFormat('HH:mm:ss.SSS') + (this.zone.fixed && this.o === 0 ? 'Z' : n8nOffset(this.o, 'short'))
}

// n8nOffset is luxon's formatOffset.
function n8nOffset(offset, format) {
  var hours = Math.trunc(Math.abs(offset / 60))
  var minutes = Math.trunc(Math.abs(offset % 60))
  var sign = offset >= 0 ? '+' : '-'
  switch (format) {
    case 'short': return sign + n8nPad(hours, 2) + ':' + n8nPad(minutes, 2)
    case 'narrow': return sign + hours + (minutes > 0 ? ':' + minutes : '')
  }
  return sign + n8nPad(hours, 2) + n8nPad(minutes, 2)
}
N8nDateTime.prototype.toString = function () { return this.toISO() }
N8nDateTime.prototype.toJSON = function () { return this.toISO() }

function n8nPad(n, p) {
  var s = String(Math.abs(n))
  while (s.length < (p || 0)) {
    s = '0' + s
  }
  return (n < 0 ? '-' : '') + s
}

// toFormat is luxon's Formatter.formatDateTimeFromString for the tokens
// that are numbers (n8n's format is toFormat).
N8nDateTime.prototype.toFormat = function (fmt) {
  var dt = this
  var ordinal = Math.round((Date.UTC(dt.year, dt.month - 1, dt.day) - Date.UTC(dt.year, 0, 1)) / n8nDay) + 1
  var token = function (t) {
    switch (t) {
      case 'S': return n8nPad(dt.millisecond)
      case 'u': case 'SSS': return n8nPad(dt.millisecond, 3)
      case 's': return n8nPad(dt.second)
      case 'ss': return n8nPad(dt.second, 2)
      case 'uu': return n8nPad(Math.floor(dt.millisecond / 10), 2)
      case 'uuu': return n8nPad(Math.floor(dt.millisecond / 100))
      case 'm': return n8nPad(dt.minute)
      case 'mm': return n8nPad(dt.minute, 2)
      case 'h': return n8nPad(dt.hour % 12 === 0 ? 12 : dt.hour % 12)
      case 'hh': return n8nPad(dt.hour % 12 === 0 ? 12 : dt.hour % 12, 2)
      case 'H': return n8nPad(dt.hour)
      case 'HH': return n8nPad(dt.hour, 2)
      case 'Z': return n8nOffset(dt.o, 'narrow')
      case 'ZZ': return n8nOffset(dt.o, 'short')
      case 'ZZZ': return n8nOffset(dt.o, 'techie')
      case 'z': return dt.zoneName
      case 'd': return n8nPad(dt.day)
      case 'dd': return n8nPad(dt.day, 2)
      case 'c': case 'E': return n8nPad(dt.weekday)
      case 'L': case 'M': return n8nPad(dt.month)
      case 'LL': case 'MM': return n8nPad(dt.month, 2)
      case 'y': return n8nPad(dt.year)
      case 'yy': return n8nPad(Number(dt.year.toString().slice(-2)), 2)
      case 'yyyy': return n8nPad(dt.year, 4)
      case 'yyyyyy': return n8nPad(dt.year, 6)
      case 'o': return n8nPad(ordinal)
      case 'ooo': return n8nPad(ordinal, 3)
      case 'q': return n8nPad(dt.quarter)
      case 'qq': return n8nPad(dt.quarter, 2)
      case 'X': return n8nPad(Math.floor(dt.ts / 1000))
      case 'x': return n8nPad(dt.ts)
    }
    return t
  }
  var out = ''
  n8nParseFormat(String(fmt)).forEach(function (p) {
    out += p.literal ? p.val : token(p.val)
  })
  return out
}
N8nDateTime.prototype.format = N8nDateTime.prototype.toFormat

// n8nParseFormat is luxon's Formatter.parseFormat.
function n8nParseFormat(fmt) {
  var current = null
  var currentFull = ''
  var bracketed = false
  var splits = []
  for (var i = 0; i < fmt.length; i++) {
    var c = fmt.charAt(i)
    if (c === "'") {
      if (currentFull.length > 0 || bracketed) {
        splits.push({ literal: bracketed || /^\s+$/.test(currentFull), val: currentFull === '' ? "'" : currentFull })
      }
      current = null
      currentFull = ''
      bracketed = !bracketed
    } else if (bracketed) {
      currentFull += c
    } else if (c === current) {
      currentFull += c
    } else {
      if (currentFull.length > 0) {
        splits.push({ literal: /^\s+$/.test(currentFull), val: currentFull })
      }
      currentFull = c
      current = c
    }
  }
  if (currentFull.length > 0) {
    splits.push({ literal: bracketed || /^\s+$/.test(currentFull), val: currentFull })
  }
  return splits
}

// n8nTimeNames are $now, $today and DateTime as n8n's expressions have
// them, at the time now, in the workflow's zone (UTC without one).
function n8nTimeNames(z) {
  var zone = z ? n8nZone(z) : n8nUTC
  var now = new N8nDateTime(Date.now(), zone)
  var DateTime = {
    now: function () { return new N8nDateTime(Date.now(), zone) },
    utc: function () { return new N8nDateTime(Date.now(), n8nUTC) },
    local: function () { return new N8nDateTime(Date.now(), zone) },
  }
  return { $now: now, $today: now.startOf('day'), DateTime: DateTime }
}
EOT
}
