# n8n's mapProperties of its Notion node v2: a database page's properties
# as the node's form gives them, made into Notion's; a block of flowctl
# import's app registry, shared by its Notion Create and Update flows.

block "notion_map_properties" {
  runtime     = "js"
  description = "The page properties of n8n's form as Notion takes them (mapProperties)"
  input "properties" {
    type = any
  }
  output "properties" {
    type = any
  }
  source = <<-JS
    // n8n's mapProperties (GenericFunctions.js), version 2; the importer
    // refuses dates and rich text, which n8n reads with moment-timezone and
    // getTexts. uuid's validate is uuid 10's.
    const UUID = /^(?:[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}|00000000-0000-0000-0000-000000000000|ffffffff-ffff-ffff-ffff-ffffffffffff)$/i;
    function validate(uuid) {
      return typeof uuid === 'string' && UUID.test(uuid);
    }
    function uuidValidateWithoutDashes(value) {
      if (validate(value)) return true;
      if (value.length == 32) {
        const strWithDashes = value.slice(0, 8) + '-' + value.slice(8, 12) + '-' + value.slice(12, 16) + '-' + value.slice(16, 20) + '-' + value.slice(20);
        if (validate(strWithDashes)) return true;
      }
      throw new Error('The relation id "' + value + '" is not a valid uuid with optional dashes.');
    }
    function isEmpty(value) {
      return value === undefined || value === null || value === '';
    }
    function getPropertyKeyValue(value, type) {
      const ignoreIfEmpty = (v, cb) => (!v && value.ignoreIfEmpty ? undefined : cb(v));
      let result = {};
      switch (type) {
        case 'rich_text':
          result = { rich_text: [{ text: { content: value.textContent } }] };
          break;
        case 'title':
          result = { title: [{ text: { content: value.title } }] };
          break;
        case 'number':
          result = { type: 'number', number: value.numberValue };
          break;
        case 'url':
          result = ignoreIfEmpty(value.urlValue, (url) => ({ type: 'url', url }));
          break;
        case 'checkbox':
          result = { type: 'checkbox', checkbox: value.checkboxValue };
          break;
        case 'relation':
          result = {
            type: 'relation',
            relation: value.relationValue
              .filter((relation) => relation && typeof relation === 'string')
              .reduce((acc, cur) => acc.concat(cur.split(',').map((relation) => relation.trim())), [])
              .filter((relation) => uuidValidateWithoutDashes(relation))
              .map((relation) => ({ id: relation })),
          };
          break;
        case 'multi_select':
          if (isEmpty(value.multiSelectValue)) {
            result = { type: 'multi_select', multi_select: [] };
            break;
          }
          const multiSelectValue = value.multiSelectValue;
          result = {
            type: 'multi_select',
            multi_select: (Array.isArray(multiSelectValue) ? multiSelectValue : multiSelectValue.split(',').map((v) => v.trim()))
              .filter((entry) => entry !== null)
              .map((option) => (!validate(option) ? { name: option } : { id: option })),
          };
          break;
        case 'email':
          result = { type: 'email', email: value.emailValue };
          break;
        case 'people':
          if (!Array.isArray(value.peopleValue)) {
            value.peopleValue = [value.peopleValue];
          }
          result = { type: 'people', people: value.peopleValue.map((option) => ({ id: option })) };
          break;
        case 'phone_number':
          result = { type: 'phone_number', phone_number: value.phoneValue };
          break;
        case 'select':
          if (isEmpty(value.selectValue)) {
            result = { type: 'select', select: null };
            break;
          }
          result = { type: 'select', select: { name: value.selectValue } };
          break;
        case 'status':
          result = { type: 'status', status: { name: value.statusValue } };
          break;
        case 'files':
          result = {
            type: 'files',
            files: value.fileUrls.fileUrl.map((file) => ({ name: file.name, type: 'external', external: { url: file.url } })),
          };
          break;
        default:
      }
      return result;
    }
    function mapProperties(properties) {
      return properties
        .filter((property) => typeof property.key === 'string')
        .map((property) => [property.key.split('|')[0], getPropertyKeyValue(property, property.key.split('|')[1])])
        .filter(([, value]) => value)
        .reduce((obj, [key, value]) => Object.assign(obj, { [key]: value }), {});
    }
    function execute(input) {
      return { properties: input.properties.length !== 0 ? mapProperties(input.properties) : {} };
    }
  JS
}
