// Extract HTML Content of the HTML node (Html.node.js, utils.js) and the
// older HTML Extract node (HtmlExtract.node.js) for one item, with the
// packages n8n computes them with: cheerio, html-to-text (HTML v1.2's
// text). cheerio is taken as n8n takes it (__importDefault). The items it
// gives are JSON: a field n8n leaves undefined is not there.

import cheerio from 'cheerio'
import { convert } from 'html-to-text'

function sanitizeDataPathKey(item, key) {
  if (item[key] !== undefined) {
    return key
  }
  if ((key.startsWith("['") && key.endsWith("']")) || (key.startsWith('["') && key.endsWith('"]'))) {
    key = key.slice(2, -2)
    if (item[key] !== undefined) {
      return key
    }
  }
  return key
}

// htmlValue is getValue of utils.js (the HTML node).
function htmlValue($, valueData, options, nodeVersion) {
  var value
  switch (valueData.returnValue) {
    case 'attribute':
      value = $.attr(valueData.attribute)
      break
    case 'html':
      value = $.html() || undefined
      break
    case 'text':
      if (nodeVersion <= 1.1) {
        value = $.text() || undefined
        break
      }
      var html = $.html() || ''
      var opts
      if (valueData.skipSelectors) {
        opts = {
          selectors: valueData.skipSelectors.split(',').map(function (s) {
            return { selector: s.trim(), format: 'skip' }
          })
        }
      }
      value = convert(html, opts)
      break
    case 'value':
      value = $.val()
      break
    default:
      throw new TypeError('extractFunctions[valueData.returnValue] is not a function')
  }
  if (value === undefined) {
    return value
  }
  if (options.trimValues) {
    value = value.trim()
  }
  if (options.cleanUpText) {
    value = value
      .replace(/^\s+|\s+$/g, '')
      .replace(/(\r\n|\n|\r)/gm, '')
      .replace(/\s+/g, ' ')
  }
  return value
}

// extractValue is getValue of HtmlExtract.node.js.
function extractValue($, valueData, options) {
  var value
  switch (valueData.returnValue) {
    case 'attribute':
      value = $.attr(valueData.attribute)
      break
    case 'html':
      value = $.html() || undefined
      break
    case 'text':
      value = $.text()
      break
    case 'value':
      value = $.val()
      break
    default:
      throw new TypeError('extractFunctions[valueData.returnValue] is not a function')
  }
  if (options.trimValues === false || value === undefined) {
    return value
  }
  return value.trim()
}

function execute(input) {
  var item = input.item
  var name = input.property
  var options = input.options || {}
  var legacy = input.node === 'htmlExtract'
  var htmlArray
  if (legacy || input.version !== 1) {
    // lodash's get, of a name without . or [ (the importer refuses the
    // others): the item's field.
    htmlArray = item[name]
    if (htmlArray === undefined) {
      throw new Error('No property named "' + name + '" exists!')
    }
  } else {
    var key = sanitizeDataPathKey(item, name)
    if (item[key] === undefined) {
      throw new Error('No property named "' + name + '" exists!')
    }
    htmlArray = item[key]
  }
  if (!Array.isArray(htmlArray)) {
    htmlArray = [htmlArray]
  }
  var out = []
  for (var h = 0; h < htmlArray.length; h++) {
    var $ = cheerio.load(htmlArray[h])
    var json = {}
    for (var valueData of input.extraction.values) {
      var htmlElement = $(valueData.cssSelector)
      var get = function (el) {
        return legacy ? extractValue(el, valueData, options) : htmlValue(el, valueData, options, input.version)
      }
      if (valueData.returnArray) {
        json[valueData.key] = []
        htmlElement.each(function (_, el) {
          json[valueData.key].push(get($(el)))
        })
      } else {
        json[valueData.key] = get(htmlElement)
      }
    }
    out.push(json)
  }
  return { items: JSON.parse(JSON.stringify(out)) }
}
