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
  description = "The request's body as n8n builds it (the title, the properties mapped, the icon)"
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
      Object.assign(body.properties, input.properties);
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

step "properties" {
  use        = "notion_map_properties"
  properties = input.properties
}

step "body" {
  use         = "notion_page_properties"
  properties  = step.properties.properties
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
