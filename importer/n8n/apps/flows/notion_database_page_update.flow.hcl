# Notion: update a page of a database — n8n's Notion node v2
# (NotionV2.node.js), Database Page → Update, for one item: PATCH
# /pages/ID with the property values as n8n maps them, and the icon; the
# page Notion answers with, simplified as n8n's Simplify does. Written by
# flowctl import from its registry (importer/n8n/apps); every import
# writes the same file. The two js blocks are n8n's own code
# (GenericFunctions.js: mapProperties, simplifyObjects; change-case's
# snakeCase).
# https://developers.notion.com/reference/patch-page
flow "notion_database_page_update" {
  description = "Updates the properties of a Notion database page"
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
  description = "The request's body as n8n builds it (the properties mapped, the icon)"
  input "properties" {
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
    // The body of Update as the node v2 builds it for an item
    // (NotionV2.node.js, databasePage update).
    function execute(input) {
      const body = { properties: input.properties };
      if (input.icon) {
        if (input.icon_type && input.icon_type === 'file') {
          body.icon = { type: 'external', external: { url: input.icon } };
        } else {
          body.icon = { type: 'emoji', emoji: input.icon };
        }
      }
      return { body };
    }
  JS
}

step "properties" {
  use        = "notion_map_properties"
  properties = input.properties
}

step "body" {
  use        = "notion_page_properties"
  properties = step.properties.properties
  icon       = input.icon
  icon_type  = input.icon_type
}

step "update" {
  use    = "http"
  method = "PATCH"
  url    = "${input.api_url}/pages/${input.page_id}"
  headers = {
    accept         = "application/json"
    authorization  = "Bearer ${secret.notion}"
    content-type   = "application/json"
    notion-version = "2021-08-16"
  }
  body = step.body.body
}

step "items" {
  use    = "notion_simplify"
  pages  = [step.update.body]
  simple = input.simple
}

output "items" {
  value       = step.items.items
  description = "The page, as n8n's node gives it: simplified {id, name, url, property_<name>…}, or Notion's page object"
}
