# Notion: get a page of a database — n8n's Notion node v2
# (NotionV2.node.js), Database Page → Get, for one item: GET /pages/ID;
# the page Notion answers with, simplified as n8n's Simplify does.
# Written by flowctl import from its registry (importer/n8n/apps); every
# import writes the same file. The js block is n8n's own code
# (GenericFunctions.js: simplifyObjects; change-case's snakeCase).
# https://developers.notion.com/reference/retrieve-a-page
flow "notion_database_page_get" {
  description = "Gets a Notion database page"
}

secret "notion" {
  description = "The API key (an internal integration's secret) of n8n's Notion credential; the integration must be shared with the database"
}

input "api_url" {
  type        = string
  default     = "https://api.notion.com/v1"
  description = "The Notion API's root URL"
}

input "page_id" {
  type        = any
  description = "The page's ID"
}

input "simple" {
  type        = bool
  default     = true
  description = "Whether to simplify the page as n8n does: {id, name, url, property_<name>…}; else Notion's page object"
}

step "get" {
  use    = "http"
  method = "GET"
  url    = "${input.api_url}/pages/${input.page_id}"
  headers = {
    accept         = "application/json"
    authorization  = "Bearer ${secret.notion}"
    notion-version = "2021-08-16"
  }
}

block "notion_simplify" {
  runtime     = "js"
  description = "Notion's pages as n8n's Simplify gives them (simplifyObjects), or as they are"
  input "pages" {
    type = any
  }
  input "simple" {
    type = bool
  }
  output "items" {
    type = any
  }
  source = <<-JS
    // change-case 4's snakeCase (noCase with "_"), as n8n's prepend uses it.
    function snakeCase(input) {
      var result = String(input)
        .replace(/([a-z0-9])([A-Z])/g, '$1\0$2')
        .replace(/([A-Z])([A-Z][a-z])/g, '$1\0$2')
        .replace(/[^A-Z0-9]+/gi, '\0');
      var start = 0, end = result.length;
      while (result.charAt(start) === '\0') start++;
      while (result.charAt(end - 1) === '\0') end--;
      return result.slice(start, end).split('\0').map(function (s) { return s.toLowerCase(); }).join('_');
    }
    function simplifyProperty(property) {
      let result;
      const type = property.type;
      if (['text'].includes(property.type)) {
        result = property.plain_text;
      } else if (['rich_text', 'title'].includes(property.type)) {
        if (Array.isArray(property[type]) && property[type].length !== 0) {
          result = property[type].map((text) => simplifyProperty(text)).join('');
        } else {
          result = '';
        }
      } else if (['url', 'created_time', 'checkbox', 'number', 'last_edited_time', 'email', 'phone_number', 'date'].includes(property.type)) {
        result = property[type];
      } else if (['created_by', 'last_edited_by', 'select'].includes(property.type)) {
        result = property[type] ? property[type]?.name : null;
      } else if (['people'].includes(property.type)) {
        if (Array.isArray(property[type])) {
          result = property[type].map((person) => person.person?.email || {});
        } else {
          result = property[type];
        }
      } else if (['multi_select'].includes(property.type)) {
        if (Array.isArray(property[type])) {
          result = property[type].map((e) => e?.name || {});
        } else {
          result = property[type].options.map((e) => e?.name || {});
        }
      } else if (['relation'].includes(property.type)) {
        if (Array.isArray(property[type])) {
          result = property[type].map((e) => e?.id || {});
        } else {
          result = property[type]?.database_id;
        }
      } else if (['formula'].includes(property.type)) {
        result = property[type]?.[property[type]?.type];
      } else if (['rollup'].includes(property.type)) {
        const rollupFunction = property[type]?.function;
        if (rollupFunction.startsWith('count') || rollupFunction.includes('empty')) {
          result = property[type]?.number;
          if (rollupFunction.includes('percent')) {
            result = result * 100;
          }
        } else if (rollupFunction.startsWith('show') && property[type]?.type === 'array') {
          const elements = property[type].array.map(simplifyProperty).flat();
          result = rollupFunction === 'show_unique' ? [...new Set(elements)] : elements;
        }
      } else if (['files'].includes(property.type)) {
        result = property[type].map((file) => file[file.type]?.url);
      } else if (['status'].includes(property.type)) {
        result = property[type]?.name;
      }
      return result;
    }
    function simplifyProperties(properties) {
      const results = {};
      for (const key of Object.keys(properties)) {
        results[key] = simplifyProperty(properties[key]);
      }
      return results;
    }
    function getPropertyTitle(properties) {
      return Object.values(properties).filter((property) => property.type === 'title')[0].title[0]?.plain_text || '';
    }
    function prepend(stringKey, properties) {
      for (const key of Object.keys(properties)) {
        properties[stringKey + '_' + snakeCase(key)] = properties[key];
        delete properties[key];
      }
      return properties;
    }
    // simplifyObjects of the node v2 (no files downloaded).
    function simplifyObjects(objects) {
      if (!Array.isArray(objects)) {
        objects = [objects];
      }
      const results = [];
      for (const { object, id, properties, parent, title, url } of objects) {
        if (object === 'page' && (parent.type === 'page_id' || parent.type === 'workspace')) {
          results.push({ id, name: properties.title.title[0].plain_text, url });
        } else if (object === 'page' && parent.type === 'database_id') {
          results.push({ id, name: getPropertyTitle(properties), url, ...prepend('property', simplifyProperties(properties)) });
        } else if (object === 'database') {
          results.push({ id, name: title[0]?.plain_text || '', url });
        }
      }
      return results;
    }
    function execute(input) {
      return { items: input.simple ? simplifyObjects(input.pages) : [input.pages] };
    }
  JS
}

step "items" {
  use    = "notion_simplify"
  pages  = step.get.body
  simple = input.simple
}

output "items" {
  value       = step.items.items
  description = "The page, as n8n's node gives it: simplified {id, name, url, property_<name>…}, or Notion's page object"
}
