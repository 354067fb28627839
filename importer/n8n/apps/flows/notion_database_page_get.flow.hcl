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

step "items" {
  use    = "notion_simplify"
  pages  = [step.get.body]
  simple = input.simple
}

output "items" {
  value       = step.items.items
  description = "The page, as n8n's node gives it: simplified {id, name, url, property_<name>…}, or Notion's page object"
}
