# Notion: get the pages of a database, all or those the filters match —
# n8n's Notion node v2 (NotionV2.node.js), Database Page → Get Many, for
# one item: POST /databases/ID/query, pages of 100 (Notion's) up to the
# last with Return All, else one page of the limit; the pages simplified
# as n8n's Simplify does. Written by flowctl import from its registry
# (importer/n8n/apps); every import writes the same file. The two js
# blocks are n8n's own code (GenericFunctions.js: mapFilters, mapSorting,
# simplifyObjects; change-case's snakeCase).
# https://developers.notion.com/reference/post-database-query
flow "notion_database_page_get_many" {
  description = "Gets the pages of a Notion database as items"
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
  type        = any
  description = "The database's ID"
}

input "return_all" {
  type        = bool
  default     = false
  description = "Whether to read every page of the answer (10 of 100 at most), or one page of limit"
}

input "limit" {
  type        = any
  default     = 50
  description = "How many pages to get without return_all (n8n's 50)"
}

input "filter_type" {
  type        = string
  default     = "none"
  description = "none, manual (conditions) or json (filter_json)"
}

input "match_type" {
  type        = string
  default     = "anyFilter"
  description = "With manual filters: anyFilter (or) or allFilters (and)"
}

input "conditions" {
  type        = any
  default     = []
  description = "The manual filters as n8n's node has them: {key = \"NAME|TYPE\", type, condition, <type>Value} each"
}

input "filter_json" {
  type        = any
  default     = null
  description = "With filter_type json: the filter, a JSON text of Notion's filter object"
}

input "sort" {
  type        = any
  default     = null
  description = "The sort rules as n8n's node has them: {key, direction, timestamp} each"
}

input "simple" {
  type        = bool
  default     = true
  description = "Whether to simplify each page as n8n does: {id, name, url, property_<name>…}; else Notion's page objects"
}

locals {
  url = "${input.api_url}/databases/${input.database_id}/query"
  headers = {
    accept         = "application/json"
    authorization  = "Bearer ${secret.notion}"
    content-type   = "application/json"
    notion-version = "2021-08-16"
  }
}

block "notion_database_query" {
  runtime     = "js"
  description = "The query's filter and sorts as n8n builds them (mapFilters, mapSorting)"
  input "filter_type" {
    type = string
  }
  input "match_type" {
    type = string
  }
  input "conditions" {
    type = any
  }
  input "filter_json" {
    type    = any
    default = null
  }
  input "sort" {
    type    = any
    default = null
  }
  output "body" {
    type = any
  }
  source = <<-JS
    // n8n's mapFilters and mapSorting (GenericFunctions.js); the importer
    // refuses the date conditions, which n8n reads with moment-timezone.
    function camelCase(key) {
      return key.replace(/_([a-z])/g, (m, c) => c.toUpperCase());
    }
    function getNameAndType(key) {
      const [name, type] = key.split('|');
      return { name, type };
    }
    function mapFilters(filtersList) {
      return filtersList.reduce((obj, value) => {
        let key = getNameAndType(value.key).type;
        let valuePropertyName = key === 'last_edited_time' ? value[camelCase(key)] : value[camelCase(key) + 'Value'];
        if (['is_empty', 'is_not_empty'].includes(value.condition)) {
          valuePropertyName = true;
        } else if (['past_week', 'past_month', 'past_year', 'next_week', 'next_month', 'next_year'].includes(value.condition)) {
          valuePropertyName = {};
        }
        if (key === 'rich_text' || key === 'text') {
          key = 'text';
        } else if (key === 'phone_number') {
          key = 'phone';
        } else if (key === 'boolean') {
          key = 'checkbox';
        }
        if (value.type === 'formula') {
          if (['is_empty', 'is_not_empty'].includes(value.condition)) {
            key = value.returnType;
          } else {
            const vpropertyName = value[camelCase(value.returnType) + 'Value'];
            return Object.assign(obj, {
              ['property']: getNameAndType(value.key).name,
              [key]: { [value.returnType]: { [value.condition]: vpropertyName } },
            });
          }
        }
        return Object.assign(obj, {
          ['property']: getNameAndType(value.key)?.name,
          [key]: { [value.condition]: valuePropertyName },
        });
      }, {});
    }
    function mapSorting(data) {
      return data.map((sort) => ({ direction: sort.direction, [sort.timestamp ? 'timestamp' : 'property']: sort.key.split('|')[0] }));
    }
    // The query's body as the node v2 builds it for an item (NotionV2.node.js,
    // databasePage getAll), before its page_size or start_cursor.
    function execute(input) {
      const body = { filter: {} };
      const conditions = input.conditions || [];
      if (input.filter_type === 'manual') {
        if (input.match_type === 'anyFilter') {
          Object.assign(body.filter, { or: conditions.map((data) => mapFilters([data])) });
        } else if (input.match_type === 'allFilters') {
          Object.assign(body.filter, { and: conditions.map((data) => mapFilters([data])) });
        }
      } else if (input.filter_type === 'json') {
        let parsed;
        try {
          parsed = JSON.parse(input.filter_json);
        } catch (e) {
          parsed = undefined;
        }
        if (parsed === undefined) {
          throw new Error('Filters (JSON) must be a valid json');
        }
        body.filter = JSON.parse(input.filter_json);
      }
      if (!Object.keys(body.filter).length) {
        delete body.filter;
      }
      if (input.sort) {
        body.sorts = mapSorting(input.sort);
      }
      return { body };
    }
  JS
}

step "query" {
  use         = "notion_database_query"
  filter_type = input.filter_type
  match_type  = input.match_type
  conditions  = input.conditions
  filter_json = input.filter_json
  sort        = input.sort
}

locals {
  body = step.query.body
}

step "page_1" {
  use     = "http"
  method  = "POST"
  url     = local.url
  headers = local.headers
  # n8n sends no body when it has no field.
  body = input.return_all && length(local.body) == 0 ? null : merge(local.body, input.return_all ? {} : { page_size = input.limit })
}

step "page_2" {
  use     = "http"
  when    = input.return_all && try(step.page_1.body, null) != null && try(step.page_1.body.has_more, null) != false
  method  = "POST"
  url     = local.url
  headers = local.headers
  body    = merge(local.body, { start_cursor = try(step.page_1.body.next_cursor, null) })
}

step "page_3" {
  use     = "http"
  when    = input.return_all && try(step.page_2.body, null) != null && try(step.page_2.body.has_more, null) != false
  method  = "POST"
  url     = local.url
  headers = local.headers
  body    = merge(local.body, { start_cursor = try(step.page_2.body.next_cursor, null) })
}

step "page_4" {
  use     = "http"
  when    = input.return_all && try(step.page_3.body, null) != null && try(step.page_3.body.has_more, null) != false
  method  = "POST"
  url     = local.url
  headers = local.headers
  body    = merge(local.body, { start_cursor = try(step.page_3.body.next_cursor, null) })
}

step "page_5" {
  use     = "http"
  when    = input.return_all && try(step.page_4.body, null) != null && try(step.page_4.body.has_more, null) != false
  method  = "POST"
  url     = local.url
  headers = local.headers
  body    = merge(local.body, { start_cursor = try(step.page_4.body.next_cursor, null) })
}

step "page_6" {
  use     = "http"
  when    = input.return_all && try(step.page_5.body, null) != null && try(step.page_5.body.has_more, null) != false
  method  = "POST"
  url     = local.url
  headers = local.headers
  body    = merge(local.body, { start_cursor = try(step.page_5.body.next_cursor, null) })
}

step "page_7" {
  use     = "http"
  when    = input.return_all && try(step.page_6.body, null) != null && try(step.page_6.body.has_more, null) != false
  method  = "POST"
  url     = local.url
  headers = local.headers
  body    = merge(local.body, { start_cursor = try(step.page_6.body.next_cursor, null) })
}

step "page_8" {
  use     = "http"
  when    = input.return_all && try(step.page_7.body, null) != null && try(step.page_7.body.has_more, null) != false
  method  = "POST"
  url     = local.url
  headers = local.headers
  body    = merge(local.body, { start_cursor = try(step.page_7.body.next_cursor, null) })
}

step "page_9" {
  use     = "http"
  when    = input.return_all && try(step.page_8.body, null) != null && try(step.page_8.body.has_more, null) != false
  method  = "POST"
  url     = local.url
  headers = local.headers
  body    = merge(local.body, { start_cursor = try(step.page_8.body.next_cursor, null) })
}

step "page_10" {
  use     = "http"
  when    = input.return_all && try(step.page_9.body, null) != null && try(step.page_9.body.has_more, null) != false
  method  = "POST"
  url     = local.url
  headers = local.headers
  body    = merge(local.body, { start_cursor = try(step.page_9.body.next_cursor, null) })
}

# More pages than the flow reads: it fails rather than give part of them.
step "all_read" {
  use   = "value"
  value = input.return_all && try(step.page_10.body, null) != null && try(step.page_10.body.has_more, null) != false ? tobool("the database has more than 1000 pages the filter selects: this flow reads 10 pages of 100; add pages to it") : true
}

locals {
  # Pages 2 to 10 are read only with return_all.
  pages = step.all_read.value ? flatten([step.page_1.body.results, try(step.page_2.body.results, []), try(step.page_3.body.results, []), try(step.page_4.body.results, []), try(step.page_5.body.results, []), try(step.page_6.body.results, []), try(step.page_7.body.results, []), try(step.page_8.body.results, []), try(step.page_9.body.results, []), try(step.page_10.body.results, [])]) : null
}

step "items" {
  use    = "notion_simplify"
  pages  = local.pages
  simple = input.simple
}

output "items" {
  value       = step.items.items
  description = "The pages, as n8n's node gives them: simplified {id, name, url, property_<name>…}, or Notion's page objects"
}
