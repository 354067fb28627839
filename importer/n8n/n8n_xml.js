// The XML node (Xml.node.js), XML to JSON, for one item, with the package
// n8n computes it with, xml2js: a Parser with n8n's options over its
// defaults (mergeAttrs, explicitArray false), parsing the item's
// property.

import xml2js from 'xml2js'

async function execute(input) {
  var value = input.item[input.property]
  if (value === undefined) {
    throw new Error('Item has no JSON property called "' + input.property + '"')
  }
  var options = Object.assign({ mergeAttrs: true, explicitArray: false }, input.options || {})
  var parser = new xml2js.Parser(options)
  var json = await parser.parseStringPromise(value)
  return { json: JSON.parse(JSON.stringify(json)) }
}
