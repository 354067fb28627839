# Notion's pages as n8n's Notion node v2 gives them with Simplify on
# (simplifyObjects in NotionV2's GenericFunctions), or as Notion gives them;
# a block of flowctl import's app registry, shared by its Notion flows.

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
      return { items: input.simple ? simplifyObjects(input.pages) : input.pages };
    }
  JS
}
