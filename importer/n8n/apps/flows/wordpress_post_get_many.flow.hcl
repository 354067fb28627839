# WordPress: get many posts — n8n's WordPress node v1, Post → Get Many,
# as it builds the requests (Wordpress.node.js: each option n8n finds
# set in the query; wordpressApiRequestAllItems: with Return All, pages
# of 10 from page 1 on, up to the page count WordPress answers in
# X-WP-TotalPages; else one request of per_page = the limit) on the
# credential's site, Basic auth. The items are the posts, in order. The
# pages after the first are asked for together, where n8n asks for them
# one after the other: the same requests. Written by flowctl import from
# its registry (importer/n8n/apps); every import writes the same file.
# https://developer.wordpress.org/rest-api/reference/posts/#list-posts
flow "wordpress_post_get_many" {
  description = "Gets WordPress posts"
}

secret "wordpress_url" {
  description = "The WordPress site's URL (https://example.com) of n8n's WordPress credential, which the REST API's path /wp-json/wp/v2 follows"
}

secret "wordpress_username" {
  description = "The user name of n8n's WordPress credential"
}

secret "wordpress_password" {
  description = "The password of n8n's WordPress credential: an application password of the user"
}

input "return_all" {
  type        = bool
  default     = false
  description = "Whether to get every post, page by page, or at most limit"
}

input "limit" {
  type        = any
  default     = 5
  description = "At most this many posts, without return_all"
}

input "context" {
  type        = any
  default     = null
  description = "What the answer holds: view, embed or edit"
}

input "orderby" {
  type        = any
  default     = null
  description = "What the posts are sorted by"
}

input "order" {
  type        = any
  default     = null
  description = "asc or desc"
}

input "search" {
  type        = any
  default     = null
  description = "Text the posts hold"
}

input "before" {
  type        = any
  default     = null
  description = "Posts published before this date (ISO 8601)"
}

input "after" {
  type        = any
  default     = null
  description = "Posts published after this date (ISO 8601)"
}

input "sticky" {
  type        = any
  default     = null
  description = "Whether to get the sticky posts only"
}

input "status" {
  type        = any
  default     = null
  description = "The posts' status"
}

locals {
  # The options n8n sends when their value is one JavaScript holds true.
  options = {
    context = input.context
    orderby = input.orderby
    order   = input.order
    search  = input.search
    before  = input.before
    after   = input.after
    sticky  = input.sticky
    status  = input.status
  }
  query = { for k, v in local.options : k => tostring(v) if !(v == null || v == "" || v == 0 || v == false) }
  url   = "${secret.wordpress_url}/wp-json/wp/v2/posts"
  headers = {
    accept        = "application/json"
    authorization = "Basic ${base64encode("${secret.wordpress_username}:${secret.wordpress_password}")}"
    content-type  = "application/json"
    user-agent    = "n8n"
  }
}

step "page_1" {
  use     = "http"
  method  = "GET"
  url     = local.url
  headers = local.headers
  query   = merge(local.query, input.return_all ? { per_page = "10", page = "1" } : { per_page = tostring(input.limit) })
}

locals {
  # n8n goes on while the page count is there, is not 0 and is not the
  # page it has just read.
  total = try(tonumber(step.page_1.headers["X-Wp-Totalpages"]), 1)
}

step "pages" {
  use      = "http"
  for_each = input.return_all && local.total > 1 ? range(2, local.total + 1) : []
  method   = "GET"
  url      = local.url
  headers  = local.headers
  query    = merge(local.query, { per_page = "10", page = tostring(each.value) })
}

output "items" {
  value       = concat(step.page_1.body, flatten([for p in step.pages : p.body]))
  description = "The posts, as n8n's node gives them: {id, date, slug, status, link, title, content…} each"
}
