# Notion: create a page in a database — n8n's Notion node v2
# (NotionV2.node.js), Database Page → Create, for one item: GET
# /databases/ID for its title property, then POST /pages with the title,
# the property values as n8n maps them, no blocks, and the icon; the page
# Notion answers with, simplified as n8n's Simplify does. Written by
# flowctl import from its registry (importer/n8n/apps); every import
# writes the same file. The two js blocks are n8n's own code
# (GenericFunctions.js: mapProperties, simplifyObjects; change-case's
# snakeCase).
# https://developers.notion.com/reference/post-page
flow "notion_database_page_create" {
  description = "Creates a page in a Notion database"
}

secret "notion" {
  description = "The API key (an internal integration's secret) of n8n's Notion credential; the integration must be shared with the database"
}

input "api_url" {
  type        = string
  default     = "https://api.notion.com/v1"
  description = "The Notion API's root URL"
}

input "database_id" {
  type        = string
  description = "The database's ID"
}

input "title" {
  type        = any
  default     = ""
  description = "The page's title, the database's title property (left out when empty)"
}

input "properties" {
  type        = any
  default     = []
  description = "The property values as n8n's node has them: {key = \"NAME|TYPE\", type, <the type's value field>} each"
}

input "icon" {
  type        = any
  default     = null
  description = "The page's icon: an emoji, or a URL with icon_type file"
}

input "icon_type" {
  type        = any
  default     = null
  description = "emoji or file"
}

input "simple" {
  type        = bool
  default     = true
  description = "Whether to simplify the page as n8n does: {id, name, url, property_<name>…}; else Notion's page object"
}

block "notion_page_properties" {
  runtime     = "js"
  description = "The request's body as n8n builds it (the title, mapProperties, the icon)"
  input "properties" {
    type = any
  }
  input "database_id" {
    type = string
  }
  input "title" {
    type = any
  }
  input "database" {
    type = any
  }
  input "icon" {
    type    = any
    default = null
  }
  input "icon_type" {
    type    = any
    default = null
  }
  output "body" {
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
    // The body of Create as the node v2 builds it for an item
    // (NotionV2.node.js, databasePage create), without blocks.
    function execute(input) {
      let titleKey = '';
      for (const key of Object.keys(input.database.properties)) {
        if (input.database.properties[key].type === 'title') {
          titleKey = key;
        }
      }
      const body = { parent: {}, properties: {} };
      if (input.title !== '') {
        body.properties[titleKey] = { title: [{ text: { content: input.title } }] };
      }
      body.parent.database_id = input.database_id;
      if (input.properties.length !== 0) {
        body.properties = Object.assign(body.properties, mapProperties(input.properties));
      }
      body.children = [];
      if (input.icon) {
        if (input.icon_type && input.icon_type === 'file') {
          body.icon = { external: { url: input.icon } };
        } else {
          body.icon = { emoji: input.icon };
        }
      }
      return { body };
    }
  JS
}

locals {
  headers = {
    accept         = "application/json"
    authorization  = "Bearer ${secret.notion}"
    content-type   = "application/json"
    notion-version = "2021-08-16"
  }
}

step "database" {
  use     = "http"
  method  = "GET"
  url     = "${input.api_url}/databases/${input.database_id}"
  headers = local.headers
}

step "body" {
  use         = "notion_page_properties"
  properties  = input.properties
  database_id = input.database_id
  title       = input.title
  database    = step.database.body
  icon        = input.icon
  icon_type   = input.icon_type
}

step "create" {
  use     = "http"
  method  = "POST"
  url     = "${input.api_url}/pages"
  headers = local.headers
  body    = step.body.body
}

step "items" {
  use    = "notion_simplify"
  pages  = [step.create.body]
  simple = input.simple
}

output "items" {
  value       = step.items.items
  description = "The page, as n8n's node gives it: simplified {id, name, url, property_<name>…}, or Notion's page object"
}
